// The PostgreSQL event store (SKEIN_DATABASE_URL): a pool and the schema
// migrated at start. Only the sessions' ids are read at connect (the list
// comes from skein_summaries, see pg-summaries.ts); a session's events are
// read when it is about to be opened (fetch), so that opening it stays
// synchronous like the JSONL store, and dropped when it is unloaded
// (release). New sessions get their row in the same transaction as their
// first events.
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import type { SkeinEvent } from '../../../shared/protocol.js';
import type { LogHeader, LoadReport } from '../event-log.js';
import type { PageQuery, Page } from '../../http/event-page.js';
import { migrate } from './migrations.js';
import { PgEventLog } from './pg-event-log.js';
import { listSessions, readSummaries, readUserTexts, saveBuiltSummaries, saveSummary, type ListedSession, type Summary } from './pg-summaries.js';
import type { SummaryEntry } from './pg-summaries.js';

/** Rows of a session's first page when it is read (whatever the lines' sizes: few); later pages are sized by the bytes of the rows before, up to PAGE_ROWS. */
const FIRST_PAGE_ROWS = 64;
const PAGE_ROWS = 10_000;
/** Bytes of lines a page of events should hold about. */
const PAGE_BYTES = 2 * 1024 * 1024;
/** Lines are parsed back to back for at most this long, then the event loop gets a turn. */
const SLICE_MS = 8;

/** A session's event lines of one page (see linesInRange). */
export interface SessionLines {
  session: string;
  /** The seq of the last line. */
  lastSeq: number;
  /** How many lines, and their bytes (UTF-8). */
  count: number;
  bytes: number;
  /** The lines in seq order, joined by newlines. */
  lines: string;
}

export class PgStore {
  /** Every session in the database as far as this instance knows (read at connect, then told). */
  private readonly known = new Set<string>();
  /** Headers and events of the sessions fetched here (open, or about to be). */
  private readonly headers = new Map<string, LogHeader>();
  /** Shared with the session's PgEventLog, so a copy reloaded in place (cluster) sees every event. */
  private readonly events = new Map<string, SkeinEvent[]>();
  /** The log open for each session (the latest), so events other instances commit reach its subscribers. */
  private readonly logs = new Map<string, PgEventLog>();
  /** Several instances: this instance's name; a session made here is leased to it with its first row. */
  leaseOwner: string | undefined;
  /** Event rows read so far, per session (tests prove an instance reads only the sessions it opens). */
  readonly rowsRead = new Map<string, number>();
  private counted<T>(id: string, rows: T[]): T[] {
    this.rowsRead.set(id, (this.rowsRead.get(id) ?? 0) + rows.length);
    return rows;
  }
  /** One catch-up at a time per session (two would add the same rows twice). */
  private readonly catchingUp = new Map<string, Promise<void>>();
  private constructor(
    readonly pool: pg.Pool,
    private readonly sessionsDir: string,
    readonly url: string,
  ) {}

  static async connect(url: string, sessionsDir: string): Promise<PgStore> {
    const pool = new pg.Pool({ connectionString: url, max: 8 });
    // An idle client's error (server restart) must not crash the process: the next query reconnects.
    pool.on('error', (err) => console.error(`[skein] database connection lost: ${err.message}`));
    try {
      await migrate(pool);
      return new PgStore(pool, sessionsDir, url);
    } catch (err) {
      await pool.end().catch(() => undefined);
      throw err;
    }
  }

  /** The sessions after `after` (by id), at most `limit`, with their list entries when the summary rows are fresh (without typed text, see userTexts); no event is read. */
  async listing(after: string, limit: number): Promise<ListedSession[]> {
    const listed = await listSessions(this.pool, after, limit);
    for (const { id } of listed) this.known.add(id);
    return listed;
  }

  /** The typed text of these sessions' summary rows. */
  async userTexts(ids: string[]): Promise<Map<string, string>> {
    const texts = await readUserTexts(this.pool, ids);
    this.userTextsRead += texts.size;
    return texts;
  }

  /** Typed texts read from summary rows so far (tests prove a start whose search file covers every session reads none). */
  userTextsRead = 0;

  /** The summary rows of these sessions (changed on another instance). */
  async summaries(ids: string[]): Promise<Map<string, SummaryEntry>> {
    const found = await readSummaries(this.pool, ids);
    for (const id of found.keys()) this.known.add(id);
    return found;
  }

  /** Writes a session's list entry when no event carries it (a rename, a rebuilt stale row). */
  saveSummary(id: string, summary: Summary): Promise<void> {
    return saveSummary(this.pool, id, summary);
  }

  has(id: string): boolean {
    return this.known.has(id);
  }

