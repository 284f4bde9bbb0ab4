// Strategy 3, no LLM: when the summariser failed, was skipped (circuit
// breaker), or the view is still over the target, fold deterministically: the
// summary is the ledger plus the earlier summaries' text. Never fails.
import { buildLedger, leanerLedger as leaner, ledgerBudget } from '../ledger.js';
import { overTarget, type CompactionStrategy } from '../pipeline.js';
import { tokensOf } from '../../llm/tokens.js';
import { chooseSpan, foldable, foldedDraft } from './fold.js';

/** The fallback keeps fewer recent groups than the summariser: it must land under the target. */
const KEEP_SHARE = 0.1;

export function deterministicFallback(): CompactionStrategy {
  return {
    name: 'fallback',
    shouldRun: (draft, ctx) =>
      foldable(draft, ctx) && (overTarget(draft, ctx) || (!draft.fold && (draft.summariserError !== undefined || (ctx.skipSummariser && ctx.force)))),
    async run(draft, ctx) {
      // Overflow recovery folds harder: a smaller kept tail at level 1, none at level 2.
      const shares = ctx.level === undefined ? [KEEP_SHARE, 0.05, 0] : ctx.level >= 2 ? [0] : [0.05, 0];
      for (const share of shares) {
        const span = chooseSpan(draft, ctx, share);
        if (!span) continue;
        let ledger = buildLedger(span.folded, ledgerBudget(ctx.targetTokens));
        let summary = fallbackSummary(span.folded.flatMap((m) => (m.summaryOf ? [m.summaryOf.summary] : [])), span.summaryBudget / 2);
        let next = foldedDraft(draft, ctx, span, summary, ledger);
        if (next.tokens > ctx.targetTokens) {
          // Still too big: a leaner ledger (the full record stays in the log); in overflow recovery
          // its user messages too are bounded, so a small window is not outgrown by them.
          ledger = leaner(ledger, undefined, ctx.level !== undefined || span.foldsFirst);
          summary = fallbackSummary([], 0);
          next = foldedDraft(draft, ctx, span, summary, ledger);
        }
        if (next.tokens <= ctx.targetTokens || share === 0) return next;
      }
      return draft;
    },
  };
}

/** The reason the LLM summary was not used goes to the event's `error`, never into the summary the model reads. */
function fallbackSummary(earlier: string[], budgetTokens: number): string {
  const lines = ['## Summary (deterministic, no LLM summary this time)', 'The ledger below is an exact record of the folded history.'];
  const carried = earlier.join('\n\n');
  if (carried && tokensOf(carried) <= budgetTokens) lines.push('### Earlier summary', carried);
  else if (carried) lines.push('### Earlier summary (start)', carried.slice(0, Math.max(0, Math.floor(budgetTokens * 3))));
  return lines.join('\n');
}

