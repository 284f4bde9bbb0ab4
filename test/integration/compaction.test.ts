// Compaction through the real server: threshold, manual, overflow, and restart.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { CompactionEvent, SkeinEvent, UsageEvent } from '../../shared/protocol.js';
import { api, startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { TestClient } from '../helpers/ws-client.js';

const servers: TestServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

async function start(env: Record<string, string>, dirs?: { dataDir?: string; workDir?: string }) {
  const server = await startTestServer(env, dirs);
  servers.push(server);
  const { body } = await api<{ id: string }>(server.url, '/api/sessions', { body: {} });
  return { server, id: body.id, client: await TestClient.connect(server.url, body.id) };
}

const usages = (events: SkeinEvent[]) => events.filter((e): e is UsageEvent => e.kind === 'usage');
const compactions = (events: SkeinEvent[], phase?: string) =>
  events.filter((e): e is CompactionEvent => e.kind === 'compaction' && (!phase || e.phase === phase));

describe('threshold compaction', () => {
  it('crosses the threshold, compacts, carries on below it, and loses no event', async () => {
    const window = 4000;
    const threshold = 0.5;
    // Pre-flight off: with it, the (exact) estimate would compact before any request crossed the threshold.
    const { server, id, client } = await start({ SKEIN_CONTEXT_WINDOW: String(window), SKEIN_COMPACT_THRESHOLD_RATIO: String(threshold), SKEIN_COMPACT_PREFLIGHT: 'off' });
    let turns = 0;
    for (const text of ['echo: start the task', 'big: 700', 'big: 700', 'big: 700', 'echo: after compaction']) {
      client.send({ type: 'user_message', text });
      await client.untilIdle(++turns);
    }
    const events = client.events;
    const finished = compactions(events, 'finished');
    expect(finished.length).toBeGreaterThanOrEqual(1);
    const first = finished[0]!;
    expect(first.trigger).toBe('threshold');
    // The last real usage before it reached the threshold.
    const before = usages(events).filter((u) => u.seq < first.seq && !u.gauge.estimated).at(-1)!;
    expect(before.gauge.contextTokens).toBeGreaterThanOrEqual(threshold * window);
    // It went through Compacting.
    const toCompacting = events.filter((e) => e.kind === 'state' && e.to === 'Compacting' && e.seq < first.seq).at(-1);
    expect(toCompacting).toBeDefined();
    expect(compactions(events, 'started').some((c) => c.seq > toCompacting!.seq && c.seq < first.seq)).toBe(true);
    expect(first.tokensAfter!).toBeLessThan(first.tokensBefore!);
    expect(first.messagesAfter!).toBeLessThan(first.messagesBefore!);
    expect(first.summary).toBeTruthy();
    expect(first.coversSeq![0]).toBeGreaterThan(1);
    // The next real request is below the threshold.
    const next = usages(events).find((u) => u.seq > first.seq && !u.gauge.estimated)!;
    expect(next.gauge.contextTokens).toBeLessThan(threshold * window);
    // Every event is still in the log, gap-free.
    const { body } = await api<{ events: SkeinEvent[] }>(server.url, `/api/sessions/${id}/events?since=0`);
    expect(body.events.map((e) => e.seq)).toEqual(body.events.map((_, i) => i + 1));
    expect(body.events.filter((e) => e.kind === 'user')).toHaveLength(5);
    expect(body.events.length).toBe(events.length);
    // The view keeps the first user message and shows the summary.
    const view = await api<{ messages: { role: string; content: string }[]; tokens: number }>(server.url, `/api/sessions/${id}/view`);
    expect(view.body.messages[1]).toMatchObject({ role: 'user', content: 'echo: start the task' });
    expect(view.body.messages.some((m) => m.content.startsWith('<compacted-history>'))).toBe(true);
    expect(events.findLast((e) => e.kind === 'agent')).toMatchObject({ text: 'after compaction' });
  });
});

describe('pre-flight and cadence', () => {
  it('pre-flight compacts before a request would cross the threshold, so none does', async () => {
    // Room for the fixed part of every request (system prompt and ten tool specs, about 1,600 tokens) below the target.
    const window = 5000;
    const { client } = await start({ SKEIN_CONTEXT_WINDOW: String(window), SKEIN_COMPACT_THRESHOLD_RATIO: '0.5' });
    for (let i = 0; i < 5; i++) {
      client.send({ type: 'user_message', text: 'big: 600' });
      await client.untilIdle(i + 1);
    }
    const finished = compactions(client.events, 'finished');
    expect(finished.length).toBeGreaterThanOrEqual(1);
    expect(finished.every((c) => c.trigger === 'preflight')).toBe(true);
    for (const u of usages(client.events).filter((u) => !u.gauge.estimated)) expect(u.gauge.contextTokens).toBeLessThan(0.5 * window);
    // The target is 0.5 x window, held below the threshold (0.9 x threshold) so compaction cannot loop.
    for (const c of finished) expect(c.tokensAfter!).toBeLessThanOrEqual(0.9 * 0.5 * window);
  });

  it('cadence compacts every N calls when set', async () => {
    const { client } = await start({ SKEIN_COMPACT_EVERY_N_CALLS: '4' });
    for (let i = 0; i < 4; i++) {
      client.send({ type: 'user_message', text: `bash: echo ${i}` });
      await client.untilIdle(i + 1);
    }
    const finished = compactions(client.events, 'finished');
    expect(finished.map((c) => c.trigger)).toContain('cadence');
  });

  it('the agent compacts its own history with compact_history at the next safe point', async () => {
    const { client } = await start({});
    for (let i = 0; i < 5; i++) {
      client.send({ type: 'user_message', text: `bash: echo step ${i}` });
      await client.untilIdle(i + 1);
    }
    client.send({ type: 'user_message', text: 'tool: compact_history {"preserveRecentGroups": 1, "focus": "the echo steps"}' });
    await client.untilIdle(6);
    const result = client.events.findLast((e) => e.kind === 'tool_result')!;
    expect(result).toMatchObject({ name: 'compact_history', isError: false });
    const done = compactions(client.events, 'finished').at(-1)!;
    expect(done).toMatchObject({ trigger: 'agent', instructions: 'the echo steps', preserveRecentGroups: 1 });
    // It ran after the tool's result (a safe point), and the turn went on.
    expect(done.seq).toBeGreaterThan(result.seq);
    expect(done.messagesAfter!).toBeLessThan(done.messagesBefore!);
    expect(client.events.findLast((e) => e.kind === 'agent')!.seq).toBeGreaterThan(done.seq);
  });
});

describe('manual compaction', () => {
  it('/compact focus from the chat compacts while idle and records the focus', async () => {
    const { client } = await start({});
    client.send({ type: 'user_message', text: 'echo: first' });
    await client.untilIdle(1);
    for (let i = 0; i < 6; i++) {
      client.send({ type: 'user_message', text: `bash: echo step ${i}` });
      await client.untilIdle(2 + i);
    }
    client.send({ type: 'user_message', text: '/compact keep the step numbers' });
    await client.until(() => compactions(client.events, 'finished')[0], 'manual compaction');
    const done = compactions(client.events, 'finished')[0]!;
    expect(done).toMatchObject({ trigger: 'manual', instructions: 'keep the step numbers', strategy: 'summarize' });
    expect(done.messagesAfter!).toBeLessThan(done.messagesBefore!);
    // A /compact is not a conversation turn: no LLM turn started for it.
    const afterCompact = client.events.filter((e) => e.seq > done.seq && e.kind === 'agent');
    expect(afterCompact).toHaveLength(0);
  });

  it('a manual compaction with nothing to fold still finishes, with equal message counts', async () => {
    const { server, id, client } = await start({});
    expect((await api(server.url, `/api/sessions/${id}/compact`, { body: {} })).status).toBe(202);
    await client.until(() => compactions(client.events, 'finished')[0], 'compaction');
    const done = compactions(client.events, 'finished')[0]!;
    expect(done.messagesAfter).toBe(done.messagesBefore);
    expect(done.summary).toBeTruthy();
  });

  it('a compact frame sent while busy is queued and runs at the next safe point', async () => {
    const { client } = await start({});
    client.send({ type: 'user_message', text: 'echo: a' });
    await client.untilIdle(1);
    client.send({ type: 'user_message', text: 'bash: echo b' });
    await client.untilIdle(2);
    client.send({ type: 'user_message', text: 'bash: sleep 0.3; echo c' });
    await client.until(() => client.events.some((e) => e.kind === 'state' && e.to === 'RunningTools' && e.seq > 20), 'tool running');
    client.send({ type: 'compact' });
    await client.untilIdle(3);
    const queued = compactions(client.events, 'queued');
    const finished = compactions(client.events, 'finished');
    expect(queued).toHaveLength(1);
    expect(finished).toHaveLength(1);
    // It ran after the tool result, not in the middle of the tool group.
    const result = client.events.findLast((e) => e.kind === 'tool_result')!;
    expect(finished[0]!.seq).toBeGreaterThan(result.seq);
  });
});

describe('overflow', () => {
  it('a provider "prompt is too long" leads to compaction and a successful retry', async () => {
    const { client } = await start({});
    for (let i = 0; i < 4; i++) {
      client.send({ type: 'user_message', text: `bash: echo ${i}` });
      await client.untilIdle(i + 1);
    }
    client.send({ type: 'user_message', text: 'error: overflow' });
    await client.untilIdle(5);
    const c = compactions(client.events, 'finished').at(-1)!;
    expect(c.trigger).toBe('overflow');
    expect(client.events.findLast((e) => e.kind === 'agent')).toMatchObject({ text: 'recovered from simulated error: overflow' });
    expect(client.events.some((e) => e.kind === 'error')).toBe(false);
  });

  it('a 500 ends the turn with an error event, and the session takes the next message', async () => {
    const { client } = await start({});
    client.send({ type: 'user_message', text: 'error: 500' });
    await client.untilIdle(1);
    const error = client.events.find((e) => e.kind === 'error');
    expect(error).toMatchObject({ code: 'provider_500' });
    const states = client.events.filter((e) => e.kind === 'state').map((e) => (e as { to: string }).to);
    expect(states.slice(-2)).toEqual(['Error', 'WaitingForUserInput']);
    client.send({ type: 'user_message', text: 'echo: fine' });
    await client.untilIdle(2);
    expect(client.events.at(-3)).toMatchObject({ kind: 'agent', text: 'fine' });
  });
});

describe('restart', () => {
  it('reloads sessions, and closes a turn that was running as interrupted', async () => {
    const dataDir = tempDir('data');
    const workDir = tempDir('work');
    const first = await start({}, { dataDir, workDir });
    first.client.send({ type: 'user_message', text: 'echo: before restart' });
    await first.client.untilIdle(1);
    // Make the log look like the process died mid-tool: a call with no result, state RunningTools.
    const file = path.join(dataDir, 'sessions', `${first.id}.jsonl`);
    await first.server.close();
    servers.splice(servers.indexOf(first.server), 1);
    const lastSeq = first.client.events.length;
    const ts = new Date().toISOString();
    const dangling = [
      { seq: lastSeq + 1, ts, kind: 'user', text: 'bash: sleep 100' },
      { seq: lastSeq + 2, ts, kind: 'state', from: 'WaitingForUserInput', to: 'SendingToLLM', reason: 'x' },
      { seq: lastSeq + 3, ts, kind: 'state', from: 'SendingToLLM', to: 'ProcessingLLMResponse', reason: 'x' },
      { seq: lastSeq + 4, ts, kind: 'agent', text: '', model: 'predictable', endOfTurn: false },
      { seq: lastSeq + 5, ts, kind: 'tool_call', callId: 'c1', name: 'bash', input: { command: 'sleep 100' } },
      { seq: lastSeq + 6, ts, kind: 'state', from: 'ProcessingLLMResponse', to: 'RunningTools', reason: 'x' },
    ];
    fs.appendFileSync(file, dangling.map((e) => JSON.stringify(e) + '\n').join('') + '{"seq":');
    // A log the index does not describe as idle is loaded by the start's background scan, whose warnings go to the server log.
    const logged: string[] = [];
    const warn = vi.spyOn(console, 'warn').mockImplementation((...args: unknown[]) => void logged.push(args.join(' ')));
    const second = await startTestServer({}, { dataDir, workDir });
    servers.push(second);
    await second.sessions.scanned;
    warn.mockRestore();
    expect([...second.warnings, ...logged].join('\n')).toContain('torn last line');
    const sessions = await api<{ sessions: { id: string; state: string }[] }>(second.url, '/api/sessions');
    expect(sessions.body.sessions.find((s) => s.id === first.id)).toMatchObject({ state: 'WaitingForUserInput' });
    const client = await TestClient.connect(second.url, first.id);
    await client.until(() => client.events.length > lastSeq + 6, 'replay');
    const after = client.events.slice(lastSeq + 6);
    expect(after[0]).toMatchObject({ kind: 'tool_result', callId: 'c1', isError: true, output: 'interrupted: the server restarted' });
    expect(after.some((e) => e.kind === 'error')).toBe(true);
    expect(after.at(-1)).toMatchObject({ kind: 'state', to: 'WaitingForUserInput' });
    client.send({ type: 'user_message', text: 'echo: after restart' });
    await client.until(() => client.events.some((e) => e.kind === 'agent' && e.text === 'after restart'), 'answer after restart');
    expect(client.events.map((e) => e.seq)).toEqual(client.events.map((_, i) => i + 1));
  });
});
