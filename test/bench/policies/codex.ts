// Codex's compaction, emulated on skein's strategy interface: compact when the
// last reported context reaches 90% of the window; the summary request holds
// the whole history (oldest items dropped while it does not fit); the new
// history is the recent real user messages verbatim (newest first, up to 20k
// tokens, the last one cut) followed by the summary. Sources: test/bench/README.md.
import { firstFoldable } from '../../../server/compaction/plan.js';
import type { CompactionStrategy } from '../../../server/compaction/pipeline.js';
import { tokensOf } from '../../../server/llm/tokens.js';
import { collectUserMessages, MAX_OUTPUT, outputCap, userBlock, ratioEnv, replaceSpan, summariseInPlace, type PolicyFor } from './common.js';

const AUTO_COMPACT_SHARE = 0.9;
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
  // Codex compares the token usage the last response reported with its limit: no pre-flight estimate.
  env: { ...ratioEnv(AUTO_COMPACT_SHARE * window, window, false), ...outputCap(EXEC_OUTPUT_CHARS) },
  strategies: [codexCompact()],
  resultCap: true,
});
