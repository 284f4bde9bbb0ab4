// Anthropic through the real @anthropic-ai/sdk against a local server that
// speaks the Messages API (test/fakes/anthropic-fake.ts), via ANTHROPIC_BASE_URL.
import { afterEach, describe, expect, it } from 'vitest';
import { MODELS } from '../../server/llm/models.js';
import type { CompactionEvent, DeltaFrame } from '../../shared/protocol.js';
import { startAnthropicFake, type AnthropicFake, type AnthropicUsageWire } from '../fakes/anthropic-fake.js';
import { HELD_TAIL_MAX, agents, checkGauge, checkStreaming, checkToolCalls, finished, logPairs, longSession, shrank, startSession } from '../fakes/scenario.js';
import { block } from '../fakes/prompt-cache.js';
import type { TestServer } from '../helpers/server.js';

const servers: TestServer[] = [];
const fakes: AnthropicFake[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
  for (const f of fakes.splice(0)) await f.close();
});

async function fake(window?: number) {
  const f = await startAnthropicFake(window ? { window } : {});
  fakes.push(f);
  return f;
}

const env = (f: AnthropicFake, extra: Record<string, string> = {}) => ({
  SKEIN_MODEL: 'claude-sonnet-5-5',
  ANTHROPIC_API_KEY: f.key,
  ANTHROPIC_BASE_URL: f.url,
  ...extra,
});

/** Anthropic's input_tokens leaves out cache reads and writes: the prompt is the sum of the three. */
const normalise = (u: AnthropicUsageWire) => ({ input: u.input_tokens, cacheRead: u.cache_read_input_tokens, cacheWrite: u.cache_creation_input_tokens, output: u.output_tokens });

