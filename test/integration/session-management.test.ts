// Session management over REST against a real server: rename, archive,
// search, delete to the trash and restore, export, fork (the fork's first
// request holds exactly the history up to the fork point; the original's log
// is untouched byte for byte), and the live list channel.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { SessionListFrame, SessionSnapshot, SkeinEvent, TrashedSession } from '../../shared/protocol.js';
import type { LlmRequest } from '../../server/llm/types.js';
import { authHeaders, tokenFor } from '../helpers/auth.js';
import { observePredictableRequests } from '../helpers/request-rules.js';
import { api, startTestServer, type TestServer } from '../helpers/server.js';
import { eventsOf, waitForEvents } from '../helpers/ui.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
});

/** Stops the server and starts it again on the same folders (one server per data folder: never two at once). */
async function restart(): Promise<TestServer> {
  await server.close();
  server = await startTestServer({}, { dataDir: server.dataDir, workDir: server.workDir });
  return server;
}

async function newSession(): Promise<string> {
  const { status, body } = await api<{ id: string }>(server.url, '/api/sessions', { body: {} });
  expect(status).toBe(201);
  return body.id;
}

const idleCount = (events: SkeinEvent[]) => events.filter((e) => e.kind === 'state' && e.to === 'WaitingForUserInput').length;

/** Sends a message over REST and waits until its turn (or compaction) is over. */
async function say(id: string, text: string): Promise<SkeinEvent[]> {
  const before = idleCount(await eventsOf(server.url, id));
  expect((await api(server.url, `/api/sessions/${id}/messages`, { body: { text } })).status).toBe(202);
  return waitForEvents(server.url, id, (es) => idleCount(es) > before, 60_000);
}

async function list(query = ''): Promise<SessionSnapshot[]> {
  return (await api<{ sessions: SessionSnapshot[] }>(server.url, `/api/sessions${query}`)).body.sessions;
}

const sha = (file: string) => crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');

