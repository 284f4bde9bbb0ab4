// The PostgreSQL event store against a real server (a temporary cluster run
// as an unprivileged user): schema by migrations, (session, seq) keys that
// refuse a duplicate or a gap, group inserts retried when refused, sessions
// that survive a restart from the database alone, import from and export to JSONL.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionSnapshot, SkeinEvent } from '../../shared/protocol.js';
import { migrate, MIGRATIONS } from '../../server/store/postgres/migrations.js';
import { insertBatch, SeqConflictError } from '../../server/store/postgres/pg-event-log.js';
import { PgStore } from '../../server/store/postgres/pg-store.js';
import { api, startTestServer, tempDir } from '../helpers/server.js';
import { startTempPostgres, type TempPostgres } from '../helpers/postgres.js';
import { sessionEvents, writeSessionLogs } from '../helpers/session-logs.js';
import { until } from '../helpers/until.js';

let postgres: TempPostgres;
beforeAll(async () => {
  postgres = await startTempPostgres();
}, 180_000);
afterAll(() => postgres?.stop());

const header = (id: string) => ({ skein: 1 as const, session: id, createdAt: new Date().toISOString(), model: 'predictable' });

describe('PostgreSQL store', () => {
  it('migrates once, and its keys refuse a duplicate seq and a gap', async () => {
    const pool = new pg.Pool({ connectionString: await postgres.database() });
    try {
      expect(await migrate(pool)).toEqual(MIGRATIONS.map((m) => m.version));
      expect(await migrate(pool)).toEqual([]);
      const events = sessionEvents({ id: 'a', events: 12 });
      await insertBatch(pool, 'a', events.slice(0, 6), header('a'));
      // A gap (7 missing) and a duplicate (6 again) are refused; nothing of them commits.
      await expect(insertBatch(pool, 'a', events.slice(7, 12))).rejects.toBeInstanceOf(SeqConflictError);
      // Another writer's seq 6 (not the event stored there) is refused; the same event again is an idempotent retry.
      const theirs = events.slice(5, 12).map((e) => ({ ...e, ts: '2000-01-01T00:00:00.000Z' }));
      await expect(insertBatch(pool, 'a', theirs)).rejects.toBeInstanceOf(SeqConflictError);
      await expect(pool.query('INSERT INTO skein_events (session, seq, line) VALUES ($1, 6, $2)', ['a', '{}'])).rejects.toThrow(/duplicate key/);
      // A retry whose earlier COMMIT went through (its answer lost) while more events joined: the committed part is
      // recognised (6 of 9), not taken for another writer; the rest then commits.
      expect(await insertBatch(pool, 'a', events.slice(0, 9))).toBe(6);
      expect(await insertBatch(pool, 'a', events.slice(6, 12))).toBe(6);
      const seqs = (await pool.query<{ seq: string }>('SELECT seq FROM skein_events WHERE session = $1 ORDER BY seq', ['a'])).rows.map((r) => Number(r.seq));
      expect(seqs).toEqual(events.map((e) => e.seq));
    } finally {
      await pool.end();
    }
  }, 120_000);

  it('groups the appends of a tick in one transaction, retries a refused insert, and drops nothing', async () => {
    const url = await postgres.database();
    const store = await PgStore.connect(url, tempDir('pg-sessions'));
    const pool = new pg.Pool({ connectionString: url });
    try {
      const log = store.create(header('s1'));
      const errors: string[] = [];
      log.onSyncError = (err) => errors.push(err.message);
      const durable: number[] = [];
      log.onDurable((upTo) => durable.push(upTo));
      for (let i = 0; i < 5; i++) log.append({ kind: 'user', text: `one tick ${i}` });
      await until(() => log.durableSeq === 5, 'the first group');
      expect(durable).toEqual([5]);
      // The database refuses events from seq 6 on: the log keeps them, reports, and retries.
      await pool.query('ALTER TABLE skein_events ADD CONSTRAINT refuse_late CHECK (seq < 6)');
      for (let i = 0; i < 3; i++) log.append({ kind: 'user', text: `refused for now ${i}` });
      await until(() => errors.length >= 2, 'two failed attempts');
      expect(errors[0]).toMatch(/refuse_late/);
      expect(log.durableSeq).toBe(5);
      await pool.query('ALTER TABLE skein_events DROP CONSTRAINT refuse_late');
      await until(() => log.durableSeq === 8, 'the retried group');
      const rows = (await pool.query<{ line: string }>('SELECT line FROM skein_events WHERE session = $1 ORDER BY seq', ['s1'])).rows;
      expect(rows.map((r) => JSON.parse(r.line) as SkeinEvent)).toEqual(log.all());
    } finally {
      await pool.end();
      await store.close();
    }
  }, 120_000);

  it('serves sessions from the database across a restart; no log file is written', async () => {
    const url = await postgres.database();
    const dataDir = tempDir('pg-data');
    let server = await startTestServer({ SKEIN_DATABASE_URL: url }, { dataDir });
    const { body } = await api<{ id: string }>(server.url, '/api/sessions', { body: {} });
    expect((await api(server.url, `/api/sessions/${body.id}/messages`, { body: { text: 'echo: kept in postgres' } })).status).toBe(202);
    const ended = async () => {
      const events = (await api<{ events: SkeinEvent[] }>(server.url, `/api/sessions/${body.id}/events`)).body.events;
      return events.some((e) => e.kind === 'agent' && e.text === 'kept in postgres') && events.at(-1)?.kind === 'state' ? events : undefined;
    };
    const before = (await until(ended, 'the answer'))!;
    await server.close();
    expect(fs.existsSync(path.join(dataDir, 'sessions', `${body.id}.jsonl`))).toBe(false);

    server = await startTestServer({ SKEIN_DATABASE_URL: url }, { dataDir: tempDir('pg-data-other') });
    try {
      const list = (await api<{ sessions: SessionSnapshot[] }>(server.url, '/api/sessions')).body.sessions;
      expect(list.map((s) => s.id)).toEqual([body.id]);
      expect((await api<{ events: SkeinEvent[] }>(server.url, `/api/sessions/${body.id}/events`)).body.events).toEqual(before);
      // The JSONL export gives the log format back.
      const res = await fetch(`${server.url}/api/sessions/${body.id}/export?format=jsonl`, { headers: { authorization: `Bearer ${server.token}` } });
      const lines = (await res.text()).trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(lines[0]).toMatchObject({ skein: 1, session: body.id });
      expect(lines.slice(1)).toEqual(before);
    } finally {
      await server.close();
    }
  }, 180_000);

  it('skein migrate --from-jsonl imports logs and --to-jsonl gives them back byte for byte', async () => {
    const url = await postgres.database();
    const source = tempDir('pg-import');
    const ids = writeSessionLogs(source, 5, 30);
    const sessionsDir = path.join(source, 'sessions');
    const cli = (...args: string[]) =>
      execFileSync(process.execPath, ['--import', 'tsx', path.resolve('server/main.ts'), 'migrate', ...args], { env: { ...process.env, SKEIN_DATABASE_URL: url }, encoding: 'utf8' });
    expect(cli('--from-jsonl', sessionsDir)).toContain('imported 5 sessions, 150 events');
    // A second import skips what is there (never merges).
    expect(cli('--from-jsonl', sessionsDir)).toContain('imported 0 sessions');
    const out = tempDir('pg-export');
    expect(cli('--to-jsonl', out)).toContain('exported 5 sessions, 150 events');
    for (const id of ids) expect(fs.readFileSync(path.join(out, `${id}.jsonl`), 'utf8')).toBe(fs.readFileSync(path.join(sessionsDir, `${id}.jsonl`), 'utf8'));
  }, 180_000);
});
