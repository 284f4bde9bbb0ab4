// SKEIN_LOCAL_CONTEXT against a fake Ollama that behaves like the real one:
// its OpenAI-compatible endpoint keeps the server's default num_ctx (4,096
// here) and silently cuts a longer prompt; its native /api/chat takes
// options.num_ctx per request, capped at the model's trained context. With the
// setting, skein finds the server is Ollama, speaks /api/chat with num_ctx
// (streaming, parallel tool calls, summaries), uses the requested window (the
// gauge, the threshold and the compaction follow it), and the server never
// cuts a prompt. On a server that is not Ollama the setting does nothing and
// the log says why.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { LimitsEvent, SessionSnapshot, SkeinEvent } from '../../shared/protocol.js';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai-fake.js';
import { OLLAMA_TRAINED_CONTEXT } from '../fakes/ollama-native-fake.js';
import { agents, finished, startSession } from '../fakes/scenario.js';
import type { CompatFlavour } from '../fakes/window.js';
import { api, startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { TestClient } from '../helpers/ws-client.js';

const DEFAULT_NUM_CTX = 4096;
const FIRST = 'echo: the task is to keep answering while the context grows past the server default (this is the first message)';

const servers: TestServer[] = [];
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const s of servers.splice(0)) await s.close();
  for (const c of closers.splice(0)) await c();
});

async function server(flavour: CompatFlavour): Promise<OpenAIFake> {
  const f = await startOpenAIFake({ key: null, models: ['local-model'], server: { flavour, window: DEFAULT_NUM_CTX, advertise: true } });
  closers.push(f.close);
  return f;
}

const limitsOf = (events: SkeinEvent[]) => events.filter((e): e is LimitsEvent => e.kind === 'limits');

async function firstUserInView(s: TestServer, id: string): Promise<void> {
  const view = await api<{ messages: { role: string; content: string }[] }>(s.url, `/api/sessions/${id}/view`);
  expect(view.body.messages.find((m) => m.role === 'user')?.content).toBe(FIRST);
}

