// The compaction invariants, checked on a log and the view derived from it.
import { parseCompactCommand, type SkeinEvent, type ViewMessage } from '../../shared/protocol.js';

/** Returns the broken invariants (empty when all hold). */
export function checkInvariants(events: readonly SkeinEvent[], view: readonly ViewMessage[]): string[] {
  const problems: string[] = [];
  const users = events.flatMap((e) => (e.kind === 'user' && !parseCompactCommand(e.text) ? [e] : []));
  // A message too large for the window is saved whole as a file: the view holds its head and where the file is.
  const shown = (u: (typeof users)[number], content: string) => (u.saved ? content.includes(u.saved.file) && content.includes(u.text.slice(0, 200)) : content === u.text);
  // The first message stays first, unless a small window folded it (then the summary is first and its ledger holds it).
  const summaryFirst = view[0]?.role === 'user' && view[0].content.startsWith('<compacted-history>');
  if (users.length && (view[0]?.role !== 'user' || (!shown(users[0]!, view[0].content) && !summaryFirst))) problems.push('the first user message is not first in the view');
  // The message being answered (no finished answer after it) is in the view as itself, never only inside a summary.
  const answered = beingAnswered(events, users);
  if (answered && !view.some((m) => m.role === 'user' && shown(answered, m.content))) problems.push(`the message being answered (${answered.seq}) is not in the view as itself`);
  // No orphan tool call or result; groups stay adjacent.
  for (let i = 0; i < view.length; i++) {
    const m = view[i]!;
    if (m.role === 'assistant' && m.toolCalls?.length) {
      const ids = new Set(m.toolCalls.map((c) => c.id));
      let j = i + 1;
      while (j < view.length && view[j]!.role === 'tool') ids.delete(view[j++]!.toolCallId ?? '');
      if (ids.size) problems.push(`tool call(s) ${[...ids].join(', ')} have no result right after them`);
    }
    if (m.role === 'tool') {
      let j = i - 1;
      while (j >= 0 && view[j]!.role === 'tool') j--;
      const owner = view[j];
      if (!owner || owner.role !== 'assistant' || !owner.toolCalls?.some((c) => c.id === m.toolCallId)) problems.push(`tool result ${m.toolCallId} has no call before it`);
    }
  }
  // Every user message is in the view verbatim, or in a ledger (verbatim, or a pointer when very long).
  const text = view.map((m) => m.content).join('\n');
  for (const u of users) {
    if (!text.includes(u.text) && !text.includes(`[event ${u.seq}, long message`) && !(u.saved && text.includes(u.saved.file))) problems.push(`user message ${u.seq} is neither in the view nor in a ledger`);
  }
  return problems;
}

/** The last user message when no finished answer (an answer that called no tool) came after it. */
function beingAnswered<U extends { seq: number }>(events: readonly SkeinEvent[], users: readonly U[]): U | undefined {
  const last = users.at(-1);
  if (!last) return undefined;
  const after = events.filter((e) => e.seq > last.seq);
  const finished = after.some((e, i) => e.kind === 'agent' && after[i + 1]?.kind !== 'tool_call');
  return finished ? undefined : last;
}

export function median(values: number[]): number {
  if (!values.length) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
