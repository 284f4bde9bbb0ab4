// The OpenAI-compatible fake's llama.cpp flavour (test/fakes/openai-fake.ts
// with server flavour 'llamacpp', test/fakes/llamacpp.ts) against llama.cpp's
// own llama-server: the same requests to both, the same answers in shape.
// Numbers differ where they should (each counts with its own tokenizer: the
// real Qwen2 one, the fake's rule-based one); statuses, bodies, fields and the
// rules that relate the numbers must not.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai-fake.js';
import { ensureTinyModel, startLlamaServer, type LlamaServer } from '../helpers/llama-server.js';

const CTX = 2048;
let real: LlamaServer;
let fake: OpenAIFake;
/** Each server's root (the OpenAI-compatible API under /v1). */
const roots: Record<'real' | 'fake', string> = { real: '', fake: '' };

beforeAll(async () => {
  // The endless model: an answer runs until max_tokens or a full context, as the fake's brain's long answers do.
  real = await startLlamaServer({ model: await ensureTinyModel({ vocab: 'qwen2', endless: true }), ctxSize: CTX });
  fake = await startOpenAIFake({ key: null, models: ['local-model'], server: { flavour: 'llamacpp', window: CTX, advertise: true } });
  roots.real = real.url;
  roots.fake = fake.url.replace(/\/v1$/, '');
}, 20 * 60_000);

afterAll(async () => {
  await Promise.all([real?.close(), fake?.close()]);
});

interface Answer {
  status: number;
  type: string;
  body: any;
  /** The data lines of an SSE answer, parsed ([DONE] left out), and whether it ended with [DONE]. */
  chunks: any[];
  done: boolean;
}

