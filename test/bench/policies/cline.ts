// The Cline SDK's compaction (cline/cline, sdk/packages/core/src/extensions/context/),
// emulated on skein's strategy interface:
// - max input = 0.9 x the context window when only a window is reported
//   (compaction-shared.ts, CONTEXT_WINDOW_INPUT_RATIO, resolveEffectiveMaxInputTokens);
// - compact when the pre-flight estimate of the request reaches 0.9 x max
//   input (compaction.ts: requestInputTokens >= maxInputTokens * COMPACTION_TRIGGER_RATIO);
// - target (compaction.ts, resolveAutoRequestTargetTokens): 0.5 x max input
//   once the conversation has 5 message pairs and the model's max output is
//   below max input (LONG_CONVERSATION_TARGET_RATIO), else 0.7 x the trigger;
// - the newest DEFAULT_PRESERVE_RECENT_TOKENS = 20,000 stay verbatim (fewer
//   when the target needs it), the rest with the previous summary becomes one
//   summary of at most DEFAULT_SUMMARY_MAX_OUTPUT_TOKENS = 4,096 (agentic
//   compaction, a separate summariser request);
// - a command's output is cut at MAX_COMMAND_OUTPUT_CHARS = 48,000
//   (sdk/packages/core/src/extensions/tools/executors/output-limits.ts).
import { firstFoldable, foldEnd, recentGroupsWithin } from '../../../server/compaction/plan.js';
import { measure, type CompactionStrategy } from '../../../server/compaction/pipeline.js';
import { headTailCut, MAX_OUTPUT, ratioEnv, replaceSpan, summariseSpan, type PolicyFor } from './common.js';

const INPUT_RATIO = 0.9;
export const CLINE_TRIGGER = 0.9;
const LONG_TARGET = 0.5;
const TARGET = 0.7;
const KEEP_TOKENS = 20_000;
const SUMMARY_TOKENS = 4096;
const COMMAND_OUTPUT_CHARS = 48_000;

export function clineMaxInput(window: number): number {
  return INPUT_RATIO * window;
}

function clineCompact(maxInput: number): CompactionStrategy {
  return {
    name: 'cline_compact',
    shouldRun: (draft) => draft.messages.length > firstFoldable(draft.messages),
    async run(draft, ctx) {
      const from = firstFoldable(draft.messages);
      const pairs = draft.messages.filter((m) => m.role === 'assistant').length;
      const target = pairs >= 5 && MAX_OUTPUT < maxInput ? LONG_TARGET * maxInput : TARGET * CLINE_TRIGGER * maxInput;
      const head = measure(draft.messages.slice(0, from), ctx);
      const keepBudget = Math.min(KEEP_TOKENS, Math.max(0, target - head - SUMMARY_TOKENS));
      const end = foldEnd(draft.messages, from, recentGroupsWithin(draft.messages, from, keepBudget));
      if (end <= from || (end - from === 1 && draft.messages[from]!.summaryOf)) return draft;
      const { text, usage } = await summariseSpan(draft.messages.slice(from, end), ctx, SUMMARY_TOKENS);
      return replaceSpan(draft, ctx, from, end, text, usage);
    },
  };
}

export const cline: PolicyFor = (window) => ({
  name: 'Cline SDK',
  env: ratioEnv(CLINE_TRIGGER * clineMaxInput(window), window, true),
  strategies: [clineCompact(clineMaxInput(window))],
  resultCap: false,
  cut: headTailCut(COMMAND_OUTPUT_CHARS),
});
