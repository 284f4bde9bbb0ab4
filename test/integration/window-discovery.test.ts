// Limits asked from each provider's model-info endpoint through the real SDK
// (Anthropic models.retrieve, Gemini models.get) or HTTP (vLLM /v1/models,
// llama.cpp /props, Ollama /api/show, LM Studio /api/v0/models), with the fake
// serving it: the session uses the window the server names from the first
// request, so a long session is never refused. An endpoint that fails or is
// missing falls back to the model table quietly.
import { afterEach, describe, expect, it } from 'vitest';
import type { LimitsEvent, SkeinEvent } from '../../shared/protocol.js';
import { startAnthropicFake } from '../fakes/anthropic-fake.js';
import { startGeminiFake } from '../fakes/gemini-fake.js';
import { startOpenAIFake } from '../fakes/openai-fake.js';
import { agents, startSession } from '../fakes/scenario.js';
import type { CompatFlavour } from '../fakes/window.js';
import { api, startTestServer, type TestServer } from '../helpers/server.js';
import { TestClient } from '../helpers/ws-client.js';

const REAL = 9000;
const servers: TestServer[] = [];
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
  for (const c of closers.splice(0)) await c();
});

const limits = (events: SkeinEvent[]) => events.filter((e): e is LimitsEvent => e.kind === 'limits');

async function drive(env: Record<string, string>) {
  const run = await startSession(env, servers);
  await run.say('echo: the first message');
  for (let i = 0; i < 20; i++) await run.say('big: 900');
  await run.say('echo: done');
  const errors = run.client.events.filter((e) => e.kind === 'error' && e.code !== 'unknown_model');
  expect(errors, JSON.stringify(errors)).toEqual([]);
  expect(agents(run.client.events).at(-1)?.text).toBe('done');
  return run.client.events;
}

describe('limits from the provider', () => {
  it('Anthropic: the Models API (max_input_tokens) through the SDK; no refusal in a long session', async () => {
    const f = await startAnthropicFake({ window: REAL, modelInfo: 'advertise' });
    closers.push(f.close);
    const events = await drive({ SKEIN_MODEL: 'claude-sonnet-4-5', ANTHROPIC_API_KEY: f.key, ANTHROPIC_BASE_URL: f.url });
    expect(limits(events)).toEqual([expect.objectContaining({ source: 'provider', contextWindow: REAL, reported: { contextWindow: REAL, maxOutputTokens: 8192 } })]);
    expect(f.refused).toBe(0);
    const usage = events.findLast((e) => e.kind === 'usage');
    expect(usage?.kind === 'usage' && usage.gauge).toMatchObject({ contextWindow: REAL, windowSource: 'provider' });
  }, 60_000);

  it('Gemini: models.get (inputTokenLimit) through the SDK; no refusal', async () => {
    const f = await startGeminiFake({ window: REAL, modelInfo: 'advertise' });
    closers.push(f.close);
    const events = await drive({ SKEIN_MODEL: 'gemini-2.5-flash', GEMINI_API_KEY: f.key, GEMINI_BASE_URL: f.url });
    expect(limits(events)).toEqual([expect.objectContaining({ source: 'provider', contextWindow: REAL })]);
    expect(f.refused).toBe(0);
  }, 60_000);

  const local: [CompatFlavour, RegExp][] = [
    ['vllm', /\/v1\/models/],
    ['llamacpp', /\/props/],
    ['ollama', /\/api\/show/],
    ['lmstudio', /\/api\/v0\/models/],
  ];
  for (const [flavour, via] of local) {
    it(`${flavour}: its model-info endpoint over HTTP; nothing cut, at most one refusal`, async () => {
      const f = await startOpenAIFake({ key: null, models: ['local-model'], server: { flavour, window: REAL, advertise: true } });
      closers.push(f.close);
      const events = await drive({ SKEIN_MODEL: 'openai:local-model', OPENAI_BASE_URL: f.url });
      const [event] = limits(events);
      expect(event).toMatchObject({ source: 'provider', contextWindow: REAL });
      expect(event!.via).toMatch(via);
      // Nothing cut; at most one refusal once the window is known: each server counts with its own tokenizer
      // (LM Studio's Qwen counts the repeated tool output at 1.6 times skein's estimate until a report teaches it).
      expect(f.cut).toEqual([]);
      expect(f.refused).toBeLessThanOrEqual(1);
    }, 60_000);
  }

  it('each session asks the server its window once (a server restarted with another context is seen); a restart that hears the same adds nothing to the log', async () => {
    const f = await startOpenAIFake({ key: null, models: ['local-model'], server: { flavour: 'llamacpp', window: REAL, advertise: true } });
    closers.push(f.close);
    let asked = 0;
    const original = globalThis.fetch;
    globalThis.fetch = ((input: Parameters<typeof fetch>[0], init?: RequestInit) => {
      if (String(input).endsWith('/props')) asked++;
      return original(input, init);
    }) as typeof fetch;
    try {
      const env = { SKEIN_MODEL: 'openai:local-model', OPENAI_BASE_URL: f.url };
      const run = await startSession(env, servers);
      await run.say('echo: one');
      // A second session of the same model on the same server asks too (a GET): the server may have been restarted since.
      const other = await api<{ id: string }>(run.server.url, '/api/sessions', { body: {} });
      const otherClient = await TestClient.connect(run.server.url, other.body.id);
      otherClient.send({ type: 'user_message', text: 'echo: two' });
      await otherClient.untilIdle(1, 20_000);
      otherClient.close();
      expect(limits(otherClient.events)).toEqual([expect.objectContaining({ source: 'provider', contextWindow: REAL })]);
      expect(asked).toBe(2);
      // A restart (one server per data folder: the first stops first) goes on with the first session: its log has the window.
      run.client.close();
      await run.server.close();
      servers.splice(servers.indexOf(run.server), 1);
      const again = await startTestServer({ SKEIN_RETRY_BASE_MS: '5', ...env }, { dataDir: run.server.dataDir, workDir: run.server.workDir });
      servers.push(again);
      const client = await TestClient.connect(again.url, run.id, run.client.events.at(-1)!.seq);
      client.send({ type: 'user_message', text: 'echo: three' });
      await client.untilIdle(1, 20_000);
      client.close();
      expect(client.events.some((e) => e.kind === 'agent' && e.text === 'three')).toBe(true);
      // The restarted process asked once for it; the answer was the log's, so no new limits event.
      expect(asked).toBe(3);
      expect(limits(client.events)).toEqual([]);
    } finally {
      globalThis.fetch = original;
    }
  }, 60_000);
});

