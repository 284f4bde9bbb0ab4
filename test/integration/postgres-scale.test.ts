// The PostgreSQL store at scale (issue 26): the list comes from the
// summaries table, written with the events it describes, so a start reads no
// event; a database from before that table is migrated and its list built
// once, one session at a time; GET /events is cut by seq in SQL without
// loading the session; an instance reads the rows only of the sessions it has
// open (the others are listed from their summary rows).
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { SessionSnapshot, SkeinEvent } from '../../shared/protocol.js';
import { startTempPostgres, type TempPostgres } from '../helpers/postgres.js';
import { api, startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';
import { insertBigSession, insertSessions } from '../helpers/pg-sessions.js';

let postgres: TempPostgres;
beforeAll(async () => {
  postgres = await startTempPostgres();
}, 180_000);
afterAll(() => postgres?.stop());

const servers: TestServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

async function start(url: string, dataDir = tempDir('pg-scale'), env: Record<string, string> = {}): Promise<TestServer> {
  const server = await startTestServer({ SKEIN_DATABASE_URL: url, SKEIN_APPROVAL: 'never', ...env }, { dataDir });
  servers.push(server);
  return server;
}

async function stop(server: TestServer): Promise<void> {
  servers.splice(servers.indexOf(server), 1);
  await server.close();
}

async function sql<T extends pg.QueryResultRow>(url: string, text: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text, params)).rows;
  } finally {
    await client.end();
  }
}

const list = async (base: string) => (await api<{ sessions: SessionSnapshot[] }>(base, '/api/sessions')).body.sessions;
/** What a list entry must keep across restarts and upgrades. */
const shown = (s: SessionSnapshot) => ({ id: s.id, title: s.title, mode: s.mode, state: s.state, lastSeq: s.lastSeq, lastActivity: s.lastActivity, tokens: s.gauge.totalTokens });
const byId = (rows: SessionSnapshot[]) => rows.map(shown).sort((a, b) => a.id.localeCompare(b.id));

/** Three sessions with answered messages; the second switched to plan mode. */
async function makeSessions(server: TestServer): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) {
    const id = (await api<{ id: string }>(server.url, '/api/sessions', { body: {} })).body.id;
    expect((await api(server.url, `/api/sessions/${id}/messages`, { body: { text: `echo: answer number ${i}` } })).status).toBe(202);
    await until(async () => {
      const events = (await api<{ events: SkeinEvent[] }>(server.url, `/api/sessions/${id}/events`)).body.events;
      return events.some((e) => e.kind === 'agent' && e.text === `answer number ${i}`) && events.at(-1)?.kind === 'state';
    }, `session ${i} answered`);
    ids.push(id);
  }
  expect((await api(server.url, `/api/sessions/${ids[1]}/mode`, { method: 'PUT', body: { mode: 'plan' } })).status).toBe(200);
  await until(async () => (await api<{ events: SkeinEvent[] }>(server.url, `/api/sessions/${ids[1]}/events`)).body.events.some((e) => e.kind === 'mode'), 'the mode event committed');
  return ids;
}

