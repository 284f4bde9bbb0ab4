// Strategy 2: the oldest groups, all but the recent ones, are folded into a
// structured summary by the LLM. Incremental: the previous summary plus the
// newly folded groups, never the whole history again. The deterministic
// ledger is attached beside it.
import { buildLedger, leanerLedger, ledgerBudget, renderLedger } from '../ledger.js';
import { overTarget, type CompactionStrategy } from '../pipeline.js';
import { fitsSummariser, inPlaceRequest, summarise, summariseInPlace } from '../summarizer.js';
import { plain } from '../view.js';
import { renderTranscript } from '../transcript.js';
import { tokensOf } from '../../llm/tokens.js';
import { chooseSpan, foldable, foldedDraft } from './fold.js';

/**
 * Share of the free room (after the pinned head) that recent groups may keep
 * verbatim. Every token kept after the summary is written to the prompt cache
 * again after each fold (3.75x the price of reading it), and makes the cycle
 * to the next fold shorter: the summary and the ledger carry the rest, and
 * search_history reads any of it back. Was 0.6; 0.15 cut the 32k shootout's
 * cost by about 7% with every user message and identifier still kept.
 */
const KEEP_SHARE = 0.15;
const MIN_SUMMARY_TOKENS = 256;
/** The least a summary takes: a fold whose wrapper and ledger leave less than this to save is not worth a model call. */
const NO_GAIN_TOKENS = 32;
const MAX_SUMMARY_TOKENS = 4096;
/** The ledger leaves at least this much of the room for the summary; past it, it gets leaner. */
const SUMMARY_FLOOR_TOKENS = 400;

export function summarize(): CompactionStrategy {
  return {
    name: 'summarize',
    // An asked-for compaction already folded (by the provider) needs no second summary unless still over target.
    shouldRun: (draft, ctx) => !ctx.skipSummariser && (overTarget(draft, ctx) || (ctx.force && !draft.fold)) && foldable(draft, ctx),
    async run(draft, ctx) {
      const budget = ledgerBudget(ctx.targetTokens);
      // The ledger's room is set aside before recent groups take their share: the exact record comes first.
      const whole = chooseSpan(draft, ctx, 0);
      const reserve = whole ? Math.min(budget, tokensOf(renderLedger(buildLedger(whole.folded, budget)))) : 0;
      const span = chooseSpan(draft, ctx, KEEP_SHARE, reserve) ?? whole;
      if (!span) return draft;
      const full = buildLedger(span.folded, budget);
      // When room is tight, the ledger gets leaner rather than the view missing its target.
      const room = span.summaryBudget - SUMMARY_FLOOR_TOKENS;
      const ledger = tokensOf(renderLedger(full)) > room || span.foldsFirst ? leanerLedger(full, Math.max(100, room), span.foldsFirst) : full;
      // A fold that would not shrink the view even with a one-line summary calls no model (seconds on a local one).
      if (foldedDraft(draft, ctx, span, '', ledger).tokens + NO_GAIN_TOKENS >= draft.tokens) return draft;
      const parts = renderTranscript(span.folded);
      const previous = parts[0]?.startsWith('<previous-summary>') ? parts.shift()! : '';
      // Nothing new to read (the span is the earlier summary and messages with no text): its summary is carried, no model call.
      if (!parts.some((p) => p.trim())) {
        const carried = span.folded.flatMap((m) => (m.summaryOf ? [m.summaryOf.summary] : [])).join('\n\n');
        return carried ? foldedDraft(draft, ctx, span, carried, ledger) : draft;
      }
      const summaryRoom = span.summaryBudget - tokensOf(renderLedger(ledger)) - 64;
      const maxOutputTokens = Math.min(MAX_SUMMARY_TOKENS, Math.max(MIN_SUMMARY_TOKENS, summaryRoom));
      const common = { summariser: ctx.summariser, timeoutMs: ctx.summariserTimeoutMs, signal: ctx.signal };
      // The session's own model reads the folded span from the conversation it has cached; else a transcript.
      const inPlace = ctx.inPlace && ctx.inPlace.view.length === draft.messages.length
        ? inPlaceRequest(ctx.base, plain(ctx.inPlace.view.slice(0, span.end)), ctx.instructions, Math.min(maxOutputTokens, ctx.summariser.limits.maxOutputTokens))
        : undefined;
      try {
        const result =
          inPlace && fitsSummariser(inPlace, ctx.summariser, ctx.inPlace!.ratio)
            ? await summariseInPlace(inPlace, common)
            : await summarise(previous, parts, { ...common, ...(ctx.instructions && { focus: ctx.instructions }), maxOutputTokens });
        return { ...foldedDraft(draft, ctx, span, result.text, ledger), summariserUsage: result.usage };
      } catch (err) {
        if (ctx.signal.aborted) throw err;
        // Leave the view as it was; the fallback strategy folds deterministically.
        return { ...draft, summariserError: err instanceof Error ? err.message : String(err) };
      }
    },
  };
}
