// Tool groups are atomic: an assistant message with tool calls and the results
// of those calls form one group, never split; anything else is a group alone,
// and every message is in exactly one group, in order.
import { describe, expect, it } from 'vitest';
import { groupMessages } from '../../server/compaction/groups.js';
import type { SourcedMessage } from '../../server/compaction/view.js';

const user = (seq: number): SourcedMessage => ({ role: 'user', content: `u${seq}`, seq });
const answer = (seq: number, ...calls: string[]): SourcedMessage => ({ role: 'assistant', content: `a${seq}`, seq, ...(calls.length && { toolCalls: calls.map((id) => ({ id, name: 'bash', input: {} })) }) });
const result = (seq: number, id: string | undefined): SourcedMessage => ({ role: 'tool', content: `r${seq}`, seq, ...(id !== undefined && { toolCallId: id }) });
const shape = (messages: SourcedMessage[], from?: number) => groupMessages(messages, from).map((g) => `${g.start}:${g.messages.map((m) => m.seq).join(',')}`);

describe('groupMessages', () => {
  it('an answer and the results of all its calls are one group; the groups cover every message once, in order', () => {
    const m = [user(1), answer(2, 'a', 'b'), result(3, 'b'), result(4, 'a'), answer(5), user(6)];
    expect(shape(m)).toEqual(['0:1', '1:2,3,4', '4:5', '5:6']);
    expect(groupMessages(m).flatMap((g) => g.messages)).toEqual(m);
  });

  it('a group ends when every call has its result: a later tool message is not pulled in', () => {
    const m = [answer(1, 'a'), result(2, 'a'), result(3, 'stray'), user(4)];
    expect(shape(m)).toEqual(['0:1,2', '2:3', '3:4']);
  });

  it('an answer without calls takes no tool message after it', () => {
    expect(shape([answer(1), result(2, 'x')])).toEqual(['0:1', '1:2']);
  });

  it('a group stops at the first message that is not a result, even with calls still open', () => {
    expect(shape([answer(1, 'a', 'b'), result(2, 'a'), user(3), result(4, 'b')])).toEqual(['0:1,2', '2:3', '3:4']);
  });

  it('a result without a call id does not close a call: the group stays open for the real one', () => {
    expect(shape([answer(1, 'a'), result(2, undefined), result(3, 'a'), user(4)])).toEqual(['0:1,2,3', '3:4']);
    expect(shape([answer(1, 'a'), result(2, undefined)])).toEqual(['0:1,2']);
  });

  it('from: grouping starts there, and each start is the index in the whole list', () => {
    const m = [user(1), answer(2, 'a'), result(3, 'a'), user(4)];
    expect(shape(m, 1)).toEqual(['1:2,3', '3:4']);
    expect(shape(m, 4)).toEqual([]);
    expect(shape([])).toEqual([]);
  });
});