describe('PostgreSQL at scale', () => {
  it('writes each summary with its events; a restart lists every session from the summaries, reading no event', async () => {
    const url = await postgres.database();
    const dataDir = tempDir('pg-scale');
    let server = await start(url, dataDir);
    const ids = await makeSessions(server);
    const before = byId(await list(server.url));
    // Each summary describes exactly what is committed (same transaction).
    const rows = await sql<{ id: string; committed: string; summarized: string; mode: string | null }>(url, 'SELECT s.id, s.last_seq AS committed, m.last_seq AS summarized, m.mode FROM skein_sessions s JOIN skein_summaries m ON m.session = s.id ORDER BY s.id');
    expect(rows.map((r) => r.id)).toEqual([...ids].sort());
    for (const row of rows) expect(row.summarized).toBe(row.committed);
    expect(rows.find((r) => r.id === ids[1])?.mode).toBe('plan');
    await stop(server);

    server = await start(url, dataDir);
    expect(server.sessions.logsLoaded).toBe(0);
    expect([...server.sessions.store!.rowsRead.values()].reduce((a, b) => a + b, 0)).toBe(0);
    expect(byId(await list(server.url))).toEqual(before);
    expect(ids.every((id) => !server.sessions.isLoaded(id))).toBe(true);

    // GET /events is cut by seq in SQL: the session is not loaded for it, and the pages are the log's.
    const all = await sql<{ line: string }>(url, 'SELECT line FROM skein_events WHERE session = $1 ORDER BY seq', [ids[0]]);
    const events = all.map((r) => JSON.parse(r.line) as SkeinEvent);
    const last = events.at(-1)!.seq;
    const tail = (await api<{ events: SkeinEvent[]; more: boolean }>(server.url, `/api/sessions/${ids[0]}/events?before=${last}&limit=2`)).body;
    expect(tail).toEqual({ events: events.filter((e) => e.seq < last).slice(-2), more: true });
    const head = (await api<{ events: SkeinEvent[]; more: boolean }>(server.url, `/api/sessions/${ids[0]}/events?since=1&limit=3`)).body;
    expect(head).toEqual({ events: events.filter((e) => e.seq > 1).slice(0, 3), more: events.length > 4 });
    const whole = (await api<{ events: SkeinEvent[]; more: boolean }>(server.url, `/api/sessions/${ids[0]}/events`)).body;
    expect(whole).toEqual({ events, more: false });
    expect((await api(server.url, '/api/sessions/no-such-session/events?limit=2')).status).toBe(404);
    expect(server.sessions.isLoaded(ids[0]!)).toBe(false);
    expect(server.sessions.logsLoaded).toBe(0);

    // Opening one session reads its rows, and only its.
    expect((await api<SessionSnapshot>(server.url, `/api/sessions/${ids[2]}`)).body.mode).toBe('never');
    expect(server.sessions.logsLoaded).toBe(1);
    expect([...server.sessions.store!.rowsRead.keys()]).toEqual([ids[2]]);
  }, 180_000);

  it('migrates a database made with the old schema and builds its list once from the events, starting no session', async () => {
    const url = await postgres.database();
    const dataDir = tempDir('pg-scale');
    let server = await start(url, dataDir);
    const ids = await makeSessions(server);
    const before = byId(await list(server.url));
    await stop(server);
    // The schema as version 2 left it: no summaries, no lease revisions.
    await sql(url, "DROP TABLE skein_summaries; ALTER TABLE skein_leases DROP COLUMN rev; DROP SEQUENCE skein_lease_rev; DELETE FROM skein_migrations WHERE version = 3");
    expect(await sql(url, "SELECT 1 FROM information_schema.tables WHERE table_name = 'skein_summaries'")).toEqual([]);

    server = await start(url, dataDir);
    expect((await sql<{ version: number }>(url, 'SELECT version FROM skein_migrations ORDER BY version')).map((r) => r.version)).toEqual([1, 2, 3]);
    // Built while the list is served (as the JSONL first scan): done once `scanning` is gone.
    await until(async () => (await api<{ scanning?: unknown }>(server.url, '/api/sessions')).body.scanning === undefined, 'the list entries built');
    // Built from the event lines, as a JSONL first start scans logs: no session started, none kept.
    expect(server.sessions.logsLoaded).toBe(0);
    expect(ids.every((id) => !server.sessions.isLoaded(id) && !server.sessions.store!.fetched(id))).toBe(true);
    expect(byId(await list(server.url))).toEqual(before);
    const rows = await sql<{ committed: string; summarized: string }>(url, 'SELECT s.last_seq AS committed, m.last_seq AS summarized FROM skein_sessions s JOIN skein_summaries m ON m.session = s.id');
    expect(rows).toHaveLength(3);
    for (const row of rows) expect(row.summarized).toBe(row.committed);
    await stop(server);

    // The second start reads no event.
    server = await start(url, dataDir);
    expect(server.sessions.logsLoaded).toBe(0);
    expect(byId(await list(server.url))).toEqual(before);
  }, 180_000);

  it('an instance reads the rows only of the sessions it has open; the others are listed from their summaries', async () => {
    const url = await postgres.database();
    const work = tempDir('pg-scale-work');
    const a = await startTestServer({ SKEIN_DATABASE_URL: url, SKEIN_APPROVAL: 'never' }, { workDir: work });
    servers.push(a);
    const b = await startTestServer({ SKEIN_DATABASE_URL: url, SKEIN_APPROVAL: 'never' }, { workDir: work });
    servers.push(b);
    const id = (await api<{ id: string }>(a.url, '/api/sessions', { body: {} })).body.id;
    await until(async () => (await list(b.url)).some((s) => s.id === id), 'B lists the session made on A');
    expect((await api(a.url, `/api/sessions/${id}/messages`, { body: { text: 'echo: seen from B' } })).status).toBe(202);
    // B's list follows A's events (title, activity) from the summary rows.
    const onB = await until(async () => (await list(b.url)).find((s) => s.id === id && s.title === 'echo: seen from B' && s.state === 'WaitingForUserInput' && s.lastSeq > 3), 'B lists the new title');
    const committed = Number((await sql<{ last_seq: string }>(url, 'SELECT last_seq FROM skein_sessions WHERE id = $1', [id]))[0]!.last_seq);
    await until(async () => (await list(b.url)).find((s) => s.id === id)?.lastSeq === committed, 'B lists the last seq');
    expect(onB?.runsElsewhere).toBeUndefined();
    expect(b.sessions.isLoaded(id)).toBe(false);
    expect(b.sessions.store!.rowsRead.get(id) ?? 0).toBe(0);
    expect(b.sessions.store!.fetched(id)).toBe(false);
    // Opened on B, it reads them all, and runs elsewhere.
    const opened = (await api<SessionSnapshot>(b.url, `/api/sessions/${id}`)).body;
    expect(opened.runsElsewhere).toMatch(/runs on instance/);
    expect(b.sessions.store!.rowsRead.get(id)).toBe(committed);
  }, 180_000);

  it('builds the missing list entries while the list is served, and a search then reads nothing from the database', async () => {
    const url = await postgres.database();
    const dataDir = tempDir('pg-scale');
    // As an older `skein migrate --from-jsonl` leaves them: rows and events, no summary.
    const ids = await insertSessions(url, 1000, 140);
    let server = await start(url, dataDir);
    // Serving before the build is done, which says how far it got (as the JSONL first scan).
    expect(server.sessions.scanning).toMatchObject({ total: 1000 });
    // A session the build has not reached is opened all the same.
    const last = (await api<SessionSnapshot>(server.url, `/api/sessions/${ids[999]}`)).body;
    expect(last).toMatchObject({ id: ids[999], title: `question 0 of ${ids[999]}`, state: 'WaitingForUserInput' });
    await until(async () => (await api<{ scanning?: unknown }>(server.url, '/api/sessions')).body.scanning === undefined, 'the list entries built', 120_000);
    const listed = await list(server.url);
    expect(listed.map((s) => s.id).sort()).toEqual(ids);
    expect(listed.find((s) => s.id === ids[500])).toMatchObject({ title: `question 0 of ${ids[500]}`, lastSeq: 138, state: 'WaitingForUserInput' });
    // No session was started for it but the one opened; every summary describes what is committed.
    // (the build reads lines without the store's events; only an opened session's rows are counted)
    expect([...server.sessions.loaded()].map(([id]) => id)).toEqual([ids[999]]);
    expect([...server.sessions.store!.rowsRead.keys()]).toEqual([ids[999]]);
    const rows = await sql<{ committed: string; summarized: string }>(url, 'SELECT s.last_seq AS committed, m.last_seq AS summarized FROM skein_sessions s JOIN skein_summaries m ON m.session = s.id');
    expect(rows).toHaveLength(1000);
    for (const row of rows) expect(row.summarized).toBe(row.committed);
    // Each row keeps the typed text, lower-cased, a message a line (search on another data folder is fed from it).
    const [typed] = await sql<{ user_text: string; user_text_complete: boolean }>(url, 'SELECT user_text, user_text_complete FROM skein_summaries WHERE session = $1', [ids[500]]);
    expect(typed).toEqual({ user_text: Array.from({ length: 23 }, (_, turn) => `question ${turn} of ${ids[500]}`).join('\n'), user_text_complete: true });

    // A search costs no query and no row: it is answered from the search index in memory.
    const searchesRead = async (srv: TestServer) => {
      const store = srv.sessions.store!;
      const queries: string[] = [];
      const query = store.pool.query.bind(store.pool);
      store.pool.query = ((...args: Parameters<typeof query>) => {
        if (typeof args[0] === 'string' && /skein_(events|summaries|sessions)/.test(args[0])) queries.push(args[0]);
        return query(...args);
      }) as typeof query;
      const rowsBefore = [...store.rowsRead.values()].reduce((a, b) => a + b, 0);
      const found = (await api<{ sessions: SessionSnapshot[] }>(srv.url, '/api/sessions?q=zanzibar%2012')).body.sessions;
      const none = (await api<{ sessions: SessionSnapshot[] }>(srv.url, '/api/sessions?q=absentword')).body.sessions;
      store.pool.query = query;
      return { found, none, queries, rows: [...store.rowsRead.values()].reduce((a, b) => a + b, 0) - rowsBefore };
    };
    let searched = await searchesRead(server);
    expect(searched.found.map((s) => [s.id, (s as SessionSnapshot & { match?: unknown }).match])).toEqual([[ids[7], { seq: 73 }]]);
    expect(searched).toMatchObject({ none: [], queries: [], rows: 0 });
    await stop(server);

    // The next start lists from the summaries and searches as well (the typed text is in the rows), reading no event.
    server = await start(url, dataDir);
    expect(server.sessions.scanning).toBeUndefined();
    searched = await searchesRead(server);
    expect(searched.found.map((s) => s.id)).toEqual([ids[7]]);
    expect(searched).toMatchObject({ none: [], queries: [], rows: 0 });
    expect(server.sessions.logsLoaded).toBe(0);
    expect([...server.sessions.store!.rowsRead.values()].reduce((a, b) => a + b, 0)).toBe(0);
    // The search file of the data folder has every session's words: no typed text was read from the rows.
    expect(server.sessions.store!.userTextsRead).toBe(0);
    await stop(server);

    // Another data folder (no search file): the typed text of every row is read (a page of the list at a time) and searched.
    server = await start(url);
    expect(server.sessions.store!.userTextsRead).toBe(1000);
    expect((await list(server.url)).map((s) => s.id).sort()).toEqual(ids);
    searched = await searchesRead(server);
    expect(searched.found.map((s) => s.id)).toEqual([ids[7]]);
    expect(searched).toMatchObject({ none: [], queries: [], rows: 0 });
  }, 300_000);

  it('reads a big session in pages of about 2 MB when it is opened, and of about 512 KB when its list entry is built, after small sessions', async () => {
    const url = await postgres.database();
    // Small sessions first, in the same run of the build: the rows of a page are sized by theirs (154 bytes each),
    // so only the bytes counted in SQL keep the big session's page from holding all of its 20 KB lines.
    await insertSessions(url, 20, 140);
    const id = '20250101-000000-zbig00';
    const count = await insertBigSession(url, id, 8, 20);
    const server = await start(url);
    const pages: number[] = [];
    const store = server.sessions.store!;
    const query = store.pool.query.bind(store.pool);
    store.pool.query = (async (...args: Parameters<typeof query>) => {
      const result = (await query(...args)) as unknown as pg.QueryResult<{ line?: string; lines?: string; session?: string }>;
      const big = result.rows.filter((r) => r.session === undefined || r.session === id);
      if (typeof args[0] === 'string' && args[0].includes('FROM skein_events')) pages.push(big.reduce((n, r) => n + (r.line ?? r.lines ?? '').length, 0));
      return result;
    }) as typeof query;
    await until(async () => (await api<{ scanning?: unknown }>(server.url, '/api/sessions')).body.scanning === undefined, 'the list entry built');
    expect((await list(server.url)).find((s) => s.id === id)).toMatchObject({ lastSeq: count, title: expect.stringMatching(/^lorem ipsum/) });
    const built = pages.splice(0);
    // The open: every event read, in pages; no page much above 2 MB (the first is sized by rows).
    expect((await api<SessionSnapshot>(server.url, `/api/sessions/${id}`)).body.lastSeq).toBe(count);
    const opened = pages.splice(0);
    for (const [read, most] of [[built, 0.55], [opened, 2.5]] as const) {
      expect(read.length).toBeGreaterThanOrEqual(4);
      expect(read.reduce((a, b) => a + b, 0)).toBeGreaterThan(8 * 1024 * 1024);
      expect(Math.max(...read.slice(1))).toBeLessThan(most * 1024 * 1024);
    }
    expect(built.length).toBeGreaterThanOrEqual(16);
    // Its typed text is cut at the row's 8 KB and said to be.
    const [typed] = await sql<{ user_text: string; user_text_complete: boolean }>(url, 'SELECT user_text, user_text_complete FROM skein_summaries WHERE session = $1', [id]);
    expect(typed!.user_text).toHaveLength(8 * 1024);
    expect(typed!.user_text.startsWith('lorem ipsum dolor')).toBe(true);
    expect(typed!.user_text_complete).toBe(false);
    expect(store.rowsRead.get(id)).toBe(count);
    expect((await api<{ sessions: SessionSnapshot[] }>(server.url, `/api/sessions?q=part%20${count}`)).body.sessions.map((s) => [s.id, (s as SessionSnapshot & { match?: unknown }).match])).toEqual([[id, { seq: count }]]);
  }, 180_000);

  it('reads only the leases that changed at each heartbeat, not the whole table', async () => {
    const url = await postgres.database();
    const ids = await insertSessions(url, 300, 6);
    // Leased to another instance that looks alive (its heartbeat ahead): nothing for this one to take over.
    await sql(url, "INSERT INTO skein_instances (id, heartbeat_at) VALUES ('elsewhere', now() + interval '1 hour'), ('another', now() + interval '1 hour')");
    await sql(url, "INSERT INTO skein_leases (session, owner) SELECT id, 'elsewhere' FROM skein_sessions");
    const server = await start(url, tempDir('pg-scale'), { SKEIN_LEASE_TIMEOUT_MS: '1000' });
    const store = server.sessions.store!;
    const reads: number[] = [];
    const query = store.pool.query.bind(store.pool);
    store.pool.query = (async (...args: Parameters<typeof query>) => {
      const result = (await query(...args)) as unknown as pg.QueryResult;
      if (typeof args[0] === 'string' && /^SELECT session, owner, rev FROM skein_leases/.test(args[0])) reads.push(result.rows.length);
      return result;
    }) as typeof query;
    // Heartbeats every 200 ms: five of them read no lease (none changed since the one read at start).
    await until(() => reads.length >= 5, 'five heartbeats');
    expect(reads.slice(0, 5)).toEqual([0, 0, 0, 0, 0]);
    // One lease changes hands: the next heartbeat reads that row alone.
    await sql(url, "UPDATE skein_leases SET owner = 'another', rev = nextval('skein_lease_rev') WHERE session = $1", [ids[42]]);
    const seen = reads.length;
    await until(() => reads.slice(seen).some((n) => n > 0), 'the changed lease read');
    expect(reads.slice(seen).filter((n) => n > 0)).toEqual([1]);
  }, 120_000);

  it('the heartbeat asks for the inboxes of the sessions run here in one query, not one per session', async () => {
    const url = await postgres.database();
    const ids = await insertSessions(url, 40, 6);
    const server = await start(url, tempDir('pg-scale'), { SKEIN_LEASE_TIMEOUT_MS: '1000' });
    await until(async () => (await api<{ scanning?: unknown }>(server.url, '/api/sessions')).body.scanning === undefined, 'the list entries built');
    // Opened here, no other instance: each is taken (no lease yet) and runs here.
    for (const id of ids) expect((await api(server.url, `/api/sessions/${id}`)).status).toBe(200);
    await until(() => ids.every((id) => server.sessions.peek(id) && !server.sessions.peek(id)!.session.remote), 'every session run here', 60_000);
    const store = server.sessions.store!;
    const inboxQueries: string[] = [];
    const query = store.pool.query.bind(store.pool);
    store.pool.query = ((...args: Parameters<typeof query>) => {
      if (typeof args[0] === 'string' && args[0].includes('FROM skein_inbox')) inboxQueries.push(args[0]);
      return query(...args);
    }) as typeof query;
    const heartbeats = () => inboxQueries.filter((q) => q.startsWith('SELECT DISTINCT session FROM skein_inbox')).length;
    // A takeover reads the inbox of the session it took once, right after its reload: two heartbeats on, those are done.
    await until(() => heartbeats() >= 2, 'two heartbeats');
    inboxQueries.length = 0;
    await until(() => inboxQueries.length >= 5, 'five heartbeats');
    // One query a heartbeat, whatever the number of sessions run here.
    expect(inboxQueries.every((q) => q.startsWith('SELECT DISTINCT session FROM skein_inbox'))).toBe(true);
  }, 120_000);
});
