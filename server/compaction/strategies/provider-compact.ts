// Strategy (opt-in, SKEIN_COMPACT_PROVIDER=on): the provider's API compacts
// the oldest groups itself — Anthropic's on-demand compaction, OpenAI's
// /responses/compact. The span always starts at the conversation's start
// (both APIs summarise a prefix and want their result first); recent groups
// are kept as they are. The result is recorded like any fold: a summary
// message (the readable text plus skein's ledger, for any other model) that
// carries the provider's own output, which its model gets instead. When the
// provider cannot (no such API, an error, an unusable answer) the draft is
// left as it was and skein's own strategies go on.
import { buildLedger, ledgerBudget } from '../ledger.js';
import { measure, overTarget, type CompactionContext, type CompactionStrategy, type Draft } from '../pipeline.js';
import { answeredMessages, foldEnd, recentGroupsWithin, tokensOfMessages } from '../plan.js';
import { coveredRange, plain } from '../view.js';
import { foldedDraft, type FoldSpan } from './fold.js';

/** Share of the room (the target less system and tools) that kept recent groups may take, as for skein's summary. */
const KEEP_SHARE = 0.6;

export function providerCompact(): CompactionStrategy {
  return {
    name: 'provider_compact',
    // Not for overflow recovery (deterministic by design), and only once per compaction.
    shouldRun: (draft, ctx) => ctx.compactor !== undefined && ctx.level === undefined && !draft.fold && (overTarget(draft, ctx) || ctx.force) && providerSpan(draft, ctx) !== undefined,
    async run(draft, ctx) {
      const span = providerSpan(draft, ctx)!;
      const ledger = buildLedger(span.folded, ledgerBudget(ctx.targetTokens));
      const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(ctx.summariserTimeoutMs)]);
      try {
        const request = { ...ctx.base, messages: plain(span.folded), ...(ctx.instructions && { instructions: ctx.instructions }) };
        const result = await ctx.compactor!.compactHistory(request, signal);
        const next = foldedDraft(draft, ctx, span, result.text, ledger);
        const messages = next.messages.map((m, i) => (i === 0 ? { ...m, compacted: result.compaction } : m));
        return { ...next, messages, fold: { ...next.fold!, provider: result.compaction }, summariserUsage: result.usage };
      } catch (err) {
        if (ctx.signal.aborted) throw err;
        return { ...draft, providerError: err instanceof Error ? err.message : String(err) };
      }
    },
  };
}

/** The span from the conversation's start, keeping the recent groups that fit (at most two when asked for). */
export function providerSpan(draft: Draft, ctx: CompactionContext): FoldSpan | undefined {
  const free = Math.max(0, ctx.targetTokens - measure([], ctx));
  const maxGroups = ctx.preserveRecentGroups ?? (ctx.force ? 2 : Infinity);
  // At least the newest group stays: the provider's output goes back as an assistant message, and a request
  // that ended with it would be a prefill (refused by the newest models), with the user's last words folded away.
  const keep = Math.max(1, recentGroupsWithin(draft.messages, 0, free * KEEP_SHARE, maxGroups));
  // Never the message being answered (nor the turn's latest step): the provider's output is one prefix, so the span
  // stops before them, and is not taken when a message after it belongs inside (one typed during a call).
  const end = Math.min(foldEnd(draft.messages, 0, keep), Math.min(...answeredMessages(draft.messages)));
  if (end <= 0 || end >= draft.messages.length) return undefined;
  const covered = coveredRange(draft.messages.slice(0, end));
  if (draft.messages.slice(end).some((m) => m.seq <= covered[1])) return undefined;
  // Only the provider's own earlier summary: nothing new to fold.
  if (end === 1 && draft.messages[0]!.summaryOf) return undefined;
  return { from: 0, end, folded: draft.messages.slice(0, end), kept: [], summaryBudget: free - tokensOfMessages(draft.messages.slice(end)), foldsFirst: false };
}