  /** The headers of these sessions (kept nowhere). */
  async headersOf(ids: string[]): Promise<Map<string, LogHeader>> {
    const rows = await this.pool.query<{ id: string; header: string }>('SELECT id, header FROM skein_sessions WHERE id = ANY($1)', [ids]);
    return new Map(rows.rows.map((row) => [row.id, JSON.parse(row.header) as LogHeader]));
  }

  /**
   * The event lines of the sessions from `first` to `last` (by id) past
   * (`after.session`, `after.seq`) in (session, seq) order: at most `limit`
   * of them and about `bytes` (the line that crosses it is the last), joined
   * by newlines per session. One row per session of the page, not one per
   * event: a row per event cost about 850 bytes of short-lived objects in the
   * driver and the scan. Summaries are built a page at a time (keyset paging
   * on the primary key, a plain range scan: several times faster than
   * `session = ANY(…)`; nothing is kept). A JSON line never holds a raw newline.
   */
  async linesInRange(first: string, last: string, after: { session: string; seq: number } | undefined, limit: number, bytes: number): Promise<SessionLines[]> {
    const rows = await this.pool.query<{ session: string; seq: string; count: string; bytes: string; lines: string }>(
      `SELECT session, max(seq) AS seq, count(*) AS count, sum(bytes) AS bytes, string_agg(line, E'\n' ORDER BY seq) AS lines FROM (
         SELECT session, seq, line, octet_length(line) AS bytes, sum(octet_length(line)) OVER (ORDER BY session, seq) AS upto FROM (
           SELECT session, seq, line FROM skein_events WHERE (session, seq) > ($1, $2) AND session <= $3 ORDER BY session, seq LIMIT $4
         ) page
       ) cut WHERE upto - bytes < $5 GROUP BY session ORDER BY session`,
      [after?.session ?? first, after?.seq ?? -1, last, limit, bytes],
    );
    return rows.rows.map((r) => ({ session: r.session, lastSeq: Number(r.seq), count: Number(r.count), bytes: Number(r.bytes), lines: r.lines }));
  }

  /** Writes summaries built from the events (see saveBuiltSummaries), in one statement. */
  saveBuiltSummaries(summaries: readonly { id: string; summary: Summary }[]): Promise<void> {
    return saveBuiltSummaries(this.pool, summaries);
  }

  /** Whether the session's events are held here (open() needs them). */
  fetched(id: string): boolean {
    return this.events.has(id);
  }

  /** Reads the session's header and events so that open() can run (nothing when they are held). */
  async fetch(id: string): Promise<void> {
    if (!this.events.has(id)) await this.catchUp(id);
  }

  /** Forgets the events of a session that was unloaded (every one of them is committed); the next open reads them again. */
  release(id: string): void {
    const log = this.logs.get(id);
    if (log && !log.isClosed) return;
    this.headers.delete(id);
    this.events.delete(id);
    this.logs.delete(id);
  }

  /** One page of the session's committed events, cut in SQL by seq (nothing else of the log is read). */
  async page(id: string, query: PageQuery): Promise<Page> {
    if ('before' in query) {
      const rows = await this.pool.query<{ line: string }>('SELECT line FROM skein_events WHERE session = $1 AND seq < $2 ORDER BY seq DESC LIMIT $3', [id, query.before, query.limit + 1]);
      const more = rows.rows.length > query.limit;
      return { events: rows.rows.slice(0, query.limit).reverse().map((r) => JSON.parse(r.line) as SkeinEvent), more };
    }
    const limit = query.limit ?? null;
    const rows = await this.pool.query<{ line: string }>('SELECT line FROM skein_events WHERE session = $1 AND seq > $2 ORDER BY seq LIMIT $3', [id, query.since, limit === null ? null : limit + 1]);
    const more = limit !== null && rows.rows.length > limit;
    return { events: rows.rows.slice(0, limit ?? undefined).map((r) => JSON.parse(r.line) as SkeinEvent), more };
  }

  header(id: string): LogHeader | undefined {
    return this.headers.get(id) ?? this.peeked.get(id);
  }

  /** Headers read without the events (is an orphaned session within reach?), kept: a header never changes. */
  private readonly peeked = new Map<string, LogHeader>();
  async peekHeader(id: string): Promise<LogHeader | undefined> {
    const held = this.header(id);
    if (held) return held;
    const row = await this.pool.query<{ header: string }>('SELECT header FROM skein_sessions WHERE id = $1', [id]);
    if (!row.rows[0]) return undefined;
    const header = JSON.parse(row.rows[0].header) as LogHeader;
    this.peeked.set(id, header);
    return header;
  }

  /** The last seq held here for the session (undefined: not known here). */
  lastSeq(id: string): number | undefined {
    const held = this.events.get(id);
    return held && (held.at(-1)?.seq ?? 0);
  }

