// The PostgreSQL event store (SKEIN_DATABASE_URL): a pool, the schema
// migrated at start, and every session's events read once at connect so that
// opening a session stays synchronous like the JSONL store. New sessions get
// their row in the same transaction as their first events.
import path from 'node:path';
import pg from 'pg';
import type { SkeinEvent } from '../../../shared/protocol.js';
import type { LogHeader, LoadReport } from '../event-log.js';
import { migrate } from './migrations.js';
import { PgEventLog } from './pg-event-log.js';

export class PgStore {
  private readonly headers = new Map<string, LogHeader>();
  /** Shared with the session's PgEventLog, so a session unloaded and opened again sees every event. */
  private readonly events = new Map<string, SkeinEvent[]>();
  private constructor(readonly pool: pg.Pool, private readonly sessionsDir: string) {}

  static async connect(url: string, sessionsDir: string): Promise<PgStore> {
    const pool = new pg.Pool({ connectionString: url, max: 8 });
    // An idle client's error (server restart) must not crash the process: the next query reconnects.
    pool.on('error', (err) => console.error(`[skein] database connection lost: ${err.message}`));
    try {
      await migrate(pool);
      const store = new PgStore(pool, sessionsDir);
      await store.preload();
      return store;
    } catch (err) {
      await pool.end().catch(() => undefined);
      throw err;
    }
  }

  private async preload(): Promise<void> {
    for (const row of (await this.pool.query<{ id: string; header: string }>('SELECT id, header FROM skein_sessions')).rows) {
      this.headers.set(row.id, JSON.parse(row.header) as LogHeader);
      this.events.set(row.id, []);
    }
    const result = await this.pool.query<{ session: string; line: string }>('SELECT session, line FROM skein_events ORDER BY session, seq');
    for (const row of result.rows) this.events.get(row.session)?.push(JSON.parse(row.line) as SkeinEvent);
  }

  ids(): string[] {
    return [...this.headers.keys()].sort();
  }

  has(id: string): boolean {
    return this.headers.has(id);
  }

  open(id: string): { log: PgEventLog; report: LoadReport } {
    const header = this.headers.get(id);
    if (!header) throw new Error(`no session ${id} in the database`);
    return { log: new PgEventLog(this.pool, this.fileOf(id), header, this.events.get(id)!), report: { badLines: [] } };
  }

  create(header: LogHeader): PgEventLog {
    return this.createWith(header, []);
  }

  createWith(header: LogHeader, events: readonly SkeinEvent[]): PgEventLog {
    const id = header.session;
    if (this.headers.has(id)) throw new Error(`a session ${id} already exists`);
    this.headers.set(id, header);
    const stored = [...events];
    this.events.set(id, stored);
    return new PgEventLog(this.pool, this.fileOf(id), header, stored, true);
  }

  /** Removes a session and its events (after its log was written to the trash as JSONL). */
  async remove(id: string): Promise<void> {
    this.headers.delete(id);
    this.events.delete(id);
    await this.pool.query('DELETE FROM skein_sessions WHERE id = $1', [id]);
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  private fileOf(id: string): string {
    return path.join(this.sessionsDir, `${id}.jsonl`);
  }
}
