// A session's log in PostgreSQL, with the JSONL log's shape: append() assigns
// the seq in memory (the session has one owner) and returns at once; the
// events of a tick are inserted by one transaction that also claims their
// seqs on the session's row (last_seq must be the batch's first seq - 1), so
// a duplicate or a gap can never commit. onDurable fires after COMMIT. A
// failed insert is reported and retried with back-off, never dropped.
import type pg from 'pg';
import type { NewEvent, SkeinEvent } from '../../../shared/protocol.js';
import type { LogHeader } from '../event-log.js';
import { LoadedEvents } from '../loaded-events.js';
import type { SummaryEntry } from './pg-summaries.js';
import type { SessionLog } from '../session-log.js';
import { upsertSummary, type Summary } from './pg-summaries.js';

/** NOTIFY channel of committed events: the payload is "<session> <last seq>". */
export const EVENTS_CHANNEL = 'skein_events';

/** Appends queued beyond this while the database refuses are refused (like a full disk). */
export const MAX_UNCOMMITTED = 10_000;
const BACKOFF_MS = [100, 200, 500, 1000, 2000, 5000];

/** Another writer committed seqs of this session: this copy must not write. */
export class SeqConflictError extends Error {
  override readonly name = 'SeqConflictError';
}

export class PgEventLog extends LoadedEvents implements SessionLog {
  /** Events appended and not committed yet, in seq order. */
  private pending: SkeinEvent[] = [];
  private flushing: Promise<void> | undefined;
  private closed = false;
  private conflict: Error | undefined;
  /** Told each time an insert fails (it is retried). */
  onSyncError: (err: Error) => void = (err) => console.error(`[skein] session ${this.header.session}: database insert failed (retrying): ${err.message}`);

  /** The session's row is not in the database yet: the first transaction inserts it. */
  private rowPending: boolean;
  /** Several instances: this instance's name, leased the new session in its row's own transaction (before anyone can see it). */
  leaseOwner: string | undefined;
  /** The session's list entry as it is now (every event appended so far): written with each batch, in its transaction. */
  summarize: (() => SummaryEntry | undefined) | undefined;

  /** `isNew`: a session just made here (its row and any events given are inserted by the first group). */
  constructor(
    private readonly pool: pg.Pool,
    readonly file: string,
    readonly header: LogHeader,
    events: SkeinEvent[],
    isNew = false,
  ) {
    super(events, isNew ? 0 : (events.at(-1)?.seq ?? 0));
    this.rowPending = isNew;
    if (isNew) {
      this.pending = [...events];
      this.flushing = new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.flushLoop());
    }
  }

  /** Set while another instance owns the session: this copy only shows what that one commits (see merged). */
  readOnly: string | undefined;

  append(event: NewEvent): SkeinEvent {
    if (this.closed) throw new Error(`session ${this.header.session}: the log is closed`);
    if (this.readOnly) throw new Error(this.readOnly);
    if (this.conflict) throw this.conflict;
    if (this.pending.length >= MAX_UNCOMMITTED) throw new Error(`the database has not accepted the last ${this.pending.length} events (see the server log); nothing more is taken until it does`);
    const full = { seq: this.lastSeq + 1, ts: new Date().toISOString(), ...event } as SkeinEvent;
    this.events.push(full);
    this.pending.push(full);
    // After the current tick: everything appended in it shares one transaction.
    this.flushing ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.flushLoop());
    return full;
  }

  private async flushLoop(): Promise<void> {
    let failures = 0;
    while ((this.pending.length || this.rowPending) && !this.conflict) {
      let batch = this.pending.slice();
      // Taken with the batch: the entry describes exactly the events up to the batch's last one.
      const entry = this.summarize?.();
      const summary = entry && { lastSeq: batch.at(-1)?.seq ?? this.durable, entry };
      try {
        const committed = await insertBatch(this.pool, this.header.session, batch, this.rowPending ? this.header : undefined, this.leaseOwner, summary);
        batch = batch.slice(0, committed);
        this.rowPending = false;
      } catch (err) {
        const error = err instanceof Error ? err : new Error(String(err));
        if (error instanceof SeqConflictError) {
          this.conflict = error;
          this.onSyncError(error);
          break;
        }
        this.onSyncError(error);
        await new Promise((r) => setTimeout(r, BACKOFF_MS[Math.min(failures++, BACKOFF_MS.length - 1)]));
        continue;
      }
      failures = 0;
      this.pending = this.pending.slice(batch.length);
      if (batch.length) this.madeDurable(batch.at(-1)!.seq);
    }
    this.flushing = undefined;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Another writer committed this session's next seqs: this copy's appends can never commit. */
  get conflicted(): boolean {
    return this.conflict !== undefined;
  }

  /** Another instance committed events up to `upTo`; the store has put them in the shared array: show them. */
  merged(upTo: number): void {
    this.madeDurable(upTo);
  }

  close(): void {
    this.closed = true;
  }

  async flushed(): Promise<void> {
    while (this.flushing) await this.flushing;
  }
}

