// A real server on a free port, real WebSocket clients.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { SessionSnapshot, SkeinEvent } from '../../shared/protocol.js';
import { authHeaders } from '../helpers/auth.js';
import { api, startTestServer, type TestServer } from '../helpers/server.js';
import { TestClient } from '../helpers/ws-client.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
});

async function newSession(): Promise<string> {
  const { status, body } = await api<{ id: string }>(server.url, '/api/sessions', { body: {} });
  expect(status).toBe(201);
  return body.id;
}

function expectGapFree(events: SkeinEvent[], from = 1) {
  expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + from));
}

describe('session over WebSocket', () => {
  it('does a turn with a tool call: hello, gap-free seq, usage before agent, ends waiting', async () => {
    const id = await newSession();
    const client = await TestClient.connect(server.url, id);
    await client.until(() => client.frames[0], 'hello');
    expect(client.frames[0]).toMatchObject({ type: 'hello', session: { id, state: 'WaitingForUserInput', lastSeq: 0 } });
    client.send({ type: 'user_message', text: 'bash: echo tool-ran' });
    const events = await client.untilIdle(1);
    expectGapFree(events);
    const kinds = events.map((e) => e.kind);
    expect(kinds.filter((k) => k === 'usage')).toHaveLength(2);
    const result = events.find((e) => e.kind === 'tool_result');
    expect(result).toMatchObject({ name: 'bash', isError: false, output: 'exit code: 0\ntool-ran' });
    // Each usage event comes right before its agent event.
    events.forEach((e, i) => {
      if (e.kind === 'agent') expect(events[i - 1]!.kind).toBe('usage');
    });
    const last = events[events.length - 1]!;
    expect(last).toMatchObject({ kind: 'state', from: 'EndOfTurn', to: 'WaitingForUserInput' });
    const snapshot = await api<SessionSnapshot>(server.url, `/api/sessions/${id}`);
    expect(snapshot.body.gauge.contextTokens).toBeGreaterThan(0);
    expect(snapshot.body.lastSeq).toBe(last.seq);
    expect(snapshot.body.title).toBe('bash: echo tool-ran');
    client.close();
  });

  it('a client that reconnects with since=N gets exactly the rest, and live events once', async () => {
    const id = await newSession();
    const first = await TestClient.connect(server.url, id);
    first.send({ type: 'user_message', text: 'echo: one' });
    await first.untilIdle(1);
    const seen = first.events.length;
    first.close();
    // While nobody listens, the session goes on.
    await api(server.url, `/api/sessions/${id}/messages`, { body: { text: 'bash: echo two' } });
    const rest = await TestClient.connect(server.url, id, seen);
    rest.send({ type: 'user_message', text: 'echo: three' });
    await rest.until(() => rest.events.filter((e) => e.kind === 'agent' && e.text === 'three').length === 1 && rest.events.at(-1)?.kind === 'state' && (rest.events.at(-1) as { to: string }).to === 'WaitingForUserInput', 'third turn');
    expectGapFree(rest.events, seen + 1);
    const all = [...first.events, ...rest.events];
    const { body } = await api<{ events: SkeinEvent[] }>(server.url, `/api/sessions/${id}/events?since=0`);
    expect(all.map((e) => e.seq)).toEqual(body.events.map((e) => e.seq));
    expect(new Set(all.map((e) => e.seq)).size).toBe(all.length);
    rest.close();
  });

  it('answers bad frames with an error frame and keeps the session usable', async () => {
    const id = await newSession();
    const client = await TestClient.connect(server.url, id);
    const bad = ['not json', '[]', '{"type":"launch"}', '{"type":"user_message","text":42}', '{"type":"user_message","text":"  "}', '{"type":"compact","instructions":{}}'];
    for (const frame of bad) client.send(frame);
    await client.until(() => client.frames.filter((f) => f.type === 'error').length === bad.length, 'error frames');
    const errors = client.frames.filter((f) => f.type === 'error').map((f) => (f as { message: string }).message);
    expect(errors[0]).toContain('not valid JSON');
    expect(errors[2]).toContain('unknown frame type "launch"');
    expect(errors[3]).toContain('"text" must be a string');
    client.send({ type: 'user_message', text: 'echo: still fine' });
    const events = await client.untilIdle(1);
    expect(events.find((e) => e.kind === 'agent')).toMatchObject({ text: 'still fine' });
    client.close();
  });

  it("masks a secret in an error frame sent live, as the log would (the refusal quotes the frame's type)", async () => {
    const secret = 'live-frame-secret-0123456789';
    const before = process.env.SKEIN_TEST_LIVE_FRAME_KEY;
    process.env.SKEIN_TEST_LIVE_FRAME_KEY = secret;
    try {
      const id = await newSession();
      const client = await TestClient.connect(server.url, id);
      client.send({ type: secret });
      await client.until(() => client.frames.some((f) => f.type === 'error'), 'error frame');
      const error = client.frames.find((f) => f.type === 'error') as { message: string };
      expect(error.message).toContain('unknown frame type "[redacted SKEIN_TEST_LIVE_FRAME_KEY]"');
      expect(JSON.stringify(client.frames)).not.toContain(secret);
      client.close();
    } finally {
      if (before === undefined) delete process.env.SKEIN_TEST_LIVE_FRAME_KEY;
      else process.env.SKEIN_TEST_LIVE_FRAME_KEY = before;
    }
  });

  it('closes the socket with 1009 on a frame over 1 MiB', async () => {
    const id = await newSession();
    const client = await TestClient.connect(server.url, id);
    const code = new Promise<number>((resolve) => client.ws.on('close', (c) => resolve(c)));
    client.send({ type: 'user_message', text: 'x'.repeat(1024 * 1024 + 10) });
    expect(await code).toBe(1009);
  });

  it('refuses unknown sessions and cross-origin upgrades and POSTs', async () => {
    expect((await api(server.url, '/api/sessions/nope')).status).toBe(404);
    expect((await api(server.url, '/api/sessions/nope/events')).status).toBe(404);
    const id = await newSession();
    const evil = new TestClient(`${server.url.replace('http', 'ws')}/ws?session=${id}`, { ...authHeaders(server.url), origin: 'http://evil.example' });
    await expect(evil.opened).rejects.toThrow('403');
    const post = await api(server.url, `/api/sessions/${id}/messages`, { body: { text: 'echo: x' }, headers: { origin: 'http://evil.example' } });
    expect(post.status).toBe(403);
    const own = await api(server.url, `/api/sessions/${id}/messages`, { body: { text: 'echo: x' }, headers: { origin: server.url.replace('127.0.0.1', 'localhost') } });
    expect(own.status).toBe(202);
    const unknown = new WebSocket(`${server.url.replace('http', 'ws')}/ws?session=nope`, { headers: authHeaders(server.url) });
    await expect(new Promise((_, reject) => unknown.on('unexpected-response', (_q, res) => reject(new Error(String(res.statusCode)))))).rejects.toThrow('404');
  });

  it('validates REST bodies', async () => {
    const id = await newSession();
    expect((await api(server.url, `/api/sessions/${id}/messages`, { body: { text: 5 } })).status).toBe(400);
    const res = await fetch(`${server.url}/api/sessions/${id}/messages`, { method: 'POST', headers: { 'content-type': 'application/json', ...authHeaders(server.url) }, body: '{"text":' });
    expect(res.status).toBe(400);
    const huge = await fetch(`${server.url}/api/sessions/${id}/messages`, { method: 'POST', headers: { 'content-type': 'application/json', ...authHeaders(server.url) }, body: JSON.stringify({ text: 'x'.repeat(1_100_000) }) });
    expect(huge.status).toBe(413);
    expect((await api(server.url, '/api/sessions', { body: { model: 'no-such-model' } })).status).toBe(400);
    expect((await api(server.url, `/api/sessions/${id}/events?since=-1`)).status).toBe(400);
    expect((await api<{ ok: boolean }>(server.url, '/healthz')).body).toEqual({ ok: true });
  });

  it('queues a message sent while the agent works and folds it in at the next safe point', async () => {
    const id = await newSession();
    const client = await TestClient.connect(server.url, id);
    client.send({ type: 'user_message', text: 'bash: sleep 0.4; echo slow' });
    await client.until(() => client.events.some((e) => e.kind === 'state' && e.to === 'RunningTools'), 'tool running');
    client.send({ type: 'user_message', text: 'echo: queued while busy' });
    await client.until(() => client.events.some((e) => e.kind === 'agent' && e.text === 'queued while busy'), 'queued message answered', 15_000);
    await client.untilIdle(1);
    const view = await api<{ messages: { role: string; content: string }[] }>(server.url, `/api/sessions/${id}/view`);
    const roles = view.body.messages.map((m) => m.role);
    // The queued message sits after the tool result, never between call and result.
    expect(roles.slice(0, 4)).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(view.body.messages[4]).toMatchObject({ role: 'user', content: 'echo: queued while busy' });
    client.close();
  });

  it('cancel stops a running tool and the turn ends Cancelled -> WaitingForUserInput', async () => {
    const id = await newSession();
    const client = await TestClient.connect(server.url, id);
    client.send({ type: 'user_message', text: 'bash: sleep 30' });
    await client.until(() => client.events.some((e) => e.kind === 'state' && e.to === 'RunningTools'), 'tool running');
    const started = Date.now();
    client.send({ type: 'cancel' });
    await client.untilIdle(1);
    expect(Date.now() - started).toBeLessThan(5000);
    const states = client.events.filter((e) => e.kind === 'state').map((e) => (e as { to: string }).to);
    expect(states.slice(-2)).toEqual(['Cancelled', 'WaitingForUserInput']);
    expect(client.events.find((e) => e.kind === 'tool_result')).toMatchObject({ isError: true });
    client.send({ type: 'user_message', text: 'echo: after cancel' });
    await client.untilIdle(2);
    expect(client.events.at(-3)).toMatchObject({ kind: 'agent', text: 'after cancel' });
    client.close();
  });
});
