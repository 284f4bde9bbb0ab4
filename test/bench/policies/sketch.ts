// sketch's compaction (boldsoftware/sketch), emulated on skein's strategy interface:
// - compact when the last reported usage reaches 0.94 x window (loop/agent.go:
//   "default to 0.94 (94%)"; no pre-flight estimate). The share is set for
//   the 200k window of the models sketch runs (the issue 41 audit of loop/agent.go):
//   below 200k the row is an extrapolation, marked and kept out of the goals;
// - one summary of the whole history, asked for inside the conversation
//   (generateConversationSummary, loop/agent.go: a subconversation with the
//   history), so the cached prefix is read; the new history is the summary;
// - a bash output over 131,072 bytes becomes its first and last 4,096 bytes
//   (claudetool/bash.go: maxBashOutputLength, formatForegroundBashOutput's snipSize).
import { firstFoldable } from '../../../server/compaction/plan.js';
import type { CompactionStrategy } from '../../../server/compaction/pipeline.js';
import { MAX_OUTPUT, replaceSpan, summariseInPlace, type PolicyFor } from './common.js';

export const SKETCH_THRESHOLD = 0.94;
const MAX_BASH_OUTPUT = 131_072;
const SNIP = 4096;

export function sketchCut(output: string): string {
  const bytes = Buffer.byteLength(output);
  if (bytes <= MAX_BASH_OUTPUT) return output;
  return `[output truncated in middle: got ${bytes} bytes, max is ${MAX_BASH_OUTPUT}]\n${output.slice(0, SNIP)}\n\n[snip]\n\n${output.slice(-SNIP)}`;
}

function wholeHistoryInPlace(): CompactionStrategy {
  return {
    name: 'sketch_compact',
    shouldRun: (draft) => draft.messages.length > firstFoldable(draft.messages),
    async run(draft, ctx) {
      const from = firstFoldable(draft.messages);
      const { text, usage } = await summariseInPlace(draft, ctx, draft.messages.length, MAX_OUTPUT);
      return replaceSpan(draft, ctx, from, draft.messages.length, text, usage);
    },
  };
}

/** The window sketch's 0.94 is set for: smaller windows are an extrapolation. */
export const SKETCH_WINDOW = 200_000;

export const sketch: PolicyFor = (window) => ({
  name: window < SKETCH_WINDOW ? 'sketch (extrapolated)' : 'sketch',
  extrapolated: window < SKETCH_WINDOW,
  env: { SKEIN_COMPACT_THRESHOLD_RATIO: String(SKETCH_THRESHOLD), SKEIN_COMPACT_PREFLIGHT: 'off' },
  strategies: [wholeHistoryInPlace()],
  resultCap: false,
  cut: sketchCut,
});