describe('session management', () => {
  it('renames (empty goes back to the first message), archives, and finds sessions by title and user messages', async () => {
    const id = await newSession();
    await say(id, 'echo: needle-in-first-message');
    await say(id, 'echo: second mentions haystack-word');
    expect((await list()).find((s) => s.id === id)!.title).toBe('echo: needle-in-first-message');

    const renamed = await api<SessionSnapshot>(server.url, `/api/sessions/${id}`, { method: 'PATCH', body: { title: '  Fix the parser  ' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ title: 'Fix the parser', customTitle: 'Fix the parser' });
    expect((await list()).find((s) => s.id === id)!.title).toBe('Fix the parser');
    // Bad input is refused and changes nothing.
    expect((await api(server.url, `/api/sessions/${id}`, { method: 'PATCH', body: { title: 42 } })).status).toBe(400);
    expect((await api(server.url, `/api/sessions/${id}`, { method: 'PATCH', body: { archived: 'yes' } })).status).toBe(400);
    expect((await api(server.url, `/api/sessions/nope`, { method: 'PATCH', body: { title: 'x' } })).status).toBe(404);

    // Search: title, or any user message; case-insensitive.
    expect((await list('?q=PARSER')).map((s) => s.id)).toContain(id);
    expect((await list('?q=haystack-word')).map((s) => s.id)).toContain(id);
    expect((await list('?q=needle-in-first')).map((s) => s.id)).toContain(id);
    expect((await list('?q=absent-everywhere')).map((s) => s.id)).not.toContain(id);

    // Archived: gone from the default list, shown (marked) with archived=1, back after unarchive.
    await api(server.url, `/api/sessions/${id}`, { method: 'PATCH', body: { archived: true } });
    expect((await list()).map((s) => s.id)).not.toContain(id);
    expect((await list('?archived=1')).find((s) => s.id === id)).toMatchObject({ archived: true, title: 'Fix the parser' });
    await api(server.url, `/api/sessions/${id}`, { method: 'PATCH', body: { archived: false, title: '' } });
    expect((await list()).find((s) => s.id === id)).toMatchObject({ title: 'echo: needle-in-first-message' });
    expect((await list()).find((s) => s.id === id)!.archived).toBeUndefined();
  });

  it('keeps the title and the archive flag across a restart', async () => {
    const id = await newSession();
    await say(id, 'echo: survives');
    await api(server.url, `/api/sessions/${id}`, { method: 'PATCH', body: { title: 'Kept title', archived: true } });
    const again = await restart();
    const found = (await api<{ sessions: SessionSnapshot[] }>(again.url, '/api/sessions?archived=1')).body.sessions.find((s) => s.id === id);
    expect(found).toMatchObject({ title: 'Kept title', archived: true });
  });

  it('deletes to the trash (refused while a turn runs), restores with every event, and purges after 30 days', async () => {
    const id = await newSession();
    await say(id, 'bash: echo in-the-trash');
    const events = await eventsOf(server.url, id);

    // A running turn: delete is refused until it is cancelled.
    await api(server.url, `/api/sessions/${id}/messages`, { body: { text: 'delay: 60000' } });
    await waitForEvents(server.url, id, (es) => es.some((e) => e.kind === 'state' && e.to === 'SendingToLLM' && e.seq > events.at(-1)!.seq));
    const busy = await api<{ error: string; code: string }>(server.url, `/api/sessions/${id}`, { method: 'DELETE' });
    expect(busy.status).toBe(409);
    expect(busy.body.code).toBe('busy');
    expect(busy.body.error).toContain('cancel');
    await api(server.url, `/api/sessions/${id}/cancel`, { body: {} });
    await waitForEvents(server.url, id, (es) => idleCount(es) > idleCount(events));
    const before = await eventsOf(server.url, id);

    const deleted = await api(server.url, `/api/sessions/${id}`, { method: 'DELETE' });
    expect(deleted.status).toBe(200);
    expect((await api(server.url, `/api/sessions/${id}`)).status).toBe(404);
    expect((await list('?archived=1')).map((s) => s.id)).not.toContain(id);
    expect(fs.existsSync(path.join(server.dataDir, 'sessions', `${id}.jsonl`))).toBe(false);
    expect(fs.existsSync(path.join(server.dataDir, 'trash', id, `${id}.jsonl`))).toBe(true);
    const trash = (await api<{ sessions: TrashedSession[] }>(server.url, '/api/trash')).body.sessions;
    const entry = trash.find((t) => t.id === id)!;
    expect(entry.title).toBe('bash: echo in-the-trash');
    expect(Date.parse(entry.expiresAt) - Date.parse(entry.deletedAt)).toBe(30 * 24 * 3600 * 1000);

    const restored = await api<SessionSnapshot>(server.url, `/api/trash/${id}/restore`, { body: {} });
    expect(restored.status).toBe(200);
    expect(await eventsOf(server.url, id)).toEqual(before);
    expect((await api(server.url, `/api/trash/${id}/restore`, { body: {} })).status).toBe(404);
    // It still works.
    const after = await say(id, 'echo: back again');
    expect(after.some((e) => e.kind === 'agent' && e.text === 'back again')).toBe(true);

    // An entry older than 30 days is purged when the server starts.
    await api(server.url, `/api/sessions/${id}`, { method: 'DELETE' });
    const note = path.join(server.dataDir, 'trash', id, 'trash.json');
    const old = { ...JSON.parse(fs.readFileSync(note, 'utf8')), deletedAt: new Date(Date.now() - 31 * 24 * 3600 * 1000).toISOString() };
    fs.writeFileSync(note, JSON.stringify(old));
    const again = await restart();
    expect(fs.existsSync(path.join(again.dataDir, 'trash', id))).toBe(false);
    expect(again.warnings.join('\n')).toContain(`purged session ${id}`);
  });

  it('exports the JSONL log byte for byte and a Markdown transcript with tool calls and compaction summaries', async () => {
    const id = await newSession();
    await say(id, 'echo: hello transcript');
    await say(id, 'big: 400');
    for (const word of ['alpha', 'beta', 'gamma', 'delta']) await say(id, `echo: ${word}`);
    await say(id, '/compact keep the numbers');
    const file = path.join(server.dataDir, 'sessions', `${id}.jsonl`);
    const res = await fetch(`${server.url}/api/sessions/${id}/export?format=jsonl`, { headers: authHeaders(server.url) });
    expect(res.headers.get('content-disposition')).toContain(`${id}.jsonl`);
    expect(Buffer.from(await res.arrayBuffer()).equals(fs.readFileSync(file))).toBe(true);

    const md = await fetch(`${server.url}/api/sessions/${id}/export?format=md`, { headers: authHeaders(server.url) });
    expect(md.headers.get('content-type')).toContain('text/markdown');
    const text = await md.text();
    const events = await eventsOf(server.url, id);
    const compaction = events.find((e) => e.kind === 'compaction' && e.phase === 'finished');
    expect(compaction).toBeDefined();
    expect(compaction!.kind === 'compaction' && compaction!.summary).toBeTruthy();
    expect(text).toContain('# echo: hello transcript');
    expect(text).toContain('## User\n\necho: hello transcript');
    expect(text).toContain('## Agent (predictable)\n\nhello transcript');
    expect(text).toMatch(/\*\*Tool `bash`\*\* `+ \{"command":"yes/);
    // Trimmed: 40 lines of output, 20 shown and a note.
    expect(text).toMatch(/… \(41 lines, \d+ more characters not shown\)/);
    expect(text.split('the quick brown fox').length - 1).toBeLessThan(30);
    expect(text).toContain('### Compaction (manual');
    expect(text).toContain(`> ${compaction!.kind === 'compaction' && compaction!.summary!.trim().split('\n')[0]}`);
    expect(text).not.toContain('"kind":"state"');
    expect((await api(server.url, `/api/sessions/${id}/export?format=pdf`)).status).toBe(400);
  });

  it('forks from an event: the first request holds exactly the history up to it, and the original log is byte-identical', async () => {
    const requests: LlmRequest[] = [];
    const stop = observePredictableRequests((r) => r.purpose === 'turn' && requests.push(structuredClone(r)));
    try {
      const id = await newSession();
      await say(id, 'echo: one');
      await say(id, 'bash: echo two-output');
      const forkPoint = (await eventsOf(server.url, id)).filter((e) => e.kind === 'agent').at(-1)!.seq;
      await say(id, 'echo: three-after-fork-point');
      const file = path.join(server.dataDir, 'sessions', `${id}.jsonl`);
      const hash = sha(file);
      const original = await eventsOf(server.url, id);

      const forked = await api<{ id: string }>(server.url, `/api/sessions/${id}/fork`, { body: { seq: forkPoint } });
      expect(forked.status).toBe(201);
      const forkId = forked.body.id;
      expect(forkId).not.toBe(id);
      expect(sha(file)).toBe(hash);
      const snapshot = (await api<SessionSnapshot>(server.url, `/api/sessions/${forkId}`)).body;
      expect(snapshot.forkOf).toEqual({ session: id, seq: forkPoint });
      expect(snapshot.title).toBe('↳ from message 2');
      // The copy: every event up to the fork point, seqs and times kept.
      const forkEvents = await eventsOf(server.url, forkId);
      expect(forkEvents.filter((e) => e.seq <= forkPoint)).toEqual(original.filter((e) => e.seq <= forkPoint));

      await say(forkId, 'echo: first-in-fork');
      expect(sha(file)).toBe(hash);
      expect(await eventsOf(server.url, id)).toEqual(original);
      const forkFirst = requests.find((r) => r.messages.at(-1)?.content === 'echo: first-in-fork')!;
      const originalThird = requests.find((r) => r.messages.at(-1)?.content === 'echo: three-after-fork-point')!;
      expect(forkFirst).toBeDefined();
      // The original's request for its third message carried the same history (up to the fork point) before it.
      expect(forkFirst.messages.slice(0, -1)).toEqual(originalThird.messages.slice(0, -1));
      expect(forkFirst.messages.map((m) => m.content)).toContain('echo: one');
      expect(JSON.stringify(forkFirst.messages)).toContain('two-output');
      expect(JSON.stringify(forkFirst.messages)).not.toContain('three-after-fork-point');
    } finally {
      stop();
    }
  });

  it('forks inside a turn: the copied turn is closed in the fork only', async () => {
    const id = await newSession();
    const events = await say(id, 'bash: echo mid-turn');
    const call = events.find((e) => e.kind === 'tool_call')!;
    const file = path.join(server.dataDir, 'sessions', `${id}.jsonl`);
    const hash = sha(file);
    const forked = await api<{ id: string }>(server.url, `/api/sessions/${id}/fork`, { body: { seq: call.seq } });
    expect(forked.status).toBe(201);
    const forkEvents = await eventsOf(server.url, forked.body.id);
    expect(forkEvents.at(-1)).toMatchObject({ kind: 'state', to: 'WaitingForUserInput' });
    expect(forkEvents.find((e) => e.kind === 'tool_result')).toMatchObject({ callId: (call as { callId: string }).callId, isError: true });
    expect(sha(file)).toBe(hash);
    const after = await say(forked.body.id, 'echo: fork works');
    expect(after.some((e) => e.kind === 'agent' && e.text === 'fork works')).toBe(true);
    // A fork point that is no event, or no number, is refused.
    expect((await api(server.url, `/api/sessions/${id}/fork`, { body: { seq: 10_000 } })).status).toBe(400);
    expect((await api(server.url, `/api/sessions/${id}/fork`, { body: { seq: 'x' } })).status).toBe(400);
    expect((await api(server.url, `/api/sessions/${id}/fork`, { body: { seq: 0 } })).status).toBe(400);
  });

  it('pushes every session\'s state and title to the list channel, including the end of a compaction', async () => {
    const id = await newSession();
    await say(id, 'echo: listed live');
    const frames: SessionListFrame[] = [];
    const ws = new WebSocket(`${server.url.replace('http', 'ws')}/ws/sessions`, { headers: authHeaders(server.url) });
    ws.on('message', (data) => frames.push(JSON.parse(data.toString()) as SessionListFrame));
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const until = async (check: () => boolean, what: string) => {
      const deadline = Date.now() + 30_000;
      while (!check()) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(frames.slice(-3))}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    await until(() => frames[0]?.type === 'sessions', 'the whole list');
    expect(frames[0]!.type === 'sessions' && frames[0]!.sessions.some((s) => s.id === id)).toBe(true);
    const ofSession = () => frames.flatMap((f) => (f.type === 'session' && f.session.id === id ? [f.session] : []));

    // Something worth folding: a compaction of a few words calls no summariser and ends before Compacting is seen.
    await say(id, 'big: 900');
    await api(server.url, `/api/sessions/${id}/messages`, { body: { text: '/compact delay: 300' } });
    await until(() => ofSession().some((s) => s.state === 'Compacting'), 'Compacting');
    await until(() => ofSession().at(-1)?.state === 'WaitingForUserInput', 'the compaction to finish');
    await api(server.url, `/api/sessions/${id}`, { method: 'PATCH', body: { title: 'Renamed live' } });
    await until(() => ofSession().at(-1)?.title === 'Renamed live', 'the new title');
    await api(server.url, `/api/sessions/${id}`, { method: 'DELETE' });
    await until(() => frames.some((f) => f.type === 'session_removed' && f.id === id), 'the removal');
    // Without the token the channel is refused.
    const refused = await new Promise<number>((resolve) => {
      const bad = new WebSocket(`${server.url.replace('http', 'ws')}/ws/sessions`);
      bad.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      bad.on('open', () => resolve(101));
    });
    expect(tokenFor(server.url)).toBeDefined();
    expect(refused).toBe(401);
    ws.close();
  });
});
