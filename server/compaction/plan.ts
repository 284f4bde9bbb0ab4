// Where a fold may start and end: never before the first user message, always
// on whole groups, and as a clean seq range (see deriveView).
import { messageTokens } from '../llm/tokens.js';
import { groupMessages } from './groups.js';
import type { SourcedMessage } from './view.js';

/** Index of the first message that may be folded: everything up to the first user message is pinned. */
export function firstFoldable(messages: readonly SourcedMessage[]): number {
  return messages.findIndex((m) => m.role === 'user') + 1;
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
  let maxSeq = Math.max(...messages.slice(from, end).map((m) => m.seq));
  while (end < messages.length && messages[end]!.seq <= maxSeq) {
    const group = groups.find((g) => g.start === end);
    const size = group ? group.messages.length : 1;
    for (const m of messages.slice(end, end + size)) maxSeq = Math.max(maxSeq, m.seq);
    end += size;
  }
  return end;
}
