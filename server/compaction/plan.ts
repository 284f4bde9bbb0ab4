// Where a fold may start and end: never before the first user message, always
// on whole groups, and as a clean seq range (see deriveView).
import { messageTokens } from '../llm/tokens.js';
import { groupMessages } from './groups.js';
import type { SourcedMessage } from './view.js';

function lastSeq(m: SourcedMessage): number {
  return m.summaryOf?.covers[1] ?? m.seq;
}

/** Index of the first message that may be folded: everything up to the first user message is pinned. */
export function firstFoldable(messages: readonly SourcedMessage[]): number {
  return messages.findIndex((m) => m.role === 'user') + 1;
}

/**
 * Where a fold starts, undefined when there is no user message: after the
 * first user message, or at it when that is skein's own summary (a small
 * window folded the first message; its summary is not pinned in its place).
 * A provider's compaction stays first: its model reads that block.
 */
export function foldStart(messages: readonly SourcedMessage[]): number | undefined {
  const first = messages.findIndex((m) => m.role === 'user');
  if (first < 0) return undefined;
  const m = messages[first]!;
  return m.summaryOf && !m.compacted ? first : first + 1;
}

export function tokensOfMessages(messages: readonly SourcedMessage[]): number {
  return messages.reduce((n, m) => n + messageTokens(m), 0);
}

/** How many of the most recent groups fit in `budget` tokens (at most `maxGroups`). */
export function recentGroupsWithin(messages: readonly SourcedMessage[], from: number, budget: number, maxGroups = Infinity): number {
  const groups = groupMessages(messages, from);
  let kept = 0;
  let used = 0;
  while (kept < groups.length && kept < maxGroups) {
    const tokens = tokensOfMessages(groups[groups.length - 1 - kept]!.messages);
    if (used + tokens > budget) break;
    used += tokens;
    kept++;
  }
  return kept;
}

/** End index (exclusive) of the fold that keeps the last `keepGroups` groups; `from` when nothing folds. */
export function foldEnd(messages: readonly SourcedMessage[], from: number, keepGroups: number): number {
  const groups = groupMessages(messages, from);
  const foldGroups = groups.length - Math.max(0, keepGroups);
  if (foldGroups <= 0) return from;
  let end = groups[foldGroups]?.start ?? messages.length;
  // A kept message older than the folded span (a user message typed during a
  // tool call) is folded too, so the span stays a clean seq range.
  // (A summary stands for its whole range: a message kept verbatim after it has a seq inside that range.)
  let maxSeq = Math.max(...messages.slice(from, end).map(lastSeq));
  while (end < messages.length && messages[end]!.seq <= maxSeq) {
    const group = groups.find((g) => g.start === end);
    const size = group ? group.messages.length : 1;
    for (const m of messages.slice(end, end + size)) maxSeq = Math.max(maxSeq, lastSeq(m));
    end += size;
  }
  return end;
}

/**
 * Indexes of what no summary may hold: the message being answered (the last
 * one the user typed, and those typed during its turn) and this turn's latest
 * step (its calls and their results, which the model reads to go on). In a
 * small window "recent groups that fit" can be none; the model would then read
 * its question only inside the summary, "context only, not a new
 * instruction", and never answer it. `latestStep` false: the message alone
 * (overflow recovery's last level may fold the step, never the message).
 */
export function answeredMessages(messages: readonly SourcedMessage[], latestStep = true): Set<number> {
  const kept = new Set<number>();
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    // A finished answer closes the turn before: what the user typed before it was answered (a cut answer the
    // model goes on from does not).
    if (m.role === 'assistant' && !m.toolCalls?.length && !m.goesOn) break;
    if (!m.fromUser) continue;
    kept.add(i);
    // The message that started the turn (not one typed while it ran) is the first of it.
    if (!m.midTurn) break;
  }
  if (!kept.size || !latestStep) return kept;
  const first = Math.min(...kept);
  // The latest step: the calls and results the model reads next, or a cut answer it goes on from (and the note
  // after it). Both were made for the message being answered; a huge result is capped when it is recorded.
  const latest = groupMessages(messages).findLast((g) => g.messages[0]!.toolCalls?.length || g.messages[0]!.goesOn);
  if (latest && latest.start > first) for (let i = latest.start; i < messages.length; i++) kept.add(i);
  return kept;
}
