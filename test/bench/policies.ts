// Compaction policies compared by the benchmarks, built from skein's own
// pieces: a strategy is a small object, so another policy is a few lines.
import type { CompactionStrategy } from '../../server/compaction/pipeline.js';
import { measure } from '../../server/compaction/pipeline.js';
import { firstFoldable } from '../../server/compaction/plan.js';
import { clearToolResults, defaultStrategies, deterministicFallback, summarize } from '../../server/compaction/strategies/index.js';
import { SUMMARY_PROMPT } from '../../server/compaction/summarizer.js';
import { renderTranscript } from '../../server/compaction/transcript.js';
import { coveredRange, summaryMessage } from '../../server/compaction/view.js';
import { emptyLedger } from '../../server/compaction/ledger.js';

/**
 * sketch's summary: the whole history after the first message, in one request
 * (no chunks, no recent groups kept, no ledger, no fallback). It fails when the
 * history no longer fits the summariser, exactly when the context is full.
 */
export function wholeHistorySummary(): CompactionStrategy {
  return {
    name: 'whole_history_summary',
    shouldRun: (draft) => draft.messages.length > firstFoldable(draft.messages),
    async run(draft, ctx) {
      const from = firstFoldable(draft.messages);
      const folded = draft.messages.slice(from);
      const response = await ctx.summariser.complete(
        { system: SUMMARY_PROMPT, messages: [{ role: 'user', content: `<transcript>\n${renderTranscript(folded).join('\n')}\n</transcript>` }], tools: [], maxOutputTokens: 2048, purpose: 'summary' },
        ctx.signal,
      );
      const coversSeq = coveredRange(folded);
      const messages = [...draft.messages.slice(0, from), summaryMessage(response.text, undefined, coversSeq)];
      return { ...draft, messages, tokens: measure(messages, ctx), fold: { coversSeq, summary: response.text, ledger: emptyLedger() }, summariserUsage: response.usage };
    },
  };
}

/** Runs `inner` only while the view is above `share` of the window. */
export function whenAbove(share: number, inner: CompactionStrategy): CompactionStrategy {
  return {
    name: inner.name,
    shouldRun: (draft, ctx) => draft.tokens >= share * ctx.contextWindow && inner.shouldRun(draft, ctx),
    run: (draft, ctx) => inner.run(draft, ctx),
  };
}

export interface Policy {
  name: string;
  env: Record<string, string>;
  strategies?: CompactionStrategy[];
  resultCap?: boolean;
  /** The tool's own cut of a long tool output, applied as the output arrives (a peer's rule; skein's cap is resultCap). */
  cut?: (output: string) => string;
  /** The model the policy's summaries are priced at (default: the session's reference model). */
  summaryModel?: string;
  /** Rows outside the windows the tool supports: shown, marked, and kept out of the goals. */
  extrapolated?: boolean;
}

/** sketch's policy: compact only when the last usage >= 0.94 x window; whole-history summary; no pre-flight; no result cap. */
export const SKETCH: Policy = {
  name: 'baseline (sketch)',
  env: { SKEIN_COMPACT_THRESHOLD_RATIO: '0.94', SKEIN_COMPACT_PREFLIGHT: 'off' },
  strategies: [wholeHistorySummary()],
  resultCap: false,
};

export const SKEIN: Policy = { name: 'skein', env: {}, strategies: defaultStrategies() };

/** No compaction at all (for the cost reference, with an unbounded window). */
export const NONE: Policy = { name: 'no compaction', env: { SKEIN_COMPACT_THRESHOLD_RATIO: '1', SKEIN_COMPACT_PREFLIGHT: 'off' }, strategies: [], resultCap: false };

/** Context hygiene: old tool results cleared from 30% of the window; summaries only past the usual threshold. */
export const CLEAR_FROM_30: Policy = {
  name: 'skein, clearing from 30%',
  env: { SKEIN_COMPACT_THRESHOLD_RATIO: '0.3' },
  strategies: [clearToolResults(3), whenAbove(0.85, summarize()), whenAbove(0.85, deterministicFallback())],
};
