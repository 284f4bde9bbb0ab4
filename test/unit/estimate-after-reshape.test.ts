// The pre-flight estimate after the system prompt or toolset changed (a
// learned small window made them lean): the last real count belonged to the
// full request, so the next estimate counts the new one from scratch (red
// team, issue 38: 2,221 estimated for a request the server counted 937, which
// folded the cut answer the model was asked to continue).
import { describe, expect, it } from 'vitest';
import { ContextEstimator } from '../../server/compaction/estimator.js';
import { requestTokens } from '../../server/llm/tokens.js';
import type { SourcedMessage } from '../../server/compaction/view.js';

const tool = (name: string) => ({ name, description: `${name}: ${'does a thing with many options. '.repeat(40)}`, inputSchema: { type: 'object', properties: {} } });
const full = { system: 'You are a coding agent. '.repeat(200), tools: ['bash', 'read_file', 'write_file', 'edit_file', 'grep', 'glob'].map(tool) };
const lean = { system: 'You are a coding agent.', tools: [tool('bash')] };
const messages: SourcedMessage[] = [
  { role: 'user', content: 'tell me a story', seq: 1, fromUser: true },
  { role: 'assistant', content: 'Once upon a time', seq: 5 },
];

describe('the estimate after a reshape', () => {
  it('counts from scratch when the head the last count was made with is not the head now', () => {
    const e = new ContextEstimator();
    const sent = requestTokens({ ...full, messages: messages.slice(0, 1) });
    e.observe(sent, sent, 40, 4, true, requestTokens({ ...full, messages: [] }));
    // Same head: the last real count plus what came after.
    expect(e.estimate(messages, full)).toBeGreaterThanOrEqual(sent + 4);
    // Lean head: about the lean request, far below the full one.
    const leanNow = requestTokens({ ...lean, messages });
    expect(e.estimate(messages, lean)).toBe(leanNow);
    expect(leanNow).toBeLessThan(sent / 2);
  });
});
