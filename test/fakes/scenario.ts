// The session every provider test runs through the real skein server and the
// real SDK against its fake, and the checks on what came out: tool calls
// (parallel too), compaction and beyond, the gauge against the usage the fake
// reported, and streamed text against the stored answer.
import { expect } from 'vitest';
import { costUsd, type ModelInfo } from '../../server/llm/models.js';
import type { AgentEvent, CompactionEvent, DeltaFrame, SkeinEvent, UsageEvent } from '../../shared/protocol.js';
import { api, startTestServer, type TestServer } from '../helpers/server.js';
import { TestClient } from '../helpers/ws-client.js';
import type { Reported } from './brain.js';

export interface Normalised {
  input: number;
  cacheRead: number;
  cacheWrite: number;
  output: number;
}

export interface Running {
  server: TestServer;
  id: string;
  client: TestClient;
  turns: number;
  /** Sends a message and waits for the turn to end. */
  say(text: string): Promise<SkeinEvent[]>;
}

export async function startSession(env: Record<string, string>, servers: TestServer[], dirs?: { dataDir: string; workDir: string }): Promise<Running> {
  const server = await startTestServer({ SKEIN_RETRY_BASE_MS: '5', ...env }, dirs);
  servers.push(server);
  const { status, body } = await api<{ id: string; error?: string }>(server.url, '/api/sessions', { body: {} });
  expect(status, body.error).toBe(201);
  const client = await TestClient.connect(server.url, body.id);
  const running: Running = {
    server,
    id: body.id,
    client,
    turns: 0,
    async say(text) {
      client.send({ type: 'user_message', text });
      return client.untilIdle(++running.turns, 20_000);
    },
  };
  return running;
}

/** The turns of the long session: an answer, a tool call, three parallel calls, big outputs until compaction, and more. */
export async function longSession(run: Running): Promise<SkeinEvent[]> {
  await run.say('echo: the task is to list the files, one step at a time, and report what each command printed back');
  await run.say('bash: echo one');
  await run.say('parallel: echo alpha ;; echo beta ;; echo gamma');
  for (let i = 0; i < 8 && !shrank(run.client.events).length; i++) await run.say('big: 900');
  expect(shrank(run.client.events).length, 'a compaction shrank the view').toBeGreaterThan(0);
  await run.say('bash: echo after the compaction');
  return run.say('echo: and the session goes on after the compaction as before');
}

export const finished = (events: SkeinEvent[]) => events.filter((e): e is CompactionEvent => e.kind === 'compaction' && e.phase === 'finished');
/** Finished compactions that made the view smaller (one mid-turn keeps the step being read and may fold nothing). */
export const shrank = (events: SkeinEvent[]) => finished(events).filter((e) => e.tokensAfter! < e.tokensBefore!);
export const realUsages = (events: SkeinEvent[]) => events.filter((e): e is UsageEvent => e.kind === 'usage' && !e.gauge.estimated);
export const agents = (events: SkeinEvent[]) => events.filter((e): e is AgentEvent => e.kind === 'agent');

/** Tool calls came through: one answer with three parallel calls, each with its input and its own result. */
export function checkToolCalls(events: SkeinEvent[]): void {
  const calls = events.filter((e) => e.kind === 'tool_call');
  const parallel = calls.filter((c) => c.kind === 'tool_call' && /^echo (alpha|beta|gamma)$/.test(String(c.input.command)));
  expect(parallel.map((c) => c.kind === 'tool_call' && c.input.command)).toEqual(['echo alpha', 'echo beta', 'echo gamma']);
  const ids = parallel.map((c) => (c.kind === 'tool_call' ? c.callId : ''));
  expect(new Set(ids).size).toBe(3);
  // One assistant message owns all three: nothing but tool calls between the first and the last.
  const first = events.indexOf(parallel[0]!);
  expect(events.slice(first, first + 3).every((e) => e.kind === 'tool_call')).toBe(true);
  for (const [i, word] of ['alpha', 'beta', 'gamma'].entries()) {
    const result = events.find((e) => e.kind === 'tool_result' && e.callId === ids[i]);
    expect(result, `result of echo ${word}`).toMatchObject({ isError: false });
    expect(result?.kind === 'tool_result' && result.output).toContain(word);
  }
  expect(events.some((e) => e.kind === 'tool_result' && e.output.includes('after the compaction'))).toBe(true);
}

