// Claude Code's auto-compact, emulated on skein's strategy interface.
// Effective window = window - min(max output, 20k) (room kept for the summary);
// auto-compact when the context reaches effective - 13k (AUTOCOMPACT_BUFFER_TOKENS).
// First old tool results are cleared keeping the last 5 (microcompact); if the
// view is still over the threshold, one summary of everything after the first
// message (the summary prompt asks for all user messages). Sources: test/bench/README.md.
import { clearToolResults } from '../../../server/compaction/strategies/index.js';
import { firstFoldable } from '../../../server/compaction/plan.js';
import type { CompactionStrategy } from '../../../server/compaction/pipeline.js';
import { collectUserMessages, headTailCut, MAX_OUTPUT, ratioEnv, replaceSpan, userBlock, summariseInPlace, whenAtLeast, type PolicyFor } from './common.js';

const SUMMARY_RESERVE = 20_000;
const AUTOCOMPACT_BUFFER = 13_000;
const MICROCOMPACT_KEEP = 5;
/** BASH_MAX_OUTPUT_LENGTH's default. */
const BASH_OUTPUT_CHARS = 30_000;
/** Claude Code runs Claude models only: 200k windows (1M on some). Smaller windows are an extrapolation of its formula. */
export const CLAUDE_CODE_SMALLEST_WINDOW = 200_000;

export function claudeCodeThreshold(window: number): number {
  return window - Math.min(MAX_OUTPUT, SUMMARY_RESERVE) - AUTOCOMPACT_BUFFER;
}

/** The whole conversation after the first message, one summary, nothing recent kept verbatim. */
function fullCompact(): CompactionStrategy {
  return {
    name: 'claude_code_compact',
    shouldRun: (draft) => draft.messages.length > firstFoldable(draft.messages),
    async run(draft, ctx) {
      const from = firstFoldable(draft.messages);
      const folded = draft.messages.slice(from);
      const { text, usage } = await summariseInPlace(draft, ctx, draft.messages.length, SUMMARY_RESERVE);
      // Claude Code's summary prompt asks for every user message that is not a tool result: they are listed whole.
      const users = collectUserMessages(folded);
      const summary = users.length ? `${text}\n\nAll user messages:\n${users.map(userBlock).join('\n')}` : text;
      return replaceSpan(draft, ctx, from, draft.messages.length, summary, usage);
    },
  };
}

export const claudeCode: PolicyFor = (window) => {
  const threshold = claudeCodeThreshold(window);
  return {
    name: window < CLAUDE_CODE_SMALLEST_WINDOW ? 'Claude Code (extrapolated)' : 'Claude Code',
    // Claude Code counts the last usage plus an estimate of what was added since: skein's pre-flight estimate.
    env: ratioEnv(threshold, window, true),
    strategies: [clearToolResults(MICROCOMPACT_KEEP, { index: false }), whenAtLeast(threshold, fullCompact())],
    resultCap: false,
    cut: headTailCut(BASH_OUTPUT_CHARS),
    extrapolated: window < CLAUDE_CODE_SMALLEST_WINDOW,
  };
};
