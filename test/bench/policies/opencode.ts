// OpenCode's context management (sst/opencode), emulated on skein's strategy interface.
// - Trigger (packages/opencode/src/session/overflow.ts, isOverflow/usable):
//   compact when the request reaches usable = window - max output -
//   min(20,000, max output) (COMPACTION_BUFFER = 20_000); with the replay
//   model's 8,192-token output that is window - 16,384. Counted on the request
//   about to go out (the compaction captures the next request): skein's pre-flight estimate.
// - Prune (packages/opencode/src/session/compaction.ts, prune): walking back
//   from the newest message, the last two user turns are skipped, the newest
//   PRUNE_PROTECT = 40,000 tokens of tool output are protected, and older outputs
//   are cleared only when more than PRUNE_MINIMUM = 20,000 tokens would go;
//   it stops at a summary or at an output already cleared.
// - Compaction (same file, select/processCompaction): the recent turns within
//   preserveRecentBudget = min(15,000, max(2,000, 25% of usable)) stay
//   verbatim, the rest becomes one summary asked for in a separate request
//   (the conversation serialised into the prompt, "prepend" mode, so nothing
//   is read from the cache) of at most SUMMARY_OUTPUT_TOKENS = 4,096
//   (packages/core/src/session/compaction-suffix.ts).
import { messageTokens } from '../../../server/llm/tokens.js';
import { firstFoldable, foldEnd, recentGroupsWithin } from '../../../server/compaction/plan.js';
import { measure, type CompactionStrategy } from '../../../server/compaction/pipeline.js';
import { applyCompaction, CLEARABLE_CHARS, isSummaryMessage, type SourcedMessage } from '../../../server/compaction/view.js';
import { MAX_OUTPUT, ratioEnv, replaceSpan, summariseSpan, type PolicyFor } from './common.js';

export const PRUNE_PROTECT = 40_000;
export const PRUNE_MINIMUM = 20_000;
const COMPACTION_BUFFER = 20_000;
const SUMMARY_OUTPUT_TOKENS = 4096;

export function openCodeUsable(window: number): number {
  return window - MAX_OUTPUT - Math.min(COMPACTION_BUFFER, MAX_OUTPUT);
}

export function preserveRecentBudget(window: number): number {
  return Math.min(15_000, Math.max(2_000, Math.floor(openCodeUsable(window) * 0.25)));
}

/** The seq through which prune clears tool outputs, or undefined when it would free too little. */
export function pruneThrough(view: readonly SourcedMessage[]): number | undefined {
  let turns = 0;
  let total = 0;
  let pruned = 0;
  let through: number | undefined;
  for (let i = view.length - 1; i >= 0; i--) {
    const m = view[i]!;
    if (m.role === 'user' && !isSummaryMessage(m)) turns++;
    if (turns < 2) continue;
    if (m.summaryOf) break;
    if (m.role !== 'tool') continue;
    if (m.clearedChars !== undefined) break;
    const tokens = messageTokens(m);
    total += tokens;
    if (total <= PRUNE_PROTECT) continue;
    if (m.content.length <= CLEARABLE_CHARS) continue;
    pruned += tokens;
    through ??= m.seq;
  }
  return pruned > PRUNE_MINIMUM ? through : undefined;
}

function prune(): CompactionStrategy {
  return {
    name: 'opencode_prune',
    due: (view) => pruneThrough(view) !== undefined,
    shouldRun: (draft) => pruneThrough(draft.messages) !== undefined,
    async run(draft, ctx) {
      const through = pruneThrough(draft.messages)!;
      const calls = new Map(draft.messages.flatMap((m) => m.toolCalls ?? []).map((c) => [c.id, c]));
      const messages = [...draft.messages];
      applyCompaction(messages, { clearedThroughSeq: through }, calls);
      return { ...draft, messages, tokens: measure(messages, ctx), clearedThroughSeq: through };
    },
  };
}

function compact(window: number): CompactionStrategy {
  return {
    name: 'opencode_compact',
    // Only the token trigger (or a refusal) runs it: prune's own trigger runs prune alone.
    shouldRun: (draft) => draft.messages.length > firstFoldable(draft.messages),
    async run(draft, ctx) {
      const from = firstFoldable(draft.messages);
      const end = foldEnd(draft.messages, from, recentGroupsWithin(draft.messages, from, preserveRecentBudget(window)));
      if (end <= from || (end - from === 1 && draft.messages[from]!.summaryOf)) return draft;
      const { text, usage } = await summariseSpan(draft.messages.slice(from, end), ctx, SUMMARY_OUTPUT_TOKENS);
      return replaceSpan(draft, ctx, from, end, text, usage);
    },
  };
}

export const openCode: PolicyFor = (window) => ({
  name: 'OpenCode',
  env: ratioEnv(openCodeUsable(window), window, true),
  strategies: [prune(), compact(window)],
  resultCap: false,
});
