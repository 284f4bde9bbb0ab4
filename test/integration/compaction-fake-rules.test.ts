// The fakes' provider-compaction and mid-conversation system message rules,
// each on its own, through the real SDKs (the skein sessions in
// provider-compact.test.ts and reasoning-done.test.ts must never trip them).
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startAnthropicFake, type AnthropicFake } from '../fakes/anthropic-fake.js';
import { startResponsesFake, type ResponsesFake } from '../fakes/openai-responses-fake.js';
import { refusals } from '../fakes/rules/rejection.js';

let a: AnthropicFake;
let o: ResponsesFake;
let claude: Anthropic;
let openai: OpenAI;
beforeAll(async () => {
  a = await startAnthropicFake();
  o = await startResponsesFake();
  claude = new Anthropic({ apiKey: a.key, baseURL: a.url, maxRetries: 0 });
  openai = new OpenAI({ apiKey: o.key, baseURL: o.url, maxRetries: 0 });
});
afterAll(async () => {
  await a.close();
  await o.close();
});
// Every refusal here is the point of its test.
afterEach(() => {
  refusals.splice(0);
});

const BETA = 'compact-2026-09-04';
const system = 'be brief';
const model = 'claude-sonnet-5-5';
const older: any[] = [
  { role: 'user', content: 'echo: the first step' },
  { role: 'assistant', content: [{ type: 'text', text: 'the first step' }] },
];

/** The 400's message (and error code) of a request the fake must refuse. */
async function refused(call: Promise<unknown>): Promise<{ message: string; code?: string }> {
  const err = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(Anthropic.BadRequestError);
  const body = (err as InstanceType<typeof Anthropic.BadRequestError>).error as any;
  return { message: body.error.message, code: body.error.details?.error_code };
}

async function compact(messages = older, m = model) {
  const summary = await claude.beta.messages.create({ model: m, max_tokens: 1000, system, messages, compaction: { type: 'summarize' }, betas: [BETA] } as any);
  expect(summary.stop_reason).toBe('compaction');
  return summary.content[0] as any;
}

/** The next turn: the block first, then a new user message. */
const next = (block: any, m = model, betas = [BETA]) =>
  claude.beta.messages.create({ model: m, max_tokens: 1000, system, messages: [{ role: 'assistant', content: [block] }, { role: 'user', content: 'echo: next' }], betas } as any);

describe('the Anthropic fake: on-demand compaction', () => {
  it('answers a compaction request with one signed block and accepts it back first, exactly as returned', async () => {
    const block = await compact();
    expect(block).toMatchObject({ type: 'compaction', content: expect.stringContaining('echo: the first step'), signature: expect.any(String) });
    const reply = await next(block);
    expect(reply.content.find((b) => b.type === 'text')).toMatchObject({ text: 'next' });
  });

  it('refuses the parameter without the beta header, on a model without it, with nothing to summarise or an open tool call', async () => {
    expect((await refused(claude.messages.create({ model, max_tokens: 1000, messages: older, compaction: { type: 'summarize' } } as any))).message).toBe('compaction: Extra inputs are not permitted');
    expect((await refused(compact(older, 'claude-sonnet-4-5'))).message).toMatch(/not supported on claude-sonnet-4-5/);
    const open = [older[0], { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'bash', input: { command: 'ls' } }] }];
    expect((await refused(compact(open))).code).toBe('compaction_incomplete_turn');
    expect((await refused(compact([{ role: 'user', content: [] }]))).code).toBe('compaction_nothing_to_summarize');
  });

  it('refuses the block sent back without the header, not first, edited, or to another model', async () => {
    const block = await compact();
    expect((await refused(next(block, model, []))).message).toMatch(/Input tag 'compaction'/);
    const late = claude.beta.messages.create({ model, max_tokens: 1000, messages: [older[0], { role: 'assistant', content: [block] }, { role: 'user', content: 'echo: x' }], betas: [BETA] } as any);
    expect((await refused(late)).code).toBe('compaction_block_misplaced');
    expect((await refused(next({ ...block, content: `${block.content} (edited)` }))).code).toBe('compaction_content_mismatch');
    expect((await refused(next(block, 'claude-fable-5-1'))).code).toBe('compaction_signature_invalid');
  });
});

describe('the Anthropic fake: mid-conversation system messages', () => {
  const turn = (messages: any[], m = model) => claude.messages.create({ model: m, max_tokens: 1000, system, messages });
  const update = { role: 'system', content: 'From now on, answer in French.' };

  it('takes one right after a user turn, last or before the answer', async () => {
    expect((await turn([older[0], update])).stop_reason).toBe('end_turn');
    expect((await turn([...older, { role: 'user', content: 'echo: again' }, update, { role: 'assistant', content: [{ type: 'text', text: 'again' }] }, { role: 'user', content: 'echo: more' }])).stop_reason).toBe('end_turn');
  });

  it('refuses one first, after the answer, before a user turn, empty, or on a model without them', async () => {
    expect((await refused(turn([update, older[0]]))).message).toMatch(/first message cannot be a `system` message/);
    expect((await refused(turn([...older, update, { role: 'user', content: 'echo: x' }]))).message).toMatch(/must immediately follow a `user` message/);
    expect((await refused(turn([older[0], update, { role: 'user', content: 'echo: x' }]))).message).toMatch(/must be the last message or be followed by an `assistant` message/);
    expect((await refused(turn([older[0], { role: 'system', content: '' }]))).message).toMatch(/non-empty/);
    expect((await refused(turn([older[0], update], 'claude-sonnet-4-5'))).message).toBe("messages.1.role: role 'system' is not supported on this model");
  });
});

describe('the Responses fake: /responses/compact', () => {
  const input: any[] = [
    { role: 'user', content: 'echo: the first step' },
    { role: 'assistant', content: 'the first step' },
  ];

  it('answers the user messages and an encrypted compaction item, and takes them back as input', async () => {
    const compacted = await openai.responses.compact({ model: 'gpt-5.6-terra', input });
    expect(compacted.object).toBe('response.compaction');
    expect(compacted.output.map((i: any) => i.type ?? i.role)).toEqual(['message', 'compaction']);
    const reply = await openai.responses.create({ model: 'gpt-5.6-terra', store: false, input: [...(compacted.output as any[]), { role: 'user', content: 'echo: next' }] });
    expect(reply.output_text).toBe('next');
  });

  it('refuses an empty input, and a compaction item edited or from another model', async () => {
    await expect(openai.responses.compact({ model: 'gpt-5.6-terra', input: [] })).rejects.toThrow(/input to compact is empty/);
    const compacted = await openai.responses.compact({ model: 'gpt-5.6-terra', input });
    const item = compacted.output.at(-1) as any;
    await expect(openai.responses.create({ model: 'gpt-5.6-sol', store: false, input: [item, { role: 'user', content: 'echo: x' }] })).rejects.toThrow(`The encrypted content for item ${item.id} could not be verified.`);
    await expect(openai.responses.create({ model: 'gpt-5.6-terra', store: false, input: [{ ...item, encrypted_content: `${item.encrypted_content}x` }, { role: 'user', content: 'echo: x' }] })).rejects.toThrow(/could not be verified/);
    o.refusals.splice(0);
  });
});