describe('SKEIN_LOCAL_CONTEXT', () => {
  it('Ollama: every request goes to /api/chat with num_ctx, the window is the requested one, and no prompt is cut while the session grows far past the default', async () => {
    const f = await server('ollama');
    const dirs = { dataDir: tempDir('data'), workDir: tempDir('work') };
    const env = { SKEIN_MODEL: 'openai:local-model', OPENAI_BASE_URL: f.url, SKEIN_LOCAL_CONTEXT: '12288' };
    const run = await startSession(env, servers, dirs);
    await run.say(FIRST);
    await run.say('parallel: echo alpha ;; echo beta ;; echo gamma');
    // About four times the server's default, and past the requested window: compaction must follow 12,288.
    for (let i = 0; i < 16; i++) await run.say('big: 900');
    await run.say('echo: still answering after all that');
    const events = run.client.events;
    expect(events.filter((e) => e.kind === 'error' && e.code !== 'unknown_model')).toEqual([]);
    expect(agents(events).at(-1)?.text).toBe('still answering after all that');
    // Three parallel tool calls came back whole (object arguments), each with its own id and result.
    const calls = events.filter((e) => e.kind === 'tool_call' && /^echo (alpha|beta|gamma)$/.test(String(e.input.command)));
    expect(new Set(calls.map((c) => c.kind === 'tool_call' && c.callId)).size).toBe(3);
    for (const c of calls) expect(events.find((e) => e.kind === 'tool_result' && c.kind === 'tool_call' && e.callId === c.callId)).toMatchObject({ isError: false });

    // Every turn and summary went to the native API with the asked context; none to the OpenAI endpoint.
    expect(f.requests).toEqual([]);
    expect(f.ollama.requests.length).toBeGreaterThan(18);
    for (const body of f.ollama.requests) expect(body.options).toMatchObject({ num_ctx: 12288, num_predict: expect.any(Number) });
    expect(f.ollama.requests.some((b) => b.stream === true)).toBe(true);
    // The prompts outgrew the default long ago, and the server never had to cut one.
    // (Counted by the server's own tokenizer, which counts the repeated tool output at about half of skein's estimate.)
    expect(Math.max(...f.ollama.reported)).toBeGreaterThan(1.5 * DEFAULT_NUM_CTX);
    expect(f.ollama.cut).toEqual([]);

    // The window is the requested context, from the provider, and the gauge and the compactions followed it.
    const limits = limitsOf(events);
    expect(limits).toHaveLength(1);
    expect(limits[0]).toMatchObject({ source: 'provider', contextWindow: 12288, truncates: true });
    expect(limits[0]!.via).toContain('SKEIN_LOCAL_CONTEXT');
    const gauge = events.findLast((e) => e.kind === 'usage');
    expect(gauge?.kind === 'usage' && gauge.gauge).toMatchObject({ contextWindow: 12288, windowSource: 'provider' });
    expect(finished(events).length).toBeGreaterThan(0);
    expect(Math.max(...f.ollama.reported)).toBeLessThanOrEqual(12288);
    await firstUserInView(run.server, run.id);

    // A restart reads the window from the log and keeps asking for it.
    run.client.close();
    await run.server.close();
    servers.splice(servers.indexOf(run.server), 1);
    const again = await startTestServer({ SKEIN_RETRY_BASE_MS: '5', ...env }, dirs);
    servers.push(again);
    const snapshot = await api<SessionSnapshot>(again.url, `/api/sessions/${run.id}`);
    expect(snapshot.body.gauge).toMatchObject({ contextWindow: 12288, windowSource: 'provider' });
    const client = await TestClient.connect(again.url, run.id, snapshot.body.lastSeq);
    const sent = f.ollama.requests.length;
    client.send({ type: 'user_message', text: 'echo: and after the restart' });
    await client.untilIdle(1, 20_000);
    expect(agents(client.events).at(-1)?.text).toBe('and after the restart');
    expect(f.ollama.requests.length).toBeGreaterThan(sent);
    expect(f.ollama.requests.at(-1).options.num_ctx).toBe(12288);
    expect(limitsOf(client.events)).toEqual([]);
    expect(f.requests).toEqual([]);
    client.close();
  }, 180_000);

  it('the fake is honest: the OpenAI endpoint ignores options.num_ctx and cuts to the 4,096 default, /api/chat honours it; without the setting skein uses the default', async () => {
    const f = await server('ollama');
    const root = f.url.replace(/\/v1$/, '');
    const messages = [
      { role: 'user', content: 'echo: first' },
      ...Array.from({ length: 12 }, (_, i) => ({ role: i % 2 ? 'user' : 'assistant', content: `line ${i} `.repeat(300) })),
      { role: 'user', content: 'echo: last' },
    ];
    const post = async (path: string, body: object) => (await fetch(`${root}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).json() as Promise<any>;
    const compat = await post('/v1/chat/completions', { model: 'local-model', messages, max_tokens: 100, options: { num_ctx: 32768 } });
    expect(compat.usage.prompt_tokens).toBeLessThanOrEqual(DEFAULT_NUM_CTX);
    expect(f.cut).toHaveLength(1);
    const native = await post('/api/chat', { model: 'local-model', messages, stream: false, options: { num_ctx: 32768 } });
    expect(native.prompt_eval_count).toBeGreaterThan(DEFAULT_NUM_CTX);
    expect(native.message.content).toBe('last');
    expect(f.ollama.cut).toEqual([]);

    const run = await startSession({ SKEIN_MODEL: 'openai:local-model', OPENAI_BASE_URL: f.url }, servers);
    await run.say('echo: hello');
    expect(f.ollama.requests).toHaveLength(1);
    expect(f.requests.length).toBeGreaterThan(1);
    // skein read num_ctx 4,096 from /api/show: the window is the server's default.
    expect(limitsOf(run.client.events)[0]).toMatchObject({ contextWindow: DEFAULT_NUM_CTX, source: 'provider' });
  }, 120_000);

  it('asking for more than the model was trained for: Ollama gives the trained context, and so does skein', async () => {
    const f = await server('ollama');
    const run = await startSession({ SKEIN_MODEL: 'openai:local-model', OPENAI_BASE_URL: f.url, SKEIN_LOCAL_CONTEXT: '500000' }, servers);
    await run.say('echo: hello');
    expect(agents(run.client.events).at(-1)?.text).toBe('hello');
    const limits = limitsOf(run.client.events);
    expect(limits[0]).toMatchObject({ source: 'provider', contextWindow: OLLAMA_TRAINED_CONTEXT });
    expect(limits[0]!.via).toMatch(/context_length \(131072\)/);
    // The runner was loaded with the capped context, as /api/ps shows.
    const ps = (await (await fetch(`${f.url.replace(/\/v1$/, '')}/api/ps`)).json()) as { models: { context_length: number }[] };
    expect(ps.models[0]!.context_length).toBe(OLLAMA_TRAINED_CONTEXT);
  }, 60_000);

  it('a server that is not Ollama (llama.cpp): requests stay on Chat Completions, its own window is used, and the log says why the setting does nothing', async () => {
    const info = vi.spyOn(console, 'info');
    const f = await server('llamacpp');
    const run = await startSession({ SKEIN_MODEL: 'openai:local-model', OPENAI_BASE_URL: f.url, SKEIN_LOCAL_CONTEXT: '32768' }, servers);
    await run.say('echo: hello');
    expect(agents(run.client.events).at(-1)?.text).toBe('hello');
    expect(f.requests.length).toBe(1);
    expect(f.ollama.requests).toEqual([]);
    expect(limitsOf(run.client.events)[0]).toMatchObject({ contextWindow: DEFAULT_NUM_CTX, via: 'GET /props (n_ctx)' });
    expect(info.mock.calls.map((c) => String(c[0])).join('\n')).toMatch(/SKEIN_LOCAL_CONTEXT=32768 is not used: .* not Ollama .*llama\.cpp: -c/);
  }, 60_000);
});
