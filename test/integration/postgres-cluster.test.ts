// Several skein instances on one PostgreSQL database (a real temporary
// cluster): a client on any instance sees every event live; a message posted
// to any instance reaches the one that runs the session; concurrent posts to
// both keep the seqs gap-free; kill -9 of the owner mid-turn, and the other
// instance takes the session over within seconds, loses no acknowledged
// event and carries on; an instance that cannot reach a session's folder
// keeps it read-only and says why.
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { SessionSnapshot, SkeinEvent } from '../../shared/protocol.js';
import { startChildServer, type ChildServer } from '../helpers/child-server.js';
import { startTempPostgres, type TempPostgres } from '../helpers/postgres.js';
import { api, startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { TestClient } from '../helpers/ws-client.js';
import { until } from '../helpers/until.js';

// Short, so failover tests are quick; long enough that a loaded machine's late heartbeat is not taken for a death.
const LEASE = '3000';
let postgres: TempPostgres;
beforeAll(async () => {
  postgres = await startTempPostgres();
}, 180_000);
afterAll(() => postgres?.stop());

const servers: TestServer[] = [];
const children: ChildServer[] = [];
const clients: TestClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  for (const s of servers.splice(0)) await s.close();
  for (const c of children.splice(0)) await c.kill();
});

async function instance(url: string, workDir: string): Promise<TestServer> {
  const server = await startTestServer({ SKEIN_DATABASE_URL: url, SKEIN_LEASE_TIMEOUT_MS: LEASE }, { workDir });
  servers.push(server);
  return server;
}

async function newSession(base: string, body: Record<string, unknown> = {}): Promise<string> {
  const { status, body: created } = await api<{ id: string; error?: string }>(base, '/api/sessions', { body });
  expect(status, created.error).toBe(201);
  return created.id;
}

async function connect(base: string, id: string): Promise<TestClient> {
  const client = await TestClient.connect(base, id);
  clients.push(client);
  return client;
}

const snapshot = async (base: string, id: string) => (await api<SessionSnapshot>(base, `/api/sessions/${id}`)).body;
const answered = (events: readonly SkeinEvent[], text: string) => events.some((e) => e.kind === 'agent' && e.text === text);

async function rows(url: string, id: string): Promise<SkeinEvent[]> {
  const pool = new pg.Pool({ connectionString: url });
  try {
    return (await pool.query<{ line: string }>('SELECT line FROM skein_events WHERE session = $1 ORDER BY seq', [id])).rows.map((r) => JSON.parse(r.line) as SkeinEvent);
  } finally {
    await pool.end();
  }
}