/**
 * The gauge is the fake's usage, normalised: one real usage event per turn
 * response (summaries move the gauge by estimate only), with the same
 * segments; the session cost is every response's (summaries too) at the
 * table's prices.
 */
export function checkGauge<U>(events: SkeinEvent[], reported: Reported<U>[], normalise: (u: U) => Normalised, info: ModelInfo): { reported: Normalised; gauge: UsageEvent['gauge'] }[] {
  const turns = reported.filter((r) => !r.summary).map((r) => normalise(r.usage));
  const usages = realUsages(events);
  expect(usages.length).toBe(turns.length);
  const pairs = usages.map((u, i) => ({ reported: turns[i]!, gauge: u.gauge }));
  for (const { reported: r, gauge } of pairs) {
    expect(gauge.contextTokens).toBe(r.input + r.cacheRead + r.cacheWrite);
    expect({ input: gauge.input, cacheRead: gauge.cacheRead, cacheWrite: gauge.cacheWrite }).toEqual({ input: r.input, cacheRead: r.cacheRead, cacheWrite: r.cacheWrite });
  }
  const outputs = agents(events).map((a) => a.usage?.output);
  expect(outputs).toEqual(turns.map((t) => t.output));
  const total = reported.reduce((sum, r) => sum + costUsd(info, normalise(r.usage)), 0);
  expect(usages.at(-1)!.gauge.totalCostUsd).toBeGreaterThan(0);
  expect(events.filter((e): e is UsageEvent => e.kind === 'usage').at(-1)!.gauge.totalCostUsd).toBeCloseTo(total, 12);
  return pairs;
}

/** The held-back tail allowed at the end of an answer: the characters that happen to begin a secret (a random token begins with a given character 1 time in 64, with a given 8 almost never). */
export const HELD_TAIL_MAX = 8;

/** Every streamed answer: its deltas arrived in order and, joined, are the stored text (but for a held-back tail). */
export function checkStreaming(client: TestClient): number {
  const deltas = client.frames.filter((f): f is DeltaFrame => f.type === 'delta' && !f.channel);
  let pieced = 0;
  for (const agent of agents(client.events).filter((a) => a.text)) {
    const before = deltas.filter((d) => d.afterSeq < agent.seq);
    const afterSeq = Math.max(...before.map((d) => d.afterSeq));
    const ofCall = before.filter((d) => d.afterSeq === afterSeq);
    const attempt = Math.max(...ofCall.map((d) => d.attempt));
    const last = ofCall.filter((d) => d.attempt === attempt);
    expect(last.map((d) => d.index)).toEqual(last.map((_, i) => i));
    // A last few characters that could begin a secret (the generated access token is one) are held back by the
    // stream's mask and never streamed: the agent event carries the whole text.
    const streamed = last.map((d) => d.text).join('');
    expect(agent.text.startsWith(streamed) && streamed.length >= agent.text.length - HELD_TAIL_MAX, `streamed ${JSON.stringify(streamed)} of ${JSON.stringify(agent.text)}`).toBe(true);
    if (last.length >= 3) pieced++;
  }
  expect(pieced, 'answers that streamed in several pieces').toBeGreaterThan(2);
  return deltas.length;
}

/** For the report: what the fake said next to what skein showed. */
export function logPairs(provider: string, pairs: { reported: Normalised; gauge: UsageEvent['gauge'] }[], raw: unknown[]): void {
  if (!process.env.SKEIN_TEST_REPORT) return;
  pairs.forEach((p, i) => console.log(`[${provider}] fake: ${JSON.stringify(raw[i])} -> gauge ${p.gauge.contextTokens} (input ${p.gauge.input}, read ${p.gauge.cacheRead}, write ${p.gauge.cacheWrite}) $${p.gauge.totalCostUsd.toFixed(6)}`));
}