describe('an endpoint that fails or is missing falls back quietly', () => {
  it('Anthropic 500 and Gemini 404: the model table, said in the log, and the session answers', async () => {
    const a = await startAnthropicFake({ modelInfo: 'broken' });
    closers.push(a.close);
    const run = await startSession({ SKEIN_MODEL: 'claude-sonnet-4-5', ANTHROPIC_API_KEY: a.key, ANTHROPIC_BASE_URL: a.url }, servers);
    const events = await run.say('echo: hello');
    expect(limits(events)).toEqual([expect.objectContaining({ source: 'table', contextWindow: 200_000 })]);
    expect(limits(events)[0]!.via).toMatch(/Anthropic Models API: 500/);
    expect(agents(events).at(-1)?.text).toBe('hello');

    const g = await startGeminiFake({ modelInfo: 'missing' });
    closers.push(g.close);
    const run2 = await startSession({ SKEIN_MODEL: 'gemini-2.5-flash', GEMINI_API_KEY: g.key, GEMINI_BASE_URL: g.url }, servers);
    const events2 = await run2.say('echo: hello');
    expect(limits(events2)).toEqual([expect.objectContaining({ source: 'table', contextWindow: 1_048_576 })]);
    expect(events2.filter((e) => e.kind === 'error')).toEqual([]);
  }, 60_000);

  it('a local server with no model-info endpoint, or a broken one: the table (32k for an unknown model); SKEIN_CONTEXT_WINDOW wins over what the provider says', async () => {
    const f = await startOpenAIFake({ key: null, models: ['local-model'], server: { flavour: 'llamacpp', window: REAL, advertise: false, failure: 'broken' } });
    closers.push(f.close);
    const run = await startSession({ SKEIN_MODEL: 'openai:local-model', OPENAI_BASE_URL: f.url }, servers);
    const events = await run.say('echo: hello');
    expect(limits(events)).toEqual([expect.objectContaining({ source: 'table', contextWindow: 32_000 })]);
    expect(agents(events).at(-1)?.text).toBe('hello');

    const g = await startOpenAIFake({ key: null, models: ['local-model'], server: { flavour: 'vllm', window: REAL, advertise: true } });
    closers.push(g.close);
    const run2 = await startSession({ SKEIN_MODEL: 'openai:local-model', OPENAI_BASE_URL: g.url, SKEIN_CONTEXT_WINDOW: '12000' }, servers);
    const events2 = await run2.say('echo: hello');
    expect(limits(events2)).toEqual([expect.objectContaining({ source: 'setting', contextWindow: 12_000, reported: { contextWindow: REAL } })]);
  }, 60_000);
});
