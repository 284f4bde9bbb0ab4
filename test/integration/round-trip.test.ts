// The fakes' round-trip rule (test/fakes/round-trip.ts), each fake on its own:
// an answer that carried reasoning is accepted back exactly as returned and
// refused with any block, part or item moved, dropped or edited. Skein's
// sessions in thinking-*.test.ts never trip it.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startAnthropicFake, type AnthropicFake } from '../fakes/anthropic-fake.js';
import { startGeminiFake, type GeminiFake } from '../fakes/gemini-fake.js';
import { startResponsesFake, type ResponsesFake } from '../fakes/openai-responses-fake.js';
import { ReturnedAnswers } from '../fakes/round-trip.js';
import { refusals } from '../fakes/rules/rejection.js';

let anthropic: AnthropicFake;
let gemini: GeminiFake;
let openai: ResponsesFake;
beforeAll(async () => {
  [anthropic, gemini, openai] = await Promise.all([startAnthropicFake(), startGeminiFake(), startResponsesFake()]);
});
afterAll(async () => {
  await Promise.all([anthropic.close(), gemini.close(), openai.close()]);
});
// These tests break the rule on purpose: their refusals are expected, not a failure of the test.
afterEach(() => {
  refusals.splice(0);
});

async function post(url: string, headers: Record<string, string>, body: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

const PROMPT = 'parallel: echo a ;; echo b';
const moveFirst = <T>(items: T[], i: number): T[] => [items[i]!, ...items.filter((_, k) => k !== i)];

describe('ReturnedAnswers', () => {
  const answers = new ReturnedAnswers((i) => (typeof i.sig === 'string' ? i.sig : undefined));
  answers.remember([{ text: 'a' }, { sig: 's1', x: 1 }, { text: 'b', n: { y: 1, z: 2 } }]);

  it('accepts the answer whole (key order and cache markers aside), also inside a longer list', () => {
    expect(answers.firstChange([{ text: 'a' }, { x: 1, sig: 's1' }, { n: { z: 2, y: 1 }, text: 'b', cache_control: { type: 'ephemeral' } }])).toBeUndefined();
    expect(answers.firstChange([{ text: 'before' }, { text: 'a' }, { sig: 's1', x: 1 }, { text: 'b', n: { y: 1, z: 2 } }, { text: 'after' }])).toBeUndefined();
    // Nothing keyed: not compared (a turn sent back without its reasoning).
    expect(answers.firstChange([{ text: 'b' }, { text: 'a' }])).toBeUndefined();
  });

  it('finds the first item moved, dropped, edited or cut off', () => {
    expect(answers.firstChange([{ sig: 's1', x: 1 }, { text: 'a' }, { text: 'b', n: { y: 1, z: 2 } }])).toMatchObject({ index: 0, expected: '{"text":"a"}' });
    expect(answers.firstChange([{ sig: 's1', x: 1 }, { text: 'b', n: { y: 1, z: 2 } }])).toMatchObject({ index: 0 });
    expect(answers.firstChange([{ text: 'a' }, { sig: 's1', x: 1 }, { text: 'b', n: { y: 1, z: 3 } }])).toMatchObject({ index: 2 });
    expect(answers.firstChange([{ text: 'a' }, { sig: 's1', x: 1 }])).toMatchObject({ index: 1, expected: '{"n":{"y":1,"z":2},"text":"b"}' });
    expect(answers.firstChange([{ text: 'a' }, { sig: 's1', x: 2 }, { text: 'b', n: { y: 1, z: 2 } }])).toMatchObject({ index: 1 });
  });
});

describe('Anthropic', () => {
  const headers = () => ({ 'x-api-key': anthropic.key, 'anthropic-version': '2023-06-01' });
  const tools = [{ name: 'bash', description: 'run a command', input_schema: { type: 'object', properties: { command: { type: 'string' } } } }];
  const send = (messages: unknown[]) => post(`${anthropic.url}/v1/messages`, headers(), { model: 'claude-sonnet-5-5', max_tokens: 1000, tools, messages });

  it('refuses thinking moved in front of the text, the text edited, or a call dropped; accepts the turn as returned', async () => {
    const user = { role: 'user', content: [{ type: 'text', text: PROMPT }] };
    const first = await send([user]);
    expect(first.status).toBe(200);
    const answer = first.body.content as { type: string; id?: string; text?: string }[];
    expect(answer.map((b) => b.type)).toEqual(['thinking', 'text', 'thinking', 'tool_use', 'tool_use']);
    const results = { role: 'user', content: answer.filter((b) => b.type === 'tool_use').map((b) => ({ type: 'tool_result', tool_use_id: b.id, content: 'ok' })) };
    const back = (content: unknown[]) => send([user, { role: 'assistant', content }, results]);
    // Both thinking blocks first: their order among themselves holds, the turn's does not.
    const thinkingFirst = [answer[0], answer[2], answer[1], answer[3], answer[4]];
    const r1 = await back(thinkingFirst);
    expect(r1.status).toBe(400);
    expect(r1.body.error.message).toMatch(/^messages\.1\.content\.1: `thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified/);
    expect((await back([answer[0], { ...answer[1], text: `${answer[1]!.text} (edited)` }, ...answer.slice(2)])).status).toBe(400);
    expect((await back([answer[0], answer[1], answer[2], answer[4], answer[3]])).status).toBe(400);
    expect(refusals.length).toBe(3);
    expect((await back(answer)).status).toBe(200);
  });
});

describe('Gemini', () => {
  const tools = [{ functionDeclarations: [{ name: 'bash', description: 'run a command', parameters: { type: 'OBJECT', properties: { command: { type: 'STRING' } } } }] }];
  const send = (contents: unknown[]) =>
    post(`${gemini.url}/v1beta/models/gemini-3-pro-preview:generateContent`, { 'x-goog-api-key': gemini.key }, { contents, tools, generationConfig: { thinkingConfig: { includeThoughts: true } } });

  it('refuses a signed turn with its parts reordered or its thought dropped; accepts it as returned', async () => {
    const user = { role: 'user', parts: [{ text: PROMPT }] };
    const first = await send([user]);
    expect(first.status).toBe(200);
    const parts = first.body.candidates[0].content.parts as Record<string, unknown>[];
    expect(parts[0]).toMatchObject({ thought: true });
    expect(parts.some((p) => typeof p.thoughtSignature === 'string')).toBe(true);
    const responses = { role: 'user', parts: parts.filter((p) => p.functionCall).map(() => ({ functionResponse: { name: 'bash', response: { output: 'ok' } } })) };
    const back = (modelParts: unknown[]) => send([user, { role: 'model', parts: modelParts }, responses]);
    const call = parts.findIndex((p) => p.functionCall);
    const r1 = await back(moveFirst(parts, call));
    expect(r1.status).toBe(400);
    expect(r1.body.error.message).toMatch(/^Invalid thought_signature in contents\[1\]\.parts\[0\]/);
    expect((await back(parts.filter((p) => !p.thought))).status).toBe(400);
    expect(refusals.length).toBe(2);
    expect((await back(parts)).status).toBe(200);
  });
});

describe('OpenAI Responses', () => {
  const send = (input: unknown[]) =>
    post(`${openai.url}/responses`, { authorization: `Bearer ${openai.key}` }, {
      model: 'gpt-5.6-terra',
      store: false,
      include: ['reasoning.encrypted_content'],
      tools: [{ type: 'function', name: 'bash', parameters: { type: 'object', properties: { command: { type: 'string' } } } }],
      input,
    });

  it('refuses the message item moved in front of its reasoning or edited; accepts the output as returned', async () => {
    const user = { role: 'user', content: PROMPT };
    const first = await send([user]);
    expect(first.status).toBe(200);
    const output = first.body.output as Record<string, any>[];
    expect(output.map((i) => i.type)).toEqual(['reasoning', 'message', 'function_call', 'function_call']);
    const outputs = output.filter((i) => i.type === 'function_call').map((i) => ({ type: 'function_call_output', call_id: i.call_id, output: 'ok' }));
    const back = (items: unknown[]) => send([user, ...items, ...outputs]);
    const r1 = await back(moveFirst(output, 1));
    expect(r1.status).toBe(400);
    expect(r1.body.error.message).toMatch(/^Item 'fc_fake_\d+_0' of type 'function_call' at input\[3\] does not match the output it was returned in/);
    const edited = output.map((i) => (i.type === 'message' ? { ...i, content: [{ ...i.content[0], text: 'something else' }] } : i));
    expect((await back(edited)).status).toBe(400);
    expect(refusals.length).toBe(2);
    const accepted = await back(output);
    expect(accepted.body.error?.message).toBeUndefined();
    expect(accepted.status).toBe(200);
  });
});
