// llama.cpp's real llama-server (built by scripts/llama-server/build.mjs from
// the llama.cpp source in the npm package node-llama-cpp) with a tiny
// random-weight model carrying Qwen2's real tokenizer and Qwen2.5's chat
// template. These assertions record what llama.cpp really does, for the fakes
// and for skein's discovery and overflow handling; then skein itself is
// pointed at it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LimitsEvent, SkeinEvent } from '../../shared/protocol.js';
import { startSession } from '../fakes/scenario.js';
import { ensureTinyModel, llamaRelease, startLlamaServer, type LlamaServer } from '../helpers/llama-server.js';
import type { TestServer } from '../helpers/server.js';

const CTX = 2048;
let llama: LlamaServer;
let endless: LlamaServer;
const servers: TestServer[] = [];

beforeAll(async () => {
  // Built by `npm test`'s pretest; building here (a fresh machine, the pretest skipped) takes long.
  const [model, endlessModel] = [await ensureTinyModel({ vocab: 'qwen2' }), await ensureTinyModel({ vocab: 'qwen2', endless: true })];
  [llama, endless] = await Promise.all([startLlamaServer({ model, ctxSize: CTX }), startLlamaServer({ model: endlessModel, ctxSize: CTX })]);
}, 20 * 60_000);

afterAll(async () => {
  for (const s of servers.splice(0)) await s.close();
  await Promise.all([llama?.close(), endless?.close()]);
});

async function post(server: LlamaServer, path: string, body: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

async function get(server: LlamaServer, path: string): Promise<any> {
  const res = await fetch(`${server.url}${path}`);
  expect(res.status, path).toBe(200);
  return res.json();
}

/** Words the Qwen2 tokenizer reads as about one token each. */
const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i % 97}`).join(' ');

describe(`llama.cpp llama-server`, () => {
  it('GET /props names the context it was started with (-c 2048) under default_generation_settings', async () => {
    const props = await get(llama, '/props');
    expect(props.default_generation_settings.n_ctx).toBe(CTX);
    expect(props.total_slots).toBe(1);
    expect(typeof props.chat_template).toBe('string');
    expect(props.chat_template).toContain('<tool_call>');
    expect(await llamaRelease()).toMatch(/^v?\d/);
  });

  it('POST /tokenize counts with the real Qwen2 tokenizer', async () => {
    const { status, body } = await post(llama, '/tokenize', { content: 'Hello world' });
    expect(status).toBe(200);
    expect(body.tokens).toEqual([9707, 1879]); // Qwen2's ids for "Hello" and " world"
  });

  it('POST /v1/chat/completions answers with usage (prompt_tokens, completion_tokens, total_tokens)', async () => {
    const { status, body } = await post(llama, '/v1/chat/completions', { model: 'anything', messages: [{ role: 'user', content: 'hi' }], max_tokens: 8 });
    expect(status).toBe(200);
    expect(body.object).toBe('chat.completion');
    expect(body.choices[0].message.role).toBe('assistant');
    expect(['stop', 'length']).toContain(body.choices[0].finish_reason);
    expect(body.usage).toMatchObject({ prompt_tokens: expect.any(Number), completion_tokens: expect.any(Number) });
    expect(body.usage.total_tokens).toBe(body.usage.prompt_tokens + body.usage.completion_tokens);
    expect(body.usage.completion_tokens).toBeLessThanOrEqual(8);
  });

  it('streaming with stream_options.include_usage ends with a usage chunk', async () => {
    const res = await fetch(`${llama.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }], max_tokens: 8, stream: true, stream_options: { include_usage: true } }),
    });
    expect(res.status).toBe(200);
    const text = await res.text();
    const chunks = text
      .split('\n')
      .filter((l) => l.startsWith('data: ') && l !== 'data: [DONE]')
      .map((l) => JSON.parse(l.slice(6)));
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    const withUsage = chunks.filter((c) => c.usage);
    expect(withUsage.length).toBeGreaterThan(0);
    const last = withUsage.at(-1);
    expect(last.usage).toMatchObject({ prompt_tokens: expect.any(Number), completion_tokens: expect.any(Number) });
  });

  it('a chat prompt over n_ctx is refused: HTTP 400, exceed_context_size_error with n_prompt_tokens and n_ctx', async () => {
    const { status, body } = await post(llama, '/v1/chat/completions', { messages: [{ role: 'user', content: words(CTX + 200) }], max_tokens: 8 });
    expect(status).toBe(400);
    // The real body: {"error":{"code":400,"message":"request (6533 tokens) exceeds the available context size
    // (2048 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":6533,"n_ctx":2048}}
    // ("w0 w1 …" is about three Qwen2 tokens a word).
    expect(body).toEqual({
      error: {
        code: 400,
        message: `request (${body.error.n_prompt_tokens} tokens) exceeds the available context size (${CTX} tokens), try increasing it`,
        type: 'exceed_context_size_error',
        n_prompt_tokens: expect.any(Number),
        n_ctx: CTX,
      },
    });
    expect(body.error.n_prompt_tokens).toBeGreaterThan(CTX);
  });

  it('the boundary is n_ctx itself: a prompt of n_ctx - 1 tokens gets one token and "length", one of n_ctx tokens is refused', async () => {
    const tokens = (n: number) => Array.from({ length: n }, (_, i) => 1000 + (i % 500));
    const fits = await post(llama, '/v1/completions', { prompt: tokens(CTX - 1), max_tokens: 8 });
    expect(fits.status).toBe(200);
    // Prompt plus completion reach n_ctx exactly (the last token sampled is never decoded).
    expect(fits.body.usage).toMatchObject({ prompt_tokens: CTX - 1, completion_tokens: 1, total_tokens: CTX });
    expect(fits.body.choices[0].finish_reason).toBe('length');
    const refused = await post(llama, '/v1/completions', { prompt: tokens(CTX), max_tokens: 8 });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({
      error: {
        code: 400,
        message: `request (${CTX} tokens) exceeds the available context size (${CTX} tokens), try increasing it`,
        type: 'exceed_context_size_error',
        n_prompt_tokens: CTX,
        n_ctx: CTX,
      },
    });
    // llama.cpp's own /completion says why it stopped: stop_type "limit", truncated.
    const native = await post(llama, '/completion', { prompt: tokens(CTX - 1), n_predict: 8 });
    expect(native.body).toMatchObject({ stop_type: 'limit', truncated: true, tokens_predicted: 1, tokens_evaluated: CTX - 1 });
  });

  it('a repeated prompt is counted in prompt_tokens and again in prompt_tokens_details.cached_tokens (all but its last token)', async () => {
    const request = { messages: [{ role: 'user', content: 'the same prompt twice' }], max_tokens: 2 };
    await post(llama, '/v1/chat/completions', request);
    const { body } = await post(llama, '/v1/chat/completions', request);
    expect(body.usage.prompt_tokens_details.cached_tokens).toBe(body.usage.prompt_tokens - 1);
    expect(body.timings).toMatchObject({ cache_n: body.usage.prompt_tokens - 1, prompt_n: 1 });
  });

  it('the endless model with a large max_tokens stops when the context is full: finish_reason "length"', async () => {
    const { status, body } = await post(endless, '/v1/chat/completions', { messages: [{ role: 'user', content: 'hi' }], max_tokens: 100_000 });
    expect(status).toBe(200);
    expect(body.choices[0].finish_reason).toBe('length');
    // No error and no refusal of max_tokens past the window: it generates until prompt + completion = n_ctx exactly.
    expect(body.usage.prompt_tokens + body.usage.completion_tokens).toBe(CTX);
    expect(body.usage.total_tokens).toBe(CTX);
  }, 120_000);
});