/**
 * One transaction: claim the seqs on the session's row, insert the events.
 * Returns how many of `batch` are committed now: all of them, or, when an
 * earlier attempt's COMMIT went through but its answer was lost (and events
 * appended since joined this batch), the ones that attempt held.
 */
export async function insertBatch(pool: pg.Pool, session: string, batch: readonly SkeinEvent[], newRow?: LogHeader, leaseOwner?: string, summary?: Summary): Promise<number> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    if (newRow) {
      await client.query('INSERT INTO skein_sessions (id, header, last_seq) VALUES ($1, $2, 0) ON CONFLICT (id) DO NOTHING', [session, JSON.stringify(newRow)]);
      if (leaseOwner) await client.query('INSERT INTO skein_leases (session, owner) VALUES ($1, $2) ON CONFLICT (session) DO NOTHING', [session, leaseOwner]);
    }
    const writeSummary = async () => {
      if (!summary) return;
      const { text, params } = upsertSummary(session, summary);
      await client.query(text, params);
    };
    if (!batch.length) {
      await writeSummary();
      await client.query('COMMIT');
      return 0;
    }
    const first = batch[0]!.seq;
    const last = batch.at(-1)!.seq;
    const claim = await client.query('UPDATE skein_sessions SET last_seq = $3 WHERE id = $1 AND last_seq = $2', [session, first - 1, last]);
    if (claim.rowCount !== 1) {
      await client.query('ROLLBACK');
      const row = await client.query<{ last_seq: string }>('SELECT last_seq FROM skein_sessions WHERE id = $1', [session]);
      // A retry of a batch whose COMMIT went through but whose answer was lost: that part is already durable.
      const held = Number(row.rows[0]?.last_seq);
      const ours = batch.find((e) => e.seq === held);
      if (ours && held >= first) {
        const mine = await client.query<{ line: string }>('SELECT line FROM skein_events WHERE session = $1 AND seq = $2', [session, held]);
        if (mine.rows[0]?.line === JSON.stringify(ours)) return held - first + 1;
      }
      throw new SeqConflictError(`session ${session}: the database holds events up to ${row.rows[0]?.last_seq ?? 'none (no such session)'}, this instance tried to add ${first}..${last}; another writer owns it`);
    }
    const values: string[] = [];
    const params: unknown[] = [session];
    for (const e of batch) {
      params.push(e.seq, JSON.stringify(e));
      values.push(`($1, $${params.length - 1}, $${params.length})`);
    }
    await client.query(`INSERT INTO skein_events (session, seq, line) VALUES ${values.join(', ')}`, params);
    // The list entry commits with the events it describes (a start lists from it, reading no event).
    await writeSummary();
    // Delivered at COMMIT to every instance listening (server/cluster/leases.ts): they read the new rows and show them.
    await client.query('SELECT pg_notify($1, $2)', [EVENTS_CHANNEL, `${session} ${last}`]);
    await client.query('COMMIT');
    return batch.length;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