describe('several instances on one database', () => {
  it('a client on either instance sees every event live, and a message posted to either reaches the one that runs the session', async () => {
    const url = await postgres.database();
    const work = tempDir('work');
    const a = await instance(url, work);
    const b = await instance(url, work);
    const id = await newSession(a.url);
    // B hears of the new session and shows it as run elsewhere.
    const onB = await until(async () => (await api<SessionSnapshot>(b.url, `/api/sessions/${id}`)).status === 200 && snapshot(b.url, id), 'B to know the session');
    expect(onB.runsElsewhere).toMatch(/runs on instance/);
    expect((await snapshot(a.url, id)).runsElsewhere).toBeUndefined();
    const clientA = await connect(a.url, id);
    const clientB = await connect(b.url, id);

    expect((await api(b.url, `/api/sessions/${id}/messages`, { body: { text: 'echo: posted to B' } })).status).toBe(202);
    await until(() => answered(clientA.events, 'posted to B') && answered(clientB.events, 'posted to B'), 'both clients to see the answer');
    clientB.send({ type: 'user_message', text: 'bash: echo typed on B' });
    await until(() => clientA.events.some((e) => e.kind === 'tool_result' && e.output.includes('typed on B')), 'the forwarded frame to run');
    expect((await api(a.url, `/api/sessions/${id}/messages`, { body: { text: 'echo: posted to A' } })).status).toBe(202);
    await until(() => answered(clientB.events, 'posted to A'), 'B to see what A answered');
    await until(() => clientA.events.at(-1)?.seq === clientB.events.at(-1)?.seq && clientA.events.at(-1)?.kind === 'state', 'both to be at the turn end');

    // What only the instance that runs it can do is refused on the copy, with where to do it; nothing is written.
    const before = (await rows(url, id)).length;
    const switched = await api<{ error: string }>(b.url, `/api/sessions/${id}/model`, { body: { model: 'predictable', effort: 'low' } });
    expect(switched.status).toBe(409);
    expect(switched.body.error).toMatch(/runs on instance .*: switch its model there/);
    const deleted = await api<{ error: string }>(b.url, `/api/sessions/${id}`, { method: 'DELETE' });
    expect(deleted.status).toBe(409);
    expect((await rows(url, id)).length).toBe(before);
    expect((await snapshot(a.url, id)).state).toBe('WaitingForUserInput');

    // The same events, in the same order, with the same seqs, on both; and in the table.
    const key = (e: SkeinEvent) => `${e.seq} ${e.kind}`;
    expect(clientB.events.map(key)).toEqual(clientA.events.map(key));
    expect((await rows(url, id)).map(key)).toEqual(clientA.events.map(key));
    // The forwarded message says where it came from (its inbox row); the one posted to A does not.
    const users = clientA.events.filter((e): e is Extract<SkeinEvent, { kind: 'user' }> => e.kind === 'user');
    expect(users.map((u) => [u.text, u.inbox !== undefined])).toEqual([
      ['echo: posted to B', true],
      ['bash: echo typed on B', true],
      ['echo: posted to A', false],
    ]);

    // Deleted on the instance that runs it: gone from the other one too, and its page is told so.
    expect((await api(a.url, `/api/sessions/${id}`, { method: 'DELETE' })).status).toBe(200);
    await until(async () => (await api(b.url, `/api/sessions/${id}`)).status === 404, 'B to drop the deleted session');
    await until(() => clientB.closed, "B's socket to close");
    expect((await api<{ sessions: { id: string }[] }>(b.url, '/api/sessions')).body.sessions.some((s) => s.id === id)).toBe(false);
  }, 120_000);

  it('concurrent posts to both instances: every message once, seqs gap-free', async () => {
    const url = await postgres.database();
    const work = tempDir('work');
    const a = await instance(url, work);
    const b = await instance(url, work);
    const id = await newSession(b.url);
    await until(async () => (await api(a.url, `/api/sessions/${id}`)).status === 200, 'A to know the session');
    const texts = Array.from({ length: 12 }, (_, i) => `echo: message ${i}`);
    const statuses = await Promise.all(texts.map((text, i) => api([a, b][i % 2]!.url, `/api/sessions/${id}/messages`, { body: { text } }).then((r) => r.status)));
    expect(statuses.every((s) => s === 202)).toBe(true);
    // Messages that arrive during a turn join the next request together (the offline model answers the last): all are in, the agent idle.
    const users = (events: SkeinEvent[]) => events.filter((e) => e.kind === 'user').map((e) => (e as { text: string }).text);
    let seen = '';
    const all = await until(async () => {
      const events = await rows(url, id);
      const state = (await snapshot(a.url, id)).state;
      seen = `${users(events).length} user events, last ${JSON.stringify(events.at(-1))}, A says ${state}`;
      return users(events).length === texts.length && events.at(-1)?.kind === 'state' && state === 'WaitingForUserInput' && events;
    }, 'every message in and the agent idle', 60_000).catch((err: Error) => {
      throw new Error(`${err.message}: ${seen}`);
    });
    expect(all.map((e) => e.seq)).toEqual(all.map((_, i) => i + 1));
    expect([...users(all)].sort()).toEqual([...texts].sort());
    expect(answered(all, users(all).at(-1)!.slice('echo: '.length))).toBe(true);
  }, 120_000);

  it('kill -9 of the owner mid-turn: the other instance takes over within seconds, loses no acknowledged event, and carries on', async () => {
    const url = await postgres.database();
    const work = tempDir('work');
    const owner = await startChildServer({ SKEIN_DATABASE_URL: url, SKEIN_LEASE_TIMEOUT_MS: LEASE, SKEIN_DATA_DIR: tempDir('data'), SKEIN_WORKDIR: work });
    children.push(owner);
    const b = await instance(url, work);
    const id = await newSession(owner.url);
    await until(async () => (await api(b.url, `/api/sessions/${id}`)).status === 200, 'B to know the session');
    const watcher = await connect(b.url, id);
    expect((await api(owner.url, `/api/sessions/${id}/messages`, { body: { text: 'echo: before' } })).status).toBe(202);
    await until(() => answered(watcher.events, 'before'), 'the first answer');
    // A turn that will not finish by itself, then a message acknowledged by B while it runs.
    expect((await api(b.url, `/api/sessions/${id}/messages`, { body: { text: 'delay: 600000' } })).status).toBe(202);
    const long = await until(() => watcher.events.find((e) => e.kind === 'user' && e.text === 'delay: 600000'), 'the long turn\'s message');
    await until(() => watcher.events.some((e) => e.kind === 'state' && e.to === 'SendingToLLM' && e.seq > long.seq), 'the long turn to start');
    expect((await api(b.url, `/api/sessions/${id}/messages`, { body: { text: 'echo: queued during the turn' } })).status).toBe(202);
    const acknowledged = await rows(url, id);
    const killedAt = Date.now();
    await owner.kill('SIGKILL');

    // B takes the lease, closes the interrupted turn, and its client is told to reconnect (and resumes).
    await until(async () => (await snapshot(b.url, id)).runsElsewhere === undefined, 'B to run the session', 30_000);
    const tookOverMs = Date.now() - killedAt;
    expect(tookOverMs).toBeLessThan(15_000);
    const after = await until(async () => {
      const events = await rows(url, id);
      return events.some((e) => e.kind === 'state' && e.to === 'Error' && /interrupted/.test(e.reason)) && events;
    }, 'the interrupted turn to be closed');
    // Nothing acknowledged before the kill is lost, and nothing is duplicated or skipped.
    expect(after.slice(0, acknowledged.length)).toEqual(acknowledged);
    expect(after.map((e) => e.seq)).toEqual(after.map((_, i) => i + 1));
    // The message acknowledged during the turn (in the table, or still in the inbox when the owner died) is there exactly once.
    const queued = await until(async () => {
      const events = await rows(url, id);
      return events.some((e) => e.kind === 'user' && e.text === 'echo: queued during the turn') && events;
    }, 'the queued message in the log');
    expect(queued.filter((e) => e.kind === 'user' && e.text === 'echo: queued during the turn')).toHaveLength(1);
    expect((await api(b.url, `/api/sessions/${id}/messages`, { body: { text: 'echo: after the takeover' } })).status).toBe(202);
    await until(async () => answered(await rows(url, id), 'after the takeover'), 'an answer from the new owner');
  }, 120_000);

  it('fencing: an owner whose lease another instance took (it looked dead) notices on its own, stops writing and becomes a copy; nothing is lost or doubled', async () => {
    const url = await postgres.database();
    const work = tempDir('work');
    const a = await instance(url, work);
    const b = await instance(url, work);
    const id = await newSession(a.url);
    await until(async () => (await api(b.url, `/api/sessions/${id}`)).status === 200, 'B to know the session');
    expect((await api(a.url, `/api/sessions/${id}/messages`, { body: { text: 'echo: on A' } })).status).toBe(202);
    await until(async () => answered(await rows(url, id), 'on A'), 'the first answer');
    // What a takeover after a stall leaves behind: the lease names B while A still runs the session.
    const pool = new pg.Pool({ connectionString: url });
    try {
      const owner = (await pool.query<{ owner: string }>('SELECT owner FROM skein_leases WHERE session = $1', [id])).rows[0]!.owner;
      const other = (await pool.query<{ id: string }>('SELECT id FROM skein_instances WHERE id <> $1', [owner])).rows[0]!.id;
      // No notification: each instance finds out at its own next heartbeat, as after a real stall.
      await pool.query('UPDATE skein_leases SET owner = $2 WHERE session = $1', [id, other]);
    } finally {
      await pool.end();
    }
    // Posted while A may still believe it runs the session: stored once and acknowledged, or refused (409) and absent.
    const racing = await api<{ error?: string }>(a.url, `/api/sessions/${id}/messages`, { body: { text: 'echo: posted in the race' } });
    expect([202, 409]).toContain(racing.status);
    await until(async () => (await snapshot(a.url, id)).runsElsewhere?.startsWith('runs on instance') && (await snapshot(b.url, id)).runsElsewhere === undefined && true, 'A to step down and B to run it');
    expect((await api(a.url, `/api/sessions/${id}/messages`, { body: { text: 'echo: posted to A after' } })).status).toBe(202);
    const all = await until(async () => {
      const events = await rows(url, id);
      return answered(events, 'posted to A after') && events;
    }, 'B to answer what A forwarded');
    expect(all.map((e) => e.seq)).toEqual(all.map((_, i) => i + 1));
    const users = all.filter((e) => e.kind === 'user').map((e) => (e as { text: string }).text);
    expect(users).toEqual(racing.status === 202 ? ['echo: on A', 'echo: posted in the race', 'echo: posted to A after'] : ['echo: on A', 'echo: posted to A after']);
  }, 120_000);

  it('an instance that cannot reach the session\'s folder keeps it read-only and says why; one that can takes it over', async () => {
    const url = await postgres.database();
    const rootA = tempDir('root-a');
    const folder = path.join(rootA, 'project');
    fs.mkdirSync(folder);
    const a = await instance(url, rootA);
    const b = await instance(url, tempDir('root-b'));
    const id = await newSession(a.url, { folder });
    await until(async () => (await api(b.url, `/api/sessions/${id}`)).status === 200, 'B to know the session');
    // While A runs it, B forwards.
    expect((await api(b.url, `/api/sessions/${id}/messages`, { body: { text: 'echo: via B' } })).status).toBe(202);
    await until(async () => answered(await rows(url, id), 'via B'), 'the forwarded message answered');

    // A stops: B cannot reach the folder, so nobody runs the session; B says so and refuses posts.
    await a.close();
    servers.splice(servers.indexOf(a), 1);
    const readOnly = await until(async () => (await snapshot(b.url, id)).readOnly, 'B to say it is read-only');
    expect(readOnly).toContain(folder);
    const refused = await api<{ error: string }>(b.url, `/api/sessions/${id}/messages`, { body: { text: 'echo: nobody runs this' } });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toContain(folder);
    expect((await rows(url, id)).some((e) => e.kind === 'user' && e.text === 'echo: nobody runs this')).toBe(false);

    // An instance that can reach it takes it over, and B forwards again.
    await instance(url, rootA);
    await until(async () => (await snapshot(b.url, id)).runsElsewhere?.startsWith('runs on instance'), 'the new instance to run it');
    expect((await api(b.url, `/api/sessions/${id}/messages`, { body: { text: 'echo: back' } })).status).toBe(202);
    await until(async () => answered(await rows(url, id), 'back'), 'an answer from the new owner');
  }, 120_000);
});
