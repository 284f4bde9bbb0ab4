// OpenAI through the real `openai` SDK against a local chat completions server
// (test/fakes/openai-fake.ts), via OPENAI_BASE_URL: OpenAI itself, and an
// OpenAI-compatible server with no key (the Ollama / vLLM / llama.cpp case).
import { afterEach, describe, expect, it } from 'vitest';
import { MODELS } from '../../server/llm/models.js';
import type { CompactionEvent, DeltaFrame } from '../../shared/protocol.js';
import { startOpenAIFake, type OpenAIFake, type OpenAIUsageWire } from '../fakes/openai-fake.js';
import { agents, checkGauge, checkStreaming, checkToolCalls, finished, logPairs, longSession, startSession } from '../fakes/scenario.js';
import { api, type TestServer } from '../helpers/server.js';
import { IN_PLACE_OPEN } from '../../server/compaction/summarizer.js';

const servers: TestServer[] = [];
const fakes: OpenAIFake[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
  for (const f of fakes.splice(0)) await f.close();
});

async function fake(options: Parameters<typeof startOpenAIFake>[0] = {}) {
  const f = await startOpenAIFake(options);
  fakes.push(f);
  return f;
}

const env = (f: OpenAIFake, extra: Record<string, string> = {}) => ({ SKEIN_MODEL: 'gpt-4.1', OPENAI_API_KEY: f.key!, OPENAI_BASE_URL: f.url, ...extra });

/** OpenAI's prompt_tokens already includes the cached tokens: never add them twice. */
const normalise = (u: OpenAIUsageWire) => ({ input: u.prompt_tokens - u.prompt_tokens_details.cached_tokens, cacheRead: u.prompt_tokens_details.cached_tokens, cacheWrite: 0, output: u.completion_tokens });

describe('OpenAI', () => {
  it('runs a session with tool calls (parallel, interleaved in the stream) to a compaction and beyond; the gauge is the reported usage; text streams', async () => {
    const f = await fake();
    const run = await startSession(env(f, { SKEIN_CONTEXT_WINDOW: '7000' }), servers);
    const events = await longSession(run);
    checkToolCalls(events);
    const pairs = checkGauge(events, f.reported, normalise, MODELS['gpt-4.1']!);
    logPairs('openai', pairs, f.reported.filter((r) => !r.summary).map((r) => r.usage));
    checkStreaming(run.client);
    expect(pairs.slice(1).every((p) => p.gauge.cacheRead! > 0 && p.gauge.cacheWrite === 0)).toBe(true);
    // Turns stream with usage in the last chunk; summaries are one JSON answer.
    const turns = f.requests.filter((r) => r.tools?.length && !JSON.stringify(r).includes(IN_PLACE_OPEN));
    expect(turns.every((r) => r.stream === true && r.stream_options?.include_usage === true)).toBe(true);
    expect(f.requests.filter((r) => !r.tools?.length || JSON.stringify(r).includes(IN_PLACE_OPEN)).every((r) => !r.stream)).toBe(true);
    // With a base URL that is not OpenAI's own, the output limit goes as max_tokens.
    expect(turns[0].max_tokens).toBeGreaterThan(0);
    expect(agents(events).at(-1)).toMatchObject({ text: 'and the session goes on after the compaction as before', model: 'gpt-4.1' });
  });

  it('a request over the window is refused with 400 context_length_exceeded, compacted and retried', async () => {
    const f = await fake({ window: 9000 });
    const run = await startSession(env(f, { SKEIN_CONTEXT_WINDOW: '20000', SKEIN_COMPACT_THRESHOLD_RATIO: '0.95', SKEIN_COMPACT_TARGET_RATIO: '0.2' }), servers);
    await run.say('echo: fill the context');
    for (let i = 0; i < 6 && !finished(run.client.events).length; i++) await run.say('big: 1500');
    // The refusal taught skein the real window (a smaller output budget or a compaction), and compaction followed it.
    const learned = run.client.events.find((e) => e.kind === 'limits' && e.source === 'refusal');
    expect(learned).toMatchObject({ contextWindow: 9000 });
    expect(learned?.kind === 'limits' && learned.via).toMatch(/maximum context length is 9000 tokens/);
    const compaction = finished(run.client.events)[0] as CompactionEvent;
    expect(compaction).toBeDefined();
    expect(run.client.events.some((e) => e.kind === 'error')).toBe(false);
    expect(agents(run.client.events).filter((a) => a.seq > compaction.seq).length).toBeGreaterThan(0);
  });

  it('500, 503 and 429 are retried (visibly); when retries run out the turn ends with an error', async () => {
    const f = await fake();
    const run = await startSession(env(f, { SKEIN_RETRY_MAX: '3' }), servers);
    f.failures.next(500, 503, 429);
    let events = await run.say('echo: hello after three failures');
    expect(events.filter((e) => e.kind === 'error' && e.code === 'retrying')).toHaveLength(3);
    expect(agents(events).at(-1)).toMatchObject({ text: 'hello after three failures' });
    const deltas = run.client.frames.filter((f): f is DeltaFrame => f.type === 'delta');
    expect(new Set(deltas.map((d) => d.attempt))).toEqual(new Set([3]));
    f.failures.next(503, 503, 503, 503);
    events = await run.say('echo: this one fails');
    expect(events.filter((e) => e.kind === 'error').at(-1)).toMatchObject({ code: 'provider_503' });
    events = await run.say('echo: and the next message works');
    expect(agents(events).at(-1)).toMatchObject({ text: 'and the next message works' });
  });

  it('with only OPENAI_BASE_URL (a local server, no key), sessions use the first model it lists, with a conservative window and a warning', async () => {
    const f = await fake({ key: null, models: ['llama3.1:8b', 'qwen2.5-coder:7b'] });
    const run = await startSession({ OPENAI_BASE_URL: f.url }, servers);
    expect(run.server.model).toBe('openai:llama3.1:8b');
    const events = await run.say('bash: echo local');
    // Said once its server did not say its window (at the first request), not at the session's start.
    expect(events[0]).toMatchObject({ kind: 'user' });
    expect(events.filter((e) => e.kind === 'error' && e.code === 'unknown_model')).toEqual([expect.objectContaining({ message: expect.stringMatching(/not in skein's model table and its server does not say its window/) })]);
    expect(events.some((e) => e.kind === 'tool_result' && e.output.includes('local'))).toBe(true);
    const usage = events.find((e) => e.kind === 'usage');
    expect(usage?.kind === 'usage' && usage.gauge).toMatchObject({ model: 'openai:llama3.1:8b', contextWindow: 32_000, contextTokens: f.reported[0]!.usage.prompt_tokens });
    // The request named the server's model, without the prefix, and no key was needed.
    expect(f.requests[0].model).toBe('llama3.1:8b');
    const models = await api<{ models: { id: string; unknown?: boolean }[]; default: string }>(run.server.url, '/api/models');
    expect(models.body.default).toBe('openai:llama3.1:8b');
    expect(models.body.models.map((m) => m.id)).toEqual(['predictable', 'openai:llama3.1:8b', 'openai:qwen2.5-coder:7b']);
  });
});
