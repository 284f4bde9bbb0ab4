// Anthropic thinking blocks, unit by unit: the prefix fingerprint (what a block
// is bound to), reading an answer's reasoning, and the blocks an assistant
// turn goes back with: exactly as returned, in order, or the same answer
// without its thinking.
import type { Message } from '@anthropic-ai/sdk/resources/messages';
import { describe, expect, it } from 'vitest';
import type { Reasoning } from '../../shared/protocol.js';
import { assistantBlocks, prefixOf, prefixRefusal, readReasoning } from '../../server/llm/anthropic-thinking.js';

const BASE = { model: 'claude-sonnet-5-5', system: [{ type: 'text', text: 'be brief' }], tools: [{ name: 'bash', input_schema: { type: 'object' } }] };
const MESSAGES = [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }];

const answer = (content: Record<string, unknown>[]) => ({ content }) as unknown as Message;

const OUTPUT = [
  { type: 'thinking', thinking: 'first I plan', signature: 'sig-1' },
  { type: 'text', text: 'Running it.' },
  { type: 'thinking', thinking: '', signature: 'sig-2' },
  { type: 'redacted_thinking', data: 'opaque' },
  { type: 'tool_use', id: 'toolu_1', name: 'bash', input: { command: 'ls' } },
];

describe('prefixOf', () => {
  it('is a 32-hex fingerprint that ignores cache markers and key order, and changes with anything else', () => {
    const p = prefixOf(BASE, MESSAGES);
    expect(p).toMatch(/^[0-9a-f]{32}$/);
    const marked = [{ role: 'user', content: [{ type: 'text', text: 'hi', cache_control: { type: 'ephemeral' } }] }];
    expect(prefixOf(BASE, marked)).toBe(p);
    expect(prefixOf({ tools: BASE.tools, system: BASE.system, model: BASE.model }, [{ content: [{ text: 'hi', type: 'text' }], role: 'user' }])).toBe(p);
    expect(prefixOf({ ...BASE, system: [{ type: 'text', text: 'be brief!' }] }, MESSAGES)).not.toBe(p);
    expect(prefixOf({ ...BASE, model: 'claude-fable-5-1' }, MESSAGES)).not.toBe(p);
    expect(prefixOf({ ...BASE, tools: [] }, MESSAGES)).not.toBe(p);
    expect(prefixOf(BASE, [{ role: 'user', content: [{ type: 'text', text: 'hi!' }] }])).not.toBe(p);
    expect(prefixOf(BASE, [...MESSAGES, { role: 'assistant', content: [{ type: 'text', text: 'x' }] }])).not.toBe(p);
    // Order within arrays counts; a missing system or tool list is its own value, and undefined fields are left out.
    expect(prefixOf(BASE, [{ role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] }])).not.toBe(prefixOf(BASE, [{ role: 'user', content: [{ type: 'text', text: 'b' }, { type: 'text', text: 'a' }] }]));
    expect(prefixOf({ model: 'm', system: undefined, tools: undefined }, [])).toBe(prefixOf({ model: 'm', system: null, tools: null }, []));
    expect(prefixOf({ model: 'm', system: '', tools: [] }, [])).not.toBe(prefixOf({ model: 'm', system: null, tools: null }, []));
    expect(prefixOf(BASE, [{ role: 'user', content: 'hi', extra: undefined }])).toBe(prefixOf(BASE, [{ role: 'user', content: 'hi' }]));
    // A key that sorts before another in code units, not by locale.
    expect(prefixOf({ model: 'm', system: { B: 1, a: 2 }, tools: null }, [])).toBe(prefixOf({ model: 'm', system: { a: 2, B: 1 }, tools: null }, []));
    expect(prefixOf({ model: 'm', system: { a: 1 }, tools: null }, [])).not.toBe(prefixOf({ model: 'm', system: { a: '1' }, tools: null }, []));
  });
});

describe('readReasoning', () => {
  it('keeps every block as returned, the thinking text joined, and says when some was redacted', () => {
    const r = readReasoning(answer(OUTPUT), 'claude-sonnet-5-5', 'prefix-1')!;
    expect(r).toEqual({ provider: 'anthropic', model: 'claude-sonnet-5-5', output: OUTPUT, prefix: 'prefix-1', text: 'first I plan', redacted: true });
    // Copies, not the SDK's objects.
    expect(r.output[0]).not.toBe(OUTPUT[0]);
    const two = readReasoning(answer([{ type: 'thinking', thinking: 'a', signature: 's' }, { type: 'thinking', thinking: 'b', signature: 't' }, { type: 'text', text: 'x' }]), 'm', 'p')!;
    expect(two.text).toBe('a\n\nb');
    expect(two).not.toHaveProperty('redacted');
  });

  it('is undefined for an answer without thinking; only redacted thinking has no text', () => {
    expect(readReasoning(answer([{ type: 'text', text: 'plain' }]), 'm', 'p')).toBeUndefined();
    const redacted = readReasoning(answer([{ type: 'redacted_thinking', data: 'x' }, { type: 'text', text: 'y' }]), 'm', 'p')!;
    expect(redacted).toEqual({ provider: 'anthropic', model: 'm', output: [{ type: 'redacted_thinking', data: 'x' }, { type: 'text', text: 'y' }], prefix: 'p', redacted: true });
    const empty = readReasoning(answer([{ type: 'thinking', thinking: '', signature: 's' }]), 'm', 'p')!;
    expect(empty).not.toHaveProperty('text');
  });
});

