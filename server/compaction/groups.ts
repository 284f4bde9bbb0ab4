// Atomic message groups: an assistant message with tool calls and all of
// their results is one group, kept or folded together, never split.
import type { SourcedMessage } from './view.js';

export interface MessageGroup {
  /** Index of the group's first message in the view. */
  start: number;
  messages: SourcedMessage[];
}

export function groupMessages(messages: readonly SourcedMessage[], from = 0): MessageGroup[] {
  const groups: MessageGroup[] = [];
  let i = from;
  while (i < messages.length) {
    const first = messages[i]!;
    const group: MessageGroup = { start: i, messages: [first] };
    i++;
    const pending = new Set((first.toolCalls ?? []).map((c) => c.id));
    while (pending.size && i < messages.length && messages[i]!.role === 'tool') {
      pending.delete(messages[i]!.toolCallId ?? '');
      group.messages.push(messages[i]!);
      i++;
    }
    groups.push(group);
  }
  return groups;
}
