// Sessions written straight into a PostgreSQL database, as `skein migrate
// --from-jsonl` leaves them before it wrote summaries (rows and events, no
// summary row), in bulk: for the PostgreSQL scale tests and benchmark. The
// events are those of session-logs.ts (the JSONL side's).
import pg from 'pg';
import { migrate } from '../../server/store/postgres/migrations.js';
import { sessionEvents } from './session-logs.js';

/** `count` sessions named 20250101-000000-s00000…, `events` events each; the eighth one types "zanzibar". */
export async function insertSessions(url: string, count: number, events: number): Promise<string[]> {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  const all: string[] = [];
  try {
    await migrate(pool);
    const CHUNK = 100;
    for (let first = 0; first < count; first += CHUNK) {
      const ids: string[] = [];
      const headers: string[] = [];
      const lastSeqs: number[] = [];
      const sessions: string[] = [];
      const seqs: number[] = [];
      const lines: string[] = [];
      for (let i = first; i < Math.min(count, first + CHUNK); i++) {
        const id = `20250101-000000-s${String(i).padStart(5, '0')}`;
        const made = sessionEvents({ id, events, topic: i === 7 ? 'zanzibar' : 'question' });
        ids.push(id);
        headers.push(JSON.stringify({ skein: 1, session: id, createdAt: '2025-01-01T00:00:00.000Z', model: 'predictable' }));
        lastSeqs.push(made.at(-1)?.seq ?? 0);
        for (const e of made) {
          sessions.push(id);
          seqs.push(e.seq);
          lines.push(JSON.stringify(e));
        }
      }
      await pool.query('INSERT INTO skein_sessions (id, header, last_seq) SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[])', [ids, headers, lastSeqs]);
      await pool.query('INSERT INTO skein_events (session, seq, line) SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[])', [sessions, seqs, lines]);
      all.push(...ids);
    }
  } finally {
    await pool.end();
  }
  return all;
}

/** One session `id` whose user typed about `megabytes` MB in messages of `messageKb` KB (each ends with "part <seq>"). */
export async function insertBigSession(url: string, id: string, megabytes: number, messageKb = 100): Promise<number> {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  try {
    await migrate(pool);
    const text = 'lorem ipsum dolor sit amet consectetur '.repeat(Math.ceil((messageKb * 1024) / 39));
    const lines: string[] = [];
    let bytes = 0;
    for (let seq = 1; bytes < megabytes * 1024 * 1024; seq++) {
      const line = JSON.stringify({ seq, ts: new Date(Date.parse('2025-01-02T00:00:00Z') + seq * 1000).toISOString(), kind: 'user', text: `${text}part ${seq}` });
      lines.push(line);
      bytes += line.length;
    }
    await pool.query('INSERT INTO skein_sessions (id, header, last_seq) VALUES ($1, $2, $3)', [id, JSON.stringify({ skein: 1, session: id, createdAt: '2025-01-02T00:00:00.000Z', model: 'predictable' }), lines.length]);
    for (let i = 0; i < lines.length; i += 100) {
      const part = lines.slice(i, i + 100);
      await pool.query('INSERT INTO skein_events (session, seq, line) SELECT $1, * FROM unnest($2::bigint[], $3::text[])', [id, part.map((_, j) => i + j + 1), part]);
    }
    return lines.length;
  } finally {
    await pool.end();
  }
}
