// The PostgreSQL schema, as numbered migrations applied in order at start
// (each in its own transaction, recorded in skein_migrations; an advisory
// lock keeps two instances starting at once from applying one twice).
import type pg from 'pg';

export const MIGRATIONS: readonly { version: number; sql: string }[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE skein_sessions (
        id text PRIMARY KEY,
        header text NOT NULL,
        -- The seq claim: a batch of events commits only if it continues exactly from here.
        last_seq bigint NOT NULL DEFAULT 0
      );
      CREATE TABLE skein_events (
        session text NOT NULL REFERENCES skein_sessions (id) ON DELETE CASCADE,
        seq bigint NOT NULL CHECK (seq > 0),
        -- The event's JSONL line as written (the log format stays the contract; export gives it back byte for byte).
        line text NOT NULL,
        PRIMARY KEY (session, seq)
      );`,
  },
  {
    // Several instances on one database (see server/cluster/leases.ts): who is alive, who runs each session's
    // agent, and what other instances posted to a session for its owner.
    version: 2,
    sql: `
      CREATE TABLE skein_instances (
        id text PRIMARY KEY,
        heartbeat_at timestamptz NOT NULL DEFAULT now(),
        started_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE skein_leases (
        -- No foreign key: a new session's row is inserted by its first group commit, after the lease.
        session text PRIMARY KEY,
        owner text NOT NULL,
        acquired_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE skein_inbox (
        id bigserial PRIMARY KEY,
        session text NOT NULL,
        command text NOT NULL,
        from_instance text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX skein_inbox_session ON skein_inbox (session, id);`,
  },
  {
    // Scale (see pg-summaries.ts): the sessions list from one row per session, written in the
    // same transaction as the events it describes (a start lists without reading events), and
    // leases read incrementally by a revision number instead of whole every heartbeat.
    version: 3,
    sql: `
      CREATE TABLE skein_summaries (
        session text PRIMARY KEY REFERENCES skein_sessions (id) ON DELETE CASCADE,
        -- The session's last_seq this row describes: a row behind skein_sessions.last_seq is stale and rebuilt.
        last_seq bigint NOT NULL,
        title text NOT NULL,
        state text NOT NULL,
        -- The mode the user switched the session to (NULL: it follows the server's SKEIN_APPROVAL).
        mode text,
        archived boolean NOT NULL DEFAULT false,
        last_activity text NOT NULL,
        total_tokens bigint NOT NULL DEFAULT 0,
        cost_usd double precision NOT NULL DEFAULT 0,
        needs_start boolean NOT NULL DEFAULT false,
        -- Lower-cased user text (capped) for search, and whether it is whole.
        user_text text NOT NULL DEFAULT '',
        user_text_complete boolean NOT NULL DEFAULT true,
        -- The list entry as the server sends it.
        snapshot text NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX skein_summaries_activity ON skein_summaries (last_activity DESC);
      CREATE SEQUENCE skein_lease_rev;
      ALTER TABLE skein_leases ADD COLUMN rev bigint NOT NULL DEFAULT nextval('skein_lease_rev');
      CREATE INDEX skein_leases_rev ON skein_leases (rev);`,
  },
];

const LOCK_KEY = 0x736b65696e; // "skein"

/** Applies the migrations this database has not seen; returns the versions applied. */
export async function migrate(pool: pg.Pool): Promise<number[]> {
  const client = await pool.connect();
  const applied: number[] = [];
  try {
    await client.query('SELECT pg_advisory_lock($1)', [LOCK_KEY]);
    await client.query('CREATE TABLE IF NOT EXISTS skein_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
    const done = new Set((await client.query<{ version: number }>('SELECT version FROM skein_migrations')).rows.map((r) => r.version));
    const newest = Math.max(0, ...done);
    const known = Math.max(...MIGRATIONS.map((m) => m.version));
    if (newest > known) throw new Error(`the database schema is version ${newest}, newer than this skein knows (${known}): upgrade skein`);
    for (const m of MIGRATIONS) {
      if (done.has(m.version)) continue;
      await client.query('BEGIN');
      try {
        await client.query(m.sql);
        await client.query('INSERT INTO skein_migrations (version) VALUES ($1)', [m.version]);
        await client.query('COMMIT');
        applied.push(m.version);
      } catch (err) {
        await client.query('ROLLBACK');
        throw err;
      }
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [LOCK_KEY]).catch(() => undefined);
    client.release();
  }
  return applied;
}