  open(id: string): { log: PgEventLog; report: LoadReport } {
    const header = this.headers.get(id);
    if (!header) throw new Error(this.known.has(id) ? `session ${id} was not read from the database before it was opened` : `no session ${id} in the database`);
    const log = new PgEventLog(this.pool, this.fileOf(id), header, this.events.get(id)!);
    this.logs.set(id, log);
    return { log, report: { badLines: [] } };
  }

  /**
   * Reads the events another instance committed after the ones held here (a
   * session made elsewhere is read whole) and shows them through the open
   * log. Never for a session this instance writes: its own appends are ahead.
   */
  catchUp(id: string): Promise<void> {
    const previous = this.catchingUp.get(id) ?? Promise.resolve();
    const next = previous.then(() => this.readNew(id));
    const settled = next.catch(() => undefined);
    this.catchingUp.set(id, settled);
    void settled.then(() => {
      if (this.catchingUp.get(id) === settled) this.catchingUp.delete(id);
    });
    return next;
  }

  /**
   * Forgets what is held for the session (events this instance appended that
   * can never commit, after another instance took it) and reads it again from
   * the table; the next open starts from there.
   */
  async reread(id: string): Promise<void> {
    this.events.set(id, await this.readAfter(id, 0));
    this.logs.delete(id);
  }

  private async readNew(id: string): Promise<void> {
    if (!this.headers.has(id)) {
      const row = await this.pool.query<{ header: string }>('SELECT header FROM skein_sessions WHERE id = $1', [id]);
      if (!row.rows[0] || this.headers.has(id)) return;
      this.known.add(id);
      this.headers.set(id, JSON.parse(row.rows[0].header) as LogHeader);
      this.events.set(id, []);
    }
    const log = this.logs.get(id);
    // This instance writes the session: its own appends are ahead of the table.
    if (log && !log.readOnly && !log.isClosed) return;
    const held = this.events.get(id)!;
    const read = await this.readAfter(id, held.at(-1)?.seq ?? 0);
    // Checked again after the wait: the session may have been deleted, reread, or opened here as its writer.
    const now = this.logs.get(id);
    if (this.events.get(id) !== held || (now && !now.readOnly && !now.isClosed)) return;
    let added = false;
    for (const event of read) {
      if (event.seq <= (held.at(-1)?.seq ?? 0)) continue;
      held.push(event);
      added = true;
    }
    if (added) now?.merged(held.at(-1)!.seq);
  }

  /**
   * The session's events past `from`, read a page at a time (about
   * PAGE_BYTES of lines each, whatever the events' sizes) and parsed in
   * slices of SLICE_MS: a 150 MB session is opened without holding the event
   * loop (one query and one parse of it all took seconds).
   */
  private async readAfter(id: string, from: number): Promise<SkeinEvent[]> {
    const read: SkeinEvent[] = [];
    let slice = performance.now();
    for (let limit = FIRST_PAGE_ROWS; ; ) {
      const rows = await this.pool.query<{ line: string }>('SELECT line FROM skein_events WHERE session = $1 AND seq > $2 ORDER BY seq LIMIT $3', [id, from, limit]);
      let bytes = 0;
      for (const row of this.counted(id, rows.rows)) {
        read.push(JSON.parse(row.line) as SkeinEvent);
        bytes += row.line.length;
        if (performance.now() - slice > SLICE_MS) {
          await new Promise((r) => setImmediate(r));
          slice = performance.now();
        }
      }
      if (rows.rows.length < limit) return read;
      from = read.at(-1)!.seq;
      limit = Math.max(16, Math.min(PAGE_ROWS, Math.floor(PAGE_BYTES / Math.max(1, bytes / rows.rows.length))));
    }
  }

  create(header: LogHeader): PgEventLog {
    return this.createWith(header, []);
  }

  createWith(header: LogHeader, events: readonly SkeinEvent[]): PgEventLog {
    const id = header.session;
    if (this.known.has(id)) throw new Error(`a session ${id} already exists`);
    this.known.add(id);
    this.headers.set(id, header);
    const stored = [...events];
    this.events.set(id, stored);
    const log = new PgEventLog(this.pool, this.fileOf(id), header, stored, true);
    log.leaseOwner = this.leaseOwner;
    this.logs.set(id, log);
    return log;
  }

  /** Forgets a session another instance deleted (its rows are gone already). */
  drop(id: string): void {
    this.known.delete(id);
    this.peeked.delete(id);
    this.headers.delete(id);
    this.events.delete(id);
    this.logs.delete(id);
  }

  /** Removes a session and its events (after its log was written to the trash as JSONL). */
  async remove(id: string): Promise<void> {
    this.known.delete(id);
    this.headers.delete(id);
    this.events.delete(id);
    this.logs.delete(id);
    await this.pool.query('DELETE FROM skein_sessions WHERE id = $1', [id]);
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  private fileOf(id: string): string {
    return path.join(this.sessionsDir, `${id}.jsonl`);
  }
}
