// Several skein instances on one database. Each instance has a row it
// heartbeats; each session's agent runs on the one instance that holds its
// lease (a row naming the owner: valid while the owner's heartbeat is fresh,
// taken over in one compare-and-set once it is not). Committed events are
// announced with NOTIFY (pg-event-log.ts) so every instance shows them live;
// the table stays the truth, and each tick also catches up what a lost
// notification missed. What a client posts to an instance that is not the
// owner goes to the owner through the inbox table.
import crypto from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { ImageInput } from '../../shared/protocol.js';
import { EVENTS_CHANNEL } from '../store/postgres/pg-event-log.js';

const INBOX_CHANNEL = 'skein_inbox';
const LEASES_CHANNEL = 'skein_leases';
const SESSIONS_CHANNEL = 'skein_new_session';
const REMOVED_CHANNEL = 'skein_removed_session';
/** Heartbeats between two full reads of the lease table (the ones between read only the rows that changed). */
const FULL_READ_EVERY = 60;

/** What a client asked of a session on an instance that does not run it. */
export type InboxCommand =
  | { type: 'user_message'; text: string; images?: ImageInput[] }
  | { type: 'cancel' }
  | { type: 'compact'; instructions?: string }
  | { type: 'approval'; callId: string; decision: 'approve' | 'approve_session' | 'deny'; reason?: string };

export interface InboxRow {
  id: number;
  command: InboxCommand;
}

export interface ClusterListener {
  /** Another instance (or this one) committed events of `session` up to `lastSeq`. */
  events(session: string, lastSeq: number): void;
  /** Something was posted to `session`'s inbox. */
  inbox(session: string): void;
  /** A lease changed hands, or an instance stopped: ownership may have moved. */
  leases(): void;
  /** A session was made on another instance. */
  created(session: string): void;
  /** A session was deleted (moved to an instance's trash). */
  removed(session: string): void;
  /** The listening connection was re-established: notifications may have been missed. */
  reconnected(): void;
}

export class Cluster {
  /**
   * This instance's name in skein_instances and skein_leases: the host and its
   * data folder, so a restart of the same server is the same instance and runs
   * its sessions again at once (two live servers never share a data folder).
   */
  readonly instance: string;
  private listenClient: pg.Client | undefined;
  private heartbeat: ReturnType<typeof setInterval> | undefined;
  private stopped = false;
  /** The owner of each leased session, as last read; the rows changed since are read every heartbeat (see refresh). */
  private owners = new Map<string, string>();
  /** The highest lease revision read so far (undefined: read them all next time). */
  private leaseRev: number | undefined;
  /** Heartbeats since the last full read of the leases. */
  private sinceFullRead = 0;
  /** Instances whose heartbeat was fresh at the last read. */
  private alive = new Set<string>();
  private listener: ClusterListener | undefined;

  constructor(
    private readonly pool: pg.Pool,
    private readonly url: string,
    /** A lease whose owner has not heartbeated for this long is taken over. */
    readonly leaseTimeoutMs: number,
    dataDir: string,
  ) {
    this.instance = `${os.hostname()}:${crypto.createHash('sha256').update(path.resolve(dataDir)).digest('hex').slice(0, 10)}`;
  }

  get heartbeatMs(): number {
    return Math.max(100, Math.floor(this.leaseTimeoutMs / 5));
  }

  /** Registers this instance, listens, and heartbeats; `onTick` runs after each heartbeat (catch-up, takeovers). */
  async start(listener: ClusterListener, onTick: () => Promise<void>): Promise<void> {
    this.listener = listener;
    await this.pool.query('INSERT INTO skein_instances (id) VALUES ($1) ON CONFLICT (id) DO UPDATE SET heartbeat_at = now()', [this.instance]);
    await this.listen();
    await this.refresh();
    // The heartbeat has its own timer: a slow tick (takeovers, inbox drains) must never let this instance look dead.
    let beating = false;
    let ticking = false;
    this.heartbeat = setInterval(() => {
      if (this.stopped) return;
      if (!beating) {
        beating = true;
        void this.pool
          .query('UPDATE skein_instances SET heartbeat_at = now() WHERE id = $1', [this.instance])
          .catch((err: unknown) => console.error(`[skein] cluster: heartbeat failed: ${err instanceof Error ? err.message : String(err)} (retrying)`))
          .finally(() => (beating = false));
      }
      if (!ticking) {
        ticking = true;
        void this.tick(onTick).finally(() => (ticking = false));
      }
    }, this.heartbeatMs);
    this.heartbeat.unref();
  }