describe('assistantBlocks', () => {
  const reasoning: Reasoning = { provider: 'anthropic', model: 'claude-sonnet-5-5', output: OUTPUT };

  it('while the thinking holds: every block exactly as returned, in order (thinking stays where it was)', () => {
    const blocks = assistantBlocks(reasoning, true);
    expect(blocks).toEqual(OUTPUT);
    expect(blocks.map((b) => b.type)).toEqual(['thinking', 'text', 'thinking', 'redacted_thinking', 'tool_use']);
    expect(blocks[0]).not.toBe(OUTPUT[0]);
  });

  it('without it: the same answer minus its thinking, in order; never an empty turn', () => {
    expect(assistantBlocks(reasoning, false)).toEqual([OUTPUT[1], OUTPUT[4]]);
    expect(assistantBlocks({ ...reasoning, output: [{ type: 'thinking', thinking: 'only', signature: 's' }] }, false)).toEqual([{ type: 'text', text: '(no answer)' }]);
    expect(assistantBlocks({ ...reasoning, output: [] }, true)).toEqual([{ type: 'text', text: '(no answer)' }]);
  });
});

describe('prefixRefusal', () => {
  it('names the first refused turn for both of Anthropic’s thinking refusals, and nothing else', () => {
    expect(prefixRefusal('messages.3.content.0: Invalid `signature` in `thinking` block')).toEqual({ message: 3 });
    expect(prefixRefusal('messages.12.content.2: `thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified')).toEqual({ message: 12 });
    expect(prefixRefusal('prompt is too long: 5 tokens > 4 maximum')).toBeUndefined();
    expect(prefixRefusal('messages.x.content.0: Invalid `signature` in `thinking` block')).toBeUndefined();
    expect(prefixRefusal('Invalid `signature` in `thinking` block')).toBeUndefined();
  });
});

describe('the prefix fingerprint matches what is sent', () => {
  it('an undefined array entry counts as the null JSON sends for it', () => {
    expect(prefixOf(BASE, [{ role: 'user', content: ['a', undefined] }])).toBe(prefixOf(BASE, [{ role: 'user', content: ['a', null] }]));
    expect(prefixOf(BASE, [{ role: 'user', content: ['a', undefined] }])).not.toBe(prefixOf(BASE, [{ role: 'user', content: ['a'] }]));
  });
});

describe('the readable thinking text', () => {
  it('takes only text from thinking blocks: no other block’s fields, nothing that is not a string', () => {
    const r = readReasoning(answer([
      { type: 'thinking', thinking: ['not', 'text'], signature: 's' },
      { type: 'redacted_thinking', thinking: 'not readable', data: 'x' },
      { type: 'text', text: 'y', thinking: 'nor this' },
      { type: 'thinking', thinking: 'real', signature: 't' },
    ]), 'm', 'p')!;
    expect(r.text).toBe('real');
    expect(r.output).toHaveLength(4);
  });
});

describe('the prefix fingerprint is one-to-one', () => {
  it('a list and an object with the same entries differ; so do lists whose items run together', () => {
    const fp = (content: unknown) => prefixOf(BASE, [{ role: 'user', content }]);
    expect(fp(['hi'])).not.toBe(fp({ 0: 'hi' }));
    expect(fp([1, 2])).not.toBe(fp([12]));
  });

  it('the same keys in any order give the same fingerprint, also for a large object (a long tool schema)', () => {
    const keys = Array.from({ length: 80 }, (_, i) => `p${(i * 37) % 80}`);
    const build = (order: string[]) => Object.fromEntries(order.map((k) => [k, { type: 'string', description: k }]));
    const schema = (order: string[]) => ({ model: 'm', system: null, tools: [{ name: 't', input_schema: { type: 'object', properties: build(order) } }] });
    const sorted = [...keys].sort();
    const fingerprint = prefixOf(schema(sorted), []);
    expect(prefixOf(schema([...sorted].reverse()), [])).toBe(fingerprint);
    expect(prefixOf(schema(keys), [])).toBe(fingerprint);
    expect(prefixOf(schema([...keys.slice(40), ...keys.slice(0, 40)]), [])).toBe(fingerprint);
  });
});

describe('prefixRefusal names the turn whatever block it is about', () => {
  it('also a block past the tenth', () => {
    expect(prefixRefusal('messages.7.content.12: Invalid `signature` in `thinking` block')).toEqual({ message: 7 });
  });
});