describe('Anthropic', () => {
  it('runs a session with tool calls (parallel too) to a compaction and beyond; the gauge is the reported usage; text streams', async () => {
    const f = await fake();
    const run = await startSession(env(f, { SKEIN_CONTEXT_WINDOW: '7000' }), servers);
    const events = await longSession(run);
    checkToolCalls(events);
    const pairs = checkGauge(events, f.reported, normalise, MODELS['claude-sonnet-5-5']!);
    logPairs('anthropic', pairs, f.reported.filter((r) => !r.summary).map((r) => r.usage));
    checkStreaming(run.client);
    // The summaries were asked for as one JSON answer, the turns streamed.
    expect(f.reported.filter((r) => r.summary).every((r) => !r.streamed)).toBe(true);
    expect(f.reported.filter((r) => !r.summary).every((r) => r.streamed)).toBe(true);
    // Prompt caching: breakpoints on the system prompt and on the latest turn.
    const turn = f.requests.find((r) => r.tools?.length);
    expect(turn.system.at(-1).cache_control).toEqual({ type: 'ephemeral' });
    expect(turn.messages.at(-1).content.at(-1).cache_control).toEqual({ type: 'ephemeral' });
    expect(pairs.slice(1).every((p) => p.gauge.cacheRead! > 0)).toBe(true);
    // A compaction leaves the tools + system prefix as it was, so the first request after it still reads it from the cache.
    const compaction = shrank(events)[0]!;
    const usageSeqs = events.filter((e) => e.kind === 'usage' && !e.gauge.estimated).map((e) => e.seq);
    const firstAfter = usageSeqs.findIndex((seq) => seq > compaction.seq);
    const turns = f.requests.filter((r) => r.tools?.length);
    expect(turns[firstAfter].system).toEqual(turns[0].system);
    expect(turns[firstAfter].tools).toEqual(turns[0].tools);
    const strip = ({ cache_control: _, ...rest }: Record<string, unknown>) => rest;
    const prefixTokens = [...turns[0].tools, ...turns[0].system].reduce((n: number, b: Record<string, unknown>) => n + block(strip(b)).tokens, 0);
    expect(pairs[firstAfter]!.gauge.cacheRead!).toBeGreaterThanOrEqual(prefixTokens);
    // The request after it grew by less than the step it reads (kept verbatim: the model has not read it yet).
    const read = turns[firstAfter].messages.at(-1).content.filter((b: { type: string }) => b.type === 'tool_result');
    const added = read.reduce((n: number, b: Record<string, unknown>) => n + block(strip(b)).tokens, 0);
    expect(added).toBeGreaterThan(500);
    expect(pairs[firstAfter]!.gauge.contextTokens - pairs[firstAfter - 1]!.gauge.contextTokens).toBeLessThan(added);
    expect(agents(events).at(-1)).toMatchObject({ text: 'and the session goes on after the compaction as before', model: 'claude-sonnet-5-5' });
  });

  it('a request over the window is refused with 400 invalid_request_error, compacted and retried', async () => {
    const f = await fake(9000);
    const run = await startSession(env(f, { SKEIN_CONTEXT_WINDOW: '20000', SKEIN_COMPACT_THRESHOLD_RATIO: '0.95', SKEIN_COMPACT_TARGET_RATIO: '0.2' }), servers);
    await run.say('echo: fill the context');
    for (let i = 0; i < 6 && !finished(run.client.events).length; i++) await run.say('big: 1500');
    // The refusal taught skein the real window (a smaller output budget or a compaction), and compaction followed it.
    const learned = run.client.events.find((e) => e.kind === 'limits' && e.source === 'refusal');
    expect(learned).toMatchObject({ contextWindow: 9000 });
    expect(learned?.kind === 'limits' && learned.via).toMatch(/exceed context limit|prompt is too long/);
    const compaction = finished(run.client.events)[0] as CompactionEvent;
    expect(compaction).toBeDefined();
    expect(run.client.events.some((e) => e.kind === 'error')).toBe(false);
    // The retry after the compaction succeeded, and the session goes on.
    expect(agents(run.client.events).filter((a) => a.seq > compaction.seq).length).toBeGreaterThan(0);
    const events = await run.say('echo: still here');
    expect(agents(events).at(-1)).toMatchObject({ text: 'still here' });
  });

  it('529 overloaded, 500 and a stream that breaks off are retried (visibly); when retries run out the turn ends with an error', async () => {
    const f = await fake();
    const run = await startSession(env(f, { SKEIN_RETRY_MAX: '3' }), servers);
    f.failures.next(529, 500, 'mid-stream');
    let events = await run.say('echo: hello after three failures');
    const retries = events.filter((e) => e.kind === 'error' && e.code === 'retrying');
    expect(retries).toHaveLength(3);
    expect(retries[0]!.kind === 'error' && retries[0]!.message).toMatch(/529.*overloaded_error: Overloaded.*retry 1 of 3/);
    expect(retries[2]!.kind === 'error' && retries[2]!.message).toMatch(/overloaded_error/);
    expect(agents(events).at(-1)).toMatchObject({ text: 'hello after three failures' });
    // The broken stream sent part of the text (attempt 2) before the good one (attempt 3).
    const deltas = run.client.frames.filter((f): f is DeltaFrame => f.type === 'delta' && !f.channel);
    expect(deltas.some((d) => d.attempt === 2)).toBe(true);
    // Joined, the good attempt's pieces are the answer; a last few characters that could begin a secret (the
    // generated access token is one) are held back by the stream's mask, and the agent event carries them.
    const streamed = deltas.filter((d) => d.attempt === 3).map((d) => d.text).join('');
    expect('hello after three failures'.startsWith(streamed) && streamed.length >= 'hello after three failures'.length - HELD_TAIL_MAX).toBe(true);
    expect(events.filter((e) => e.kind === 'error' && e.code !== 'retrying')).toHaveLength(0);

    f.failures.next(500, 500, 500, 500);
    events = await run.say('echo: this one fails');
    const last = events.filter((e) => e.kind === 'error').at(-1);
    expect(last).toMatchObject({ kind: 'error', code: 'provider_500' });
    const states = events.filter((e) => e.kind === 'state').map((e) => (e.kind === 'state' ? e.to : ''));
    expect(states.slice(-2)).toEqual(['Error', 'WaitingForUserInput']);
    events = await run.say('echo: and the next message works');
    expect(agents(events).at(-1)).toMatchObject({ text: 'and the next message works' });
  });
});