async function chat(which: 'real' | 'fake', body: Record<string, unknown>): Promise<Answer> {
  const res = await fetch(`${roots[which]}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'local-model', ...body }) });
  const text = await res.text();
  const type = res.headers.get('content-type') ?? '';
  if (!type.startsWith('text/event-stream')) return { status: res.status, type, body: JSON.parse(text), chunks: [], done: false };
  const lines = text.split('\n').filter((l) => l.startsWith('data: '));
  return { status: res.status, type, body: undefined, chunks: lines.filter((l) => l !== 'data: [DONE]').map((l) => JSON.parse(l.slice(6))), done: lines.at(-1) === 'data: [DONE]' };
}

async function both(body: Record<string, unknown>): Promise<{ real: Answer; fake: Answer }> {
  return { real: await chat('real', body), fake: await chat('fake', body) };
}

/** The shape of a value: its keys (recursively) and the type of each leaf. */
function shape(v: unknown): unknown {
  if (Array.isArray(v)) return v.length ? [shape(v[0])] : [];
  if (v && typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map((k) => [k, shape((v as Record<string, unknown>)[k])]));
  return v === null ? 'null' : typeof v;
}

const say = (content: string) => ({ messages: [{ role: 'user', content }] });
const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i % 97}`).join(' ');

/**
 * A message whose prompt, in `which`'s own count, is between n_ctx - 12 and n_ctx - 1: measured from the
 * refusal's n_prompt_tokens (or usage) and corrected with " a" (one token in both tokenizers) a few times.
 */
async function nearlyFull(which: 'real' | 'fake'): Promise<{ text: string; prompt: number }> {
  const promptOf = async (text: string) => {
    const a = await chat(which, { ...say(text), max_tokens: 1 });
    return a.status === 400 ? (a.body.error.n_prompt_tokens as number) : (a.body.usage.prompt_tokens as number);
  };
  const base = words(200);
  const start = await promptOf(base);
  let pad = CTX - 6 - start;
  for (let i = 0; i < 8; i++) {
    const text = base + ' a'.repeat(Math.max(0, pad));
    const prompt = await promptOf(text);
    if (prompt >= CTX - 12 && prompt < CTX) return { text, prompt };
    pad += CTX - 6 - prompt;
  }
  throw new Error(`${which}: no prompt between ${CTX - 12} and ${CTX - 1} tokens`);
}

describe('the fake\'s llama.cpp flavour answers as llama-server does', () => {
  it('a prompt over n_ctx: 400, exceed_context_size_error with n_prompt_tokens and n_ctx, JSON even when streaming is asked', async () => {
    for (const stream of [false, true]) {
      const { real: r, fake: f } = await both({ ...say(words(CTX + 300)), max_tokens: 8, stream });
      for (const [name, a] of [['real', r], ['fake', f]] as const) {
        expect(a.status, name).toBe(400);
        expect(a.type, name).toMatch(/^application\/json/);
        expect(a.body, name).toEqual({
          error: {
            code: 400,
            message: `request (${a.body.error.n_prompt_tokens} tokens) exceeds the available context size (${CTX} tokens), try increasing it`,
            type: 'exceed_context_size_error',
            n_prompt_tokens: expect.any(Number),
            n_ctx: CTX,
          },
        });
        expect(a.body.error.n_prompt_tokens, name).toBeGreaterThanOrEqual(CTX);
      }
    }
  });

  it('a JSON answer: the same usage fields (prompt_tokens, completion_tokens, total_tokens, prompt_tokens_details.cached_tokens) and choice', async () => {
    const { real: r, fake: f } = await both({ ...say('hello there'), max_tokens: 5 });
    expect(f.status).toBe(r.status);
    expect(shape(f.body.usage)).toEqual(shape(r.body.usage));
    expect(shape(r.body.usage)).toEqual({ completion_tokens: 'number', prompt_tokens: 'number', prompt_tokens_details: { cached_tokens: 'number' }, total_tokens: 'number' });
    for (const a of [r, f]) {
      expect(a.body.object).toBe('chat.completion');
      expect(a.body.choices[0]).toMatchObject({ index: 0, message: { role: 'assistant', content: expect.any(String) }, finish_reason: 'length' });
      expect(a.body.usage.completion_tokens).toBe(5);
      expect(a.body.usage.total_tokens).toBe(a.body.usage.prompt_tokens + a.body.usage.completion_tokens);
    }
  });

  it('streamed with stream_options.include_usage: usage only in a last chunk whose choices are [], then [DONE]; without it, no usage at all', async () => {
    const { real: r, fake: f } = await both({ ...say('hello again'), max_tokens: 4, stream: true, stream_options: { include_usage: true } });
    for (const [name, a] of [['real', r], ['fake', f]] as const) {
      expect(a.status, name).toBe(200);
      expect(a.done, name).toBe(true);
      const last = a.chunks.at(-1);
      expect(last.choices, name).toEqual([]);
      expect(shape(last.usage), name).toEqual({ completion_tokens: 'number', prompt_tokens: 'number', prompt_tokens_details: { cached_tokens: 'number' }, total_tokens: 'number' });
      expect(a.chunks.slice(0, -1).filter((c) => 'usage' in c), `${name}: no usage key before the last chunk`).toEqual([]);
      expect(a.chunks.at(-2).choices[0], name).toMatchObject({ index: 0, delta: {}, finish_reason: 'length' });
      expect(a.chunks.every((c) => c.object === 'chat.completion.chunk'), name).toBe(true);
    }
    const plain = await both({ ...say('hello again'), max_tokens: 4, stream: true });
    for (const a of [plain.real, plain.fake]) {
      expect(a.done).toBe(true);
      expect(a.chunks.filter((c) => 'usage' in c)).toEqual([]);
    }
  });

  it('the same request twice: the second counts most of its prompt in cached_tokens (still inside prompt_tokens)', async () => {
    for (const which of ['real', 'fake'] as const) {
      const request = { ...say(`the same words, twice, for ${which}`), max_tokens: 2 };
      await chat(which, request);
      const { body } = await chat(which, request);
      expect(body.usage.prompt_tokens_details.cached_tokens, which).toBeGreaterThan(0);
      expect(body.usage.prompt_tokens_details.cached_tokens, which).toBeLessThan(body.usage.prompt_tokens);
    }
  });

  it('GET /props names n_ctx under default_generation_settings; GET /v1/models under data[].meta.n_ctx', async () => {
    for (const which of ['real', 'fake'] as const) {
      const props: any = await (await fetch(`${roots[which]}/props`)).json();
      expect(props.default_generation_settings.n_ctx, which).toBe(CTX);
      expect(props.total_slots, which).toBe(1);
      const models: any = await (await fetch(`${roots[which]}/v1/models`)).json();
      expect(models.object, which).toBe('list');
      expect(models.data[0], which).toMatchObject({ id: expect.any(String), object: 'model', owned_by: 'llamacpp', meta: { n_ctx: CTX, n_ctx_train: expect.any(Number) } });
    }
  });

  it('prompt + max_tokens past n_ctx is accepted: the answer stops when the context is full, finish_reason "length"', async () => {
    for (const which of ['real', 'fake'] as const) {
      const { text, prompt } = await nearlyFull(which);
      for (const stream of [false, true]) {
        const a = await chat(which, { ...say(text), max_tokens: 512, stream, ...(stream && { stream_options: { include_usage: true } }) });
        expect(a.status, which).toBe(200);
        const finish = stream ? a.chunks.at(-2).choices[0].finish_reason : a.body.choices[0].finish_reason;
        const usage = stream ? a.chunks.at(-1).usage : a.body.usage;
        expect(finish, `${which}, stream ${stream}`).toBe('length');
        expect(usage.prompt_tokens, which).toBe(prompt);
        expect(usage.prompt_tokens + usage.completion_tokens, `${which}: prompt + completion = n_ctx`).toBe(CTX);
        expect(usage.total_tokens, which).toBe(CTX);
      }
    }
  }, 120_000);
});
