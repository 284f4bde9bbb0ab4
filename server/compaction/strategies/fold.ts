// What the two folding strategies share: choosing the span and building the
// draft in which a summary message replaces it.
import type { Ledger } from '../../../shared/protocol.js';
import { measure, type CompactionContext, type Draft } from '../pipeline.js';
import { answeredMessages, foldEnd, foldStart, recentGroupsWithin, tokensOfMessages } from '../plan.js';
import { coveredRange, summaryMessage, type SourcedMessage } from '../view.js';

export interface FoldSpan {
  from: number;
  end: number;
  /** What the summary stands for: the span less what it keeps. */
  folded: SourcedMessage[];
  /** Messages inside the span that stay verbatim after the summary (the message being answered, the turn's latest step). */
  kept: SourcedMessage[];
  /** Tokens left for the summary and ledger if the view is to meet the target. */
  summaryBudget: number;
  /** The pinned first message folds too (it cannot share the window): the ledger bounds user messages to pointers. */
  foldsFirst: boolean;
}

/** Overflow recovery's last level (see server/agent/overflow-recovery.ts, MAX_LEVEL). */
const LAST_LEVEL = 2;

/** The least room a summary needs beside the pinned first message (and the answer's, a window's eighth at least as much). */
const MIN_SUMMARY_ROOM = 256;

/**
 * The span to fold. Kept recent groups get `keepShare` of what the target
 * leaves after the pinned head (system, tools, first user message); asked-for
 * compactions keep at most `preserveRecentGroups` (default 2). `reserve`
 * tokens (the ledger's) are set aside before the recent groups take their share.
 * The message being answered and the turn's latest step are never folded: when
 * the span reaches them they stay, verbatim, after the summary.
 */
export function chooseSpan(draft: Draft, ctx: CompactionContext, keepShare: number, reserve = 0): FoldSpan | undefined {
  const messages = draft.messages;
  const start = foldStart(messages);
  if (start === undefined) return undefined;
  let from = start;
  // At overflow recovery's last level the turn's latest step may fold too (the ledger records it); the message never.
  const answered = answeredMessages(messages, !(ctx.level !== undefined && ctx.level >= LAST_LEVEL));
  const answeredTokens = tokensOfMessages([...answered].map((i) => messages[i]!));
  // A first message that leaves, beside what is being answered, no room for a summary and the answer in the whole
  // window folds too (unless it is the one being answered): else the request cannot fit at all.
  const window = ctx.windowTokens ?? ctx.contextWindow;
  const room = MIN_SUMMARY_ROOM + Math.max(MIN_SUMMARY_ROOM, Math.floor(window / 8));
  if (from > 0 && messages[from - 1]!.fromUser && !answered.has(from - 1) && measure(messages.slice(0, from), ctx) + answeredTokens + room > window) from--;
  const head = measure(messages.slice(0, from), ctx);
  const free = Math.max(0, ctx.targetTokens - head);
  const maxGroups = ctx.preserveRecentGroups ?? (ctx.force ? 2 : Infinity);
  const keep = recentGroupsWithin(messages, from, Math.max(0, free - reserve) * keepShare, maxGroups);
  let end = foldEnd(messages, from, keep);
  // What is being answered, at the end of the span, is left out of it (when no folded seq comes after it).
  while (end > from && answered.has(end - 1) && messages[end - 1]!.seq > coveredRange(messages.slice(from, end - 1))[1]) end--;
  const span = messages.slice(from, end);
  const folded = span.filter((_, i) => !answered.has(from + i));
  if (!folded.length) return undefined;
  // Only an earlier summary to fold again: no progress possible, unless overflow recovery needs the
  // summary itself smaller than the room the target leaves (a small window): then it is folded leaner.
  if (folded.length === 1 && folded[0]!.summaryOf && !(ctx.level && tokensOfMessages(folded) > free)) return undefined;
  const kept = span.filter((_, i) => answered.has(from + i));
  const after = tokensOfMessages(messages.slice(end)) + tokensOfMessages(kept);
  return { from, end, folded, kept, summaryBudget: free - after, foldsFirst: from < start };
}

export function foldedDraft(draft: Draft, ctx: CompactionContext, span: FoldSpan, summary: string, ledger: Ledger): Draft {
  const coversSeq = coveredRange(draft.messages.slice(span.from, span.end));
  const keptSeqs = span.kept.map((m) => m.seq);
  const messages = [
    ...draft.messages.slice(0, span.from),
    summaryMessage(summary, ledger, coversSeq, keptSeqs),
    ...span.kept,
    ...draft.messages.slice(span.end),
  ];
  return { ...draft, messages, tokens: measure(messages, ctx), fold: { coversSeq, summary, ledger, ...(keptSeqs.length && { keptSeqs }) } };
}

export function foldable(draft: Draft, ctx: CompactionContext): boolean {
  return chooseSpan(draft, ctx, 0) !== undefined;
}