  private async tick(onTick: () => Promise<void>): Promise<void> {
    try {
      if (!this.listenClient) await this.listen();
      await this.refresh();
      await onTick();
    } catch (err) {
      console.error(`[skein] cluster: ${err instanceof Error ? err.message : String(err)} (retrying)`);
    }
  }

  private async listen(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url });
    client.on('error', (err) => {
      console.error(`[skein] cluster: the notification connection failed (${err.message}); reconnecting`);
      if (this.listenClient === client) this.listenClient = undefined;
      void client.end().catch(() => undefined);
    });
    client.on('notification', (n) => this.notified(n.channel, n.payload ?? ''));
    await client.connect();
    for (const channel of [EVENTS_CHANNEL, INBOX_CHANNEL, LEASES_CHANNEL, SESSIONS_CHANNEL, REMOVED_CHANNEL]) await client.query(`LISTEN ${channel}`);
    const first = this.listenClient === undefined && this.heartbeat === undefined;
    this.listenClient = client;
    if (!first) this.listener?.reconnected();
  }

  private notified(channel: string, payload: string): void {
    const listener = this.listener;
    if (!listener || this.stopped) return;
    if (channel === EVENTS_CHANNEL) {
      const [session, last] = payload.split(' ');
      if (session && last) listener.events(session, Number(last));
    } else if (channel === INBOX_CHANNEL) listener.inbox(payload);
    else if (channel === SESSIONS_CHANNEL) listener.created(payload);
    else if (channel === REMOVED_CHANNEL) {
      this.owners.delete(payload);
      listener.removed(payload);
    }
    else if (channel === LEASES_CHANNEL) {
      // A claim names its session: that one row is read (an instance that stopped sends no name: who is alive).
      const read = payload ? this.readLease(payload) : this.refresh();
      void read.then(() => listener.leases(), () => undefined);
    }
  }

  private async readLease(session: string): Promise<void> {
    const row = await this.pool.query<{ owner: string }>('SELECT owner FROM skein_leases WHERE session = $1', [session]);
    if (row.rows[0]) this.owners.set(session, row.rows[0].owner);
    else this.owners.delete(session);
  }

  /**
   * Reads who is alive (one row per instance) and the leases that changed
   * since the last read (their revision is above the highest seen). A claim
   * that commits out of revision order is read from its notification; every
   * FULL_READ_EVERY heartbeats the whole table is read again in case a
   * notification was lost.
   */
  private async refresh(): Promise<void> {
    const alive = await this.pool.query<{ id: string }>('SELECT id FROM skein_instances WHERE heartbeat_at > now() - make_interval(secs => $1)', [this.leaseTimeoutMs / 1000]);
    this.alive = new Set(alive.rows.map((r) => r.id));
    this.alive.add(this.instance);
    const full = this.leaseRev === undefined || ++this.sinceFullRead >= FULL_READ_EVERY;
    const leases = await this.pool.query<{ session: string; owner: string; rev: string }>(
      full ? 'SELECT session, owner, rev FROM skein_leases' : 'SELECT session, owner, rev FROM skein_leases WHERE rev > $1',
      full ? [] : [this.leaseRev],
    );
    if (full) {
      this.owners = new Map();
      this.sinceFullRead = 0;
      this.leaseRev = 0;
    }
    for (const row of leases.rows) {
      this.owners.set(row.session, row.owner);
      this.leaseRev = Math.max(this.leaseRev ?? 0, Number(row.rev));
    }
  }

  /** Who runs the session as far as this instance knows: this one, nobody (free or its owner is dead), or another live instance. */
  ownerHint(session: string): 'me' | 'free' | string {
    const owner = this.owners.get(session);
    if (owner === this.instance) return 'me';
    if (!owner || !this.alive.has(owner)) return 'free';
    return owner;
  }

  /** Takes the lease if it is free, ours, or its owner's heartbeat is stale. True when this instance owns it now. */
  async claim(session: string): Promise<boolean> {
    const result = await this.pool.query<{ owner: string }>(
      `INSERT INTO skein_leases (session, owner) VALUES ($1, $2)
       ON CONFLICT (session) DO UPDATE SET owner = EXCLUDED.owner, acquired_at = now(), rev = nextval('skein_lease_rev')
       WHERE skein_leases.owner = EXCLUDED.owner
          OR NOT EXISTS (SELECT 1 FROM skein_instances i WHERE i.id = skein_leases.owner AND i.heartbeat_at > now() - make_interval(secs => $3))
       RETURNING owner`,
      [session, this.instance, this.leaseTimeoutMs / 1000],
    );
    const mine = result.rowCount === 1;
    if (mine) {
      this.owners.set(session, this.instance);
      await this.pool.query('SELECT pg_notify($1, $2)', [LEASES_CHANNEL, session]);
    } else await this.refresh();
    return mine;
  }

  /** Sessions leased to an instance whose heartbeat is stale (its agent loops run nowhere now). */
  async orphaned(): Promise<string[]> {
    const rows = await this.pool.query<{ session: string }>(
      `SELECT l.session FROM skein_leases l
       WHERE l.owner <> $1 AND NOT EXISTS (SELECT 1 FROM skein_instances i WHERE i.id = l.owner AND i.heartbeat_at > now() - make_interval(secs => $2))`,
      [this.instance, this.leaseTimeoutMs / 1000],
    );
    return rows.rows.map((r) => r.session);
  }

  /** The last committed seq of each session (a missed notification is caught up from here). */
  async lastSeqs(sessions: string[]): Promise<Map<string, number>> {
    if (!sessions.length) return new Map();
    const rows = await this.pool.query<{ id: string; last_seq: string }>('SELECT id, last_seq FROM skein_sessions WHERE id = ANY($1)', [sessions]);
    return new Map(rows.rows.map((r) => [r.id, Number(r.last_seq)]));
  }

  /** Posts a command for the session's owner; resolves once it is committed (one statement: the row and its NOTIFY commit together). */
  async post(session: string, command: InboxCommand): Promise<void> {
    await this.pool.query(
      'WITH posted AS (INSERT INTO skein_inbox (session, command, from_instance) VALUES ($1, $2, $3) RETURNING session) SELECT pg_notify($4, session) FROM posted',
      [session, JSON.stringify(command), this.instance, INBOX_CHANNEL],
    );
  }

  /** The session's inbox rows, oldest first. */
  async inbox(session: string): Promise<InboxRow[]> {
    const rows = await this.pool.query<{ id: string; command: string }>('SELECT id, command FROM skein_inbox WHERE session = $1 ORDER BY id', [session]);
    return rows.rows.map((r) => ({ id: Number(r.id), command: JSON.parse(r.command) as InboxCommand }));
  }

  /** Which of these sessions have inbox rows (one query per heartbeat, whatever the number of sessions run here). */
  async withInbox(sessions: string[]): Promise<Set<string>> {
    if (!sessions.length) return new Set();
    const rows = await this.pool.query<{ session: string }>('SELECT DISTINCT session FROM skein_inbox WHERE session = ANY($1)', [sessions]);
    return new Set(rows.rows.map((r) => r.session));
  }

  /** Forgets these inbox rows (their effect is durable in the log). */
  async done(session: string, ids: number[]): Promise<void> {
    if (ids.length) await this.pool.query('DELETE FROM skein_inbox WHERE session = $1 AND id = ANY($2::bigint[])', [session, ids]);
  }

  /** A session made here: other instances learn of it. */
  async announce(session: string): Promise<void> {
    await this.pool.query('SELECT pg_notify($1, $2)', [SESSIONS_CHANNEL, session]);
  }

  /** A deleted session: its lease and inbox go, and the other instances drop their copies. */
  async forget(session: string): Promise<void> {
    await this.pool.query('DELETE FROM skein_leases WHERE session = $1', [session]);
    await this.pool.query('DELETE FROM skein_inbox WHERE session = $1', [session]);
    await this.pool.query('SELECT pg_notify($1, $2)', [REMOVED_CHANNEL, session]);
  }

  /**
   * Graceful stop: this instance's row goes, so its leases count as orphaned at
   * once (another instance takes them at its next tick). The leases stay: a
   * restart of this same server finds them its own and runs its sessions at once.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.heartbeat);
    try {
      await this.pool.query('DELETE FROM skein_instances WHERE id = $1', [this.instance]);
      await this.pool.query('SELECT pg_notify($1, $2)', [LEASES_CHANNEL, '']);
    } catch {
      /* the database is gone: the leases expire by themselves */
    }
    await this.listenClient?.end().catch(() => undefined);
    this.listenClient = undefined;
  }
}
