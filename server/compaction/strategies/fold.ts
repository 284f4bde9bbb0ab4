// What the two folding strategies share: choosing the span and building the
// draft in which a summary message replaces it.
import type { Ledger } from '../../../shared/protocol.js';
import { measure, type CompactionContext, type Draft } from '../pipeline.js';
import { firstFoldable, foldEnd, recentGroupsWithin, tokensOfMessages } from '../plan.js';
import { coveredRange, summaryMessage, type SourcedMessage } from '../view.js';

export interface FoldSpan {
  from: number;
  end: number;
  folded: SourcedMessage[];
  /** Tokens left for the summary and ledger if the view is to meet the target. */
  summaryBudget: number;
}

/**
 * The span to fold. Kept recent groups get `keepShare` of what the target
 * leaves after the pinned head (system, tools, first user message); asked-for
 * compactions keep at most `preserveRecentGroups` (default 2). `reserve`
 * tokens (the ledger's) are set aside before the recent groups take their share.
 */
export function chooseSpan(draft: Draft, ctx: CompactionContext, keepShare: number, reserve = 0): FoldSpan | undefined {
  const from = firstFoldable(draft.messages);
  if (from <= 0) return undefined;
  const head = measure(draft.messages.slice(0, from), ctx);
  const free = Math.max(0, ctx.targetTokens - head);
  const maxGroups = ctx.preserveRecentGroups ?? (ctx.force ? 2 : Infinity);
  const keep = recentGroupsWithin(draft.messages, from, Math.max(0, free - reserve) * keepShare, maxGroups);
  const end = foldEnd(draft.messages, from, keep);
  if (end <= from) return undefined;
  // Only an earlier summary to fold again: no progress possible, unless overflow recovery needs the
  // summary itself smaller than the room the target leaves (a small window): then it is folded leaner.
  if (end - from === 1 && draft.messages[from]!.summaryOf && !(ctx.level && tokensOfMessages(draft.messages.slice(from, end)) > free)) return undefined;
  const kept = tokensOfMessages(draft.messages.slice(end));
  return { from, end, folded: draft.messages.slice(from, end), summaryBudget: free - kept };
}

export function foldedDraft(draft: Draft, ctx: CompactionContext, span: FoldSpan, summary: string, ledger: Ledger): Draft {
  const coversSeq = coveredRange(span.folded);
  const messages = [...draft.messages.slice(0, span.from), summaryMessage(summary, ledger, coversSeq), ...draft.messages.slice(span.end)];
  return { ...draft, messages, tokens: measure(messages, ctx), fold: { coversSeq, summary, ledger } };
}

export function foldable(draft: Draft, ctx: CompactionContext): boolean {
  return chooseSpan(draft, ctx, 0) !== undefined;
}

