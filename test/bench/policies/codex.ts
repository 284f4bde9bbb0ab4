// Codex's compaction (openai/codex), emulated on skein's strategy interface:
// - Trigger: the token usage the last response reported plus an estimate of
//   the items added since the last model output
//   (codex-rs/core/src/context_manager/history.rs, get_total_token_usage and
//   items_after_last_model_generated_item) reaches auto_compact_token_limit,
//   90% of the window (codex-rs/protocol/src/openai_models.rs). The last total
//   plus what was added since is skein's pre-flight estimate of the next request.
// - The summary request is the whole history followed by the compaction prompt
//   (codex-rs/core/src/codex/compact.rs, run_compact_task_inner), so its prefix
//   is read from the cache; while it does not fit, the oldest item is dropped.
// - The new history (build_compacted_history): the real user messages, newest
//   first up to COMPACT_USER_MESSAGE_MAX_TOKENS = 20,000 tokens (the last one
//   cut), then the summary.
// - A command's output is cut to about 10,000 characters, head and tail (the
//   model-facing exec output limit).
import { firstFoldable } from '../../../server/compaction/plan.js';
import type { CompactionStrategy } from '../../../server/compaction/pipeline.js';
import { tokensOf } from '../../../server/llm/tokens.js';
import { collectUserMessages, headTailCut, MAX_OUTPUT, userBlock, ratioEnv, replaceSpan, summariseInPlace, type PolicyFor } from './common.js';

export const AUTO_COMPACT_SHARE = 0.9;
const USER_MESSAGE_BUDGET = 20_000;
/** What the model is shown of a command's output (about 10 KB, head and tail). */
const EXEC_OUTPUT_CHARS = 10_000;

/** Newest first while they fit the budget; the first that does not is cut to what is left. Returned oldest first. */
export function selectRecentUserMessages(messages: readonly string[], budget: number): string[] {
  const selected: string[] = [];
  let remaining = budget;
  for (let i = messages.length - 1; i >= 0 && remaining > 0; i--) {
    const tokens = tokensOf(messages[i]!);
    if (tokens <= remaining) {
      selected.push(messages[i]!);
      remaining -= tokens;
    } else {
      const chars = remaining * 3;
      selected.push(`${messages[i]!.slice(0, chars / 2)}\n…\n${messages[i]!.slice(-chars / 2)}`);
      break;
    }
  }
  return selected.reverse();
}

function codexCompact(): CompactionStrategy {
  return {
    name: 'codex_compact',
    shouldRun: (draft) => draft.messages.length > firstFoldable(draft.messages),
    async run(draft, ctx) {
      const from = firstFoldable(draft.messages);
      const folded = draft.messages.slice(from);
      const { text, usage } = await summariseInPlace(draft, ctx, draft.messages.length, MAX_OUTPUT, true);
      const users = selectRecentUserMessages(collectUserMessages(folded), USER_MESSAGE_BUDGET);
      const summary = [...users.map(userBlock), text].join('\n\n');
      return replaceSpan(draft, ctx, from, draft.messages.length, summary, usage);
    },
  };
}

export const codex: PolicyFor = (window) => ({
  name: 'Codex',
  env: ratioEnv(AUTO_COMPACT_SHARE * window, window, true),
  strategies: [codexCompact()],
  resultCap: false,
  cut: headTailCut(EXEC_OUTPUT_CHARS),
});
