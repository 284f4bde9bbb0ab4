// Forks belong to their conversation (issue 39, item 5): a fork records where
// it came from, and its title says what differs from its origin (where it
// branched off, the message it edited, its first own message), never
// "… (fork) (fork)". A rename still wins. The titles read the same from a
// loaded session and from a scan of the logs (a restart without the index).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionSnapshot, SkeinEvent } from '../../shared/protocol.js';
import { api, startTestServer, type TestServer } from '../helpers/server.js';
import { eventsOf, waitForEvents } from '../helpers/ui.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
});

const idleCount = (events: SkeinEvent[]) => events.filter((e) => e.kind === 'state' && e.to === 'WaitingForUserInput').length;

async function say(id: string, text: string): Promise<SkeinEvent[]> {
  const before = idleCount(await eventsOf(server.url, id));
  expect((await api(server.url, `/api/sessions/${id}/messages`, { body: { text } })).status).toBe(202);
  return waitForEvents(server.url, id, (es) => idleCount(es) > before, 60_000);
}

async function fork(id: string, seq: number, edit?: boolean): Promise<string> {
  const res = await api<{ id: string }>(server.url, `/api/sessions/${id}/fork`, { body: { seq, ...(edit && { edit }) } });
  expect(res.status).toBe(201);
  return res.body.id;
}

const snapshot = async (id: string) => (await api<SessionSnapshot>(server.url, `/api/sessions/${id}`)).body;
const titles = async () => new Map((await api<{ sessions: SessionSnapshot[] }>(server.url, '/api/sessions')).body.sessions.map((s) => [s.id, s.title]));

describe('fork titles', () => {
  it('say what differs, never "(fork) (fork)"; a rename wins; the same after a restart that rescans the logs', async () => {
    const id = (await api<{ id: string }>(server.url, '/api/sessions', { body: {} })).body.id;
    await say(id, 'echo: the first question');
    const second = await say(id, 'echo: the second question');
    const end = second.at(-1)!.seq;
    const secondMessage = second.filter((e) => e.kind === 'user').at(-1)!.seq;

    // A plain fork: where it branched off (two messages copied).
    const plain = await fork(id, end);
    expect(await snapshot(plain)).toMatchObject({ title: '↳ from message 2', forkOf: { session: id, seq: end } });
    expect((await snapshot(plain)).customTitle).toBeUndefined();
    // A fork of the fork: its own title, not "(fork) (fork)", pointing at its own parent.
    const forkOfFork = await fork(plain, end);
    expect(await snapshot(forkOfFork)).toMatchObject({ title: '↳ from message 2', forkOf: { session: plain, seq: end } });
    // Once the fork says something of its own, that is its title.
    await say(plain, 'echo: a different road\nwith a second line');
    expect((await snapshot(plain)).title).toBe('↳ echo: a different road');

    // Edit and resend: the fork just before the second message, then the new text.
    const edited = await fork(id, secondMessage - 1, true);
    expect(await snapshot(edited)).toMatchObject({ title: '↳ editing message 2', forkOf: { session: id, seq: secondMessage - 1, edit: true } });
    await say(edited, 'echo: the second question, asked better');
    expect((await snapshot(edited)).title).toBe('↳ edited: echo: the second question, asked better');

    // A rename wins; an empty one goes back to what differs.
    await api(server.url, `/api/sessions/${forkOfFork}`, { method: 'PATCH', body: { title: 'Try the other parser' } });
    expect((await snapshot(forkOfFork)).title).toBe('Try the other parser');

    const before = await titles();
    expect([...before.values()].filter((t) => t.includes('(fork)'))).toEqual([]);
    expect(before.get(id)).toBe('echo: the first question');

    // The logs scanned again (no index): the same titles.
    await server.close();
    fs.rmSync(path.join(server.dataDir, 'sessions', 'index.json'), { force: true });
    fs.rmSync(path.join(server.dataDir, 'sessions', 'index.journal'), { force: true });
    server = await startTestServer({}, { dataDir: server.dataDir, workDir: server.workDir });
    await expect.poll(titles, { timeout: 30_000 }).toEqual(before);
    await api(server.url, `/api/sessions/${forkOfFork}`, { method: 'PATCH', body: { title: '' } });
    expect((await snapshot(forkOfFork)).title).toBe('↳ from message 2');
  });

  it('refuses an "edit" that is not true or false', async () => {
    const id = (await api<{ id: string }>(server.url, '/api/sessions', { body: {} })).body.id;
    await say(id, 'echo: hello');
    const res = await api<{ error: string }>(server.url, `/api/sessions/${id}/fork`, { body: { seq: 1, edit: 'yes' } });
    expect(res.status).toBe(400);
    expect(res.body.error).toContain('"edit" must be true or false');
  });
});

describe('edit forks', () => {
  it('must fork just before a user message: any other point is a 400 that names it, and nothing is created', async () => {
    const id = (await api<{ id: string }>(server.url, '/api/sessions', { body: {} })).body.id;
    await say(id, 'echo: the first question');
    const events = await say(id, 'echo: the second question');
    const message = events.filter((e) => e.kind === 'user').at(-1)!.seq;
    const end = events.at(-1)!.seq;
    const listed = async () => (await api<{ sessions: SessionSnapshot[] }>(server.url, '/api/sessions')).body.sessions.length;
    const count = await listed();
    // The session's end (nothing follows), and a point followed by the model's answer or a state change, not a message.
    for (const seq of [end, message, end - 1]) {
      const next = events.find((e) => e.seq === seq + 1);
      expect(next?.kind).not.toBe('user');
      const res = await api<{ error: string }>(server.url, `/api/sessions/${id}/fork`, { body: { seq, edit: true } });
      expect(res.status, `edit fork at ${seq}`).toBe(400);
      expect(res.body.error).toContain('must be a user message');
      expect(res.body.error).toContain(next ? `a ${next.kind} event` : 'the end of the session');
    }
    expect(await listed()).toBe(count);
    // On the JSONL store, no log file was written either (the PostgreSQL run has no files to count).
    if (process.env.SKEIN_TEST_STORE !== 'postgres') {
      expect(fs.readdirSync(path.join(server.dataDir, 'sessions')).filter((f) => f.endsWith('.jsonl'))).toHaveLength(count);
    }
    // The same points stay fine for a plain fork, and just before the message for an edit.
    expect((await api(server.url, `/api/sessions/${id}/fork`, { body: { seq: end } })).status).toBe(201);
    expect(message).toBeGreaterThan(1);
    expect((await api(server.url, `/api/sessions/${id}/fork`, { body: { seq: message - 1, edit: true } })).status).toBe(201);
  });
});