describe('the other tokenizers', () => {
  // "Hello world" in Llama 3's BPE and in Llama 2's SentencePiece vocabulary (its leading "▁Hello").
  const expected = { 'llama-bpe': [9906, 1917], 'llama-spm': [15043, 3186] } as const;
  for (const [vocab, ids] of Object.entries(expected) as [keyof typeof expected, readonly number[]][]) {
    it(`${vocab}: the model loads, /tokenize counts with its tokenizer, and a chat completion answers`, async () => {
      const server = await startLlamaServer({ model: await ensureTinyModel({ vocab }), ctxSize: 512 });
      try {
        expect((await post(server, '/tokenize', { content: 'Hello world' })).body.tokens).toEqual(ids);
        const { status, body } = await post(server, '/v1/chat/completions', { messages: [{ role: 'user', content: 'hi' }], max_tokens: 4 });
        expect(status).toBe(200);
        expect(body.usage.completion_tokens).toBeLessThanOrEqual(4);
        expect((await get(server, '/props')).default_generation_settings.n_ctx).toBe(512);
      } finally {
        await server.close();
      }
    }, 120_000);
  }
});

describe('skein against llama-server', () => {
  it('learns the 2,048-token window from GET /props, answers a turn, and the gauge counts llama.cpp\'s own prompt_tokens', async () => {
    const run = await startSession({ SKEIN_MODEL: 'openai:local-model', OPENAI_BASE_URL: `${llama.url}/v1` }, servers);
    const events: SkeinEvent[] = await run.say('hi');
    // GET /v1/models comes first but names the model by its path (no "local-model" entry), so /props answers.
    const limits = events.filter((e): e is LimitsEvent => e.kind === 'limits');
    expect(limits).toEqual([expect.objectContaining({ source: 'provider', contextWindow: CTX, via: 'GET /props (n_ctx)', reported: { contextWindow: CTX } })]);
    expect(events.filter((e) => e.kind === 'error' && e.code !== 'unknown_model' && e.code !== 'retrying')).toEqual([]);
    // 2,048 is a small window: skein sends its lean toolset.
    expect(events.find((e) => e.kind === 'toolset')).toMatchObject({ lean: true, contextWindow: CTX });
    const answer = events.findLast((e) => e.kind === 'agent');
    expect(answer).toMatchObject({ endOfTurn: true, usage: { input: expect.any(Number), output: expect.any(Number) } });
    const usage = events.findLast((e) => e.kind === 'usage');
    // Defect 5: a quarter of the small window is kept for the answer (512), not max(1,024, a quarter), half of it.
    expect(usage?.kind === 'usage' && usage.gauge).toMatchObject({ contextWindow: CTX, windowSource: 'provider', reserve: CTX / 4 });
    // The gauge holds llama.cpp's own count (usage.prompt_tokens), not skein's estimate.
    expect(usage?.kind === 'usage' && !usage.gauge.estimated && usage.gauge.input).toBe(answer?.kind === 'agent' && answer.usage?.input);
  }, 120_000);
});
