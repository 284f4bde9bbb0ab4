// Which sessions this instance runs when several share one PostgreSQL
// database (leases.ts holds the database side: leases, heartbeats, the inbox). A
// session is run by the instance holding its lease; every other instance
// keeps a read-only copy that shows what the owner commits and forwards
// what its clients ask through the inbox. When an owner stops heartbeating,
// an instance that can reach the session's folder takes the lease over,
// reloads the session (closing the interrupted turn as after a restart) and
// carries on; one that cannot reach it keeps the copy read-only and says why.
import fs from 'node:fs';
import path from 'node:path';
import type { LogHeader } from '../store/event-log.js';
import type { Cluster, InboxRow } from './leases.js';
import type { PgStore } from '../store/postgres/pg-store.js';
import { log } from '../log.js';
import { NoPendingApprovalError } from '../agent/approvals.js';
import { decideApproval } from '../subagents/child-approvals.js';
import { ReadOnlySessionError, type RemoteOwner } from './remote-owner.js';
import type { LiveSession } from '../agent/live-session.js';

/** What the roles need of the sessions manager. */
export interface ClusterHost {
  /** The session, loaded if needed. */
  get(id: string): LiveSession | undefined;
  /** The session, its events read from the database first if they are not in memory. */
  open(id: string): Promise<LiveSession | undefined>;
  /** The sessions in memory now. */
  loaded(): Iterable<[string, LiveSession]>;
  /** The session if it is in memory (never loads it). */
  peek(id: string): LiveSession | undefined;
  /** Replaces the loaded copy with a fresh one (its role decided again); clients are told to reconnect. */
  reload(id: string): void;
  /** A session made on another instance: listed here from now on. */
  discovered(id: string): void;
  /** A session not open here was made or changed on another instance: its list entry is read from its summary row. */
  noticed(id: string): void;
  /** A session deleted on another instance: its copy and list entry go. */
  vanished(id: string): void;
}

export interface Reach {
  /** SKEIN_WORKDIR's roots and the data folder: a session's folder must be inside one (a log from before workspaces has none: always reachable). */
  roots: string[];
}

export class ClusterRoles {
  private host: ClusterHost | undefined;
  /** The inbox rows applied per owned session (after a load: the ids its log's messages carry). Ids are
   * not committed in order, so rows are told apart by id, never by "after the last one seen". */
  private readonly applied = new Map<string, Set<number>>();
  private readonly draining = new Map<string, Promise<void>>();
  private readonly takingOver = new Set<string>();

  constructor(
    readonly cluster: Cluster,
    private readonly store: PgStore,
    private readonly reach: Reach,
  ) {}

  /** Joins the cluster (before the sessions load: their roles need the leases). */
  async start(host: ClusterHost): Promise<void> {
    this.host = host;
    await this.cluster.start(
      {
        // Only a session open here reads its new rows; any other is listed again from its summary row.
        events: (session) => {
          if (!this.store.fetched(session)) return host.noticed(session);
          void this.store.catchUp(session).catch((err) => this.warn(session, 'catching up', err));
        },
        inbox: (session) => {
          const hint = this.cluster.ownerHint(session);
          if (hint === 'me') void this.drain(session);
          else if (hint === 'free') void this.takeOver(session);
        },
        created: (session) => host.noticed(session),
        removed: (session) => {
          this.applied.delete(session);
          this.store.drop(session);
          host.vanished(session);
        },
        leases: () => void this.tick(),
        reconnected: () => void this.tick(),
      },
      () => this.tick(),
    );
  }

  /** At load: 'owner' to run the session here, or the read-only copy's link to its owner. */
  roleAt(id: string, header: LogHeader): 'owner' | RemoteOwner {
    const hint = this.cluster.ownerHint(id);
    if (hint === 'me' && !this.unreachable(header)) {
      void this.drain(id);
      return 'owner';
    }
    // Free as far as we know: a copy until the lease is ours (another instance may be writing it right now).
    // Only if it is still loaded then: a session loaded at start just to rebuild its summary is not taken.
    if (hint === 'free') queueMicrotask(() => void (this.host?.peek(id) && this.takeOver(id)));
    return this.remote(id, header);
  }

  /** A session made here: its lease is ours (else this copy becomes the owner's), and the other instances hear of it. */
  async created(id: string): Promise<void> {
    if (!(await this.cluster.claim(id))) return this.host?.reload(id);
    await this.cluster.announce(id);
  }

  async forget(id: string): Promise<void> {
    this.applied.delete(id);
    await this.cluster.forget(id);
  }

  async stop(): Promise<void> {
    await this.cluster.stop();
  }

  private remote(id: string, header: LogHeader): RemoteOwner {
    const owner = () => {
      const hint = this.cluster.ownerHint(id);
      return hint === 'me' || hint === 'free' ? undefined : hint;
    };
    const unreachable = () => this.unreachable(header);
    return {
      get reason() {
        const running = owner();
        if (running) return `runs on instance ${running}`;
        return unreachable() ?? 'its instance stopped; another one is taking it over';
      },
      get readOnly() {
        return !owner() && unreachable() !== undefined;
      },
      forward: async (command) => {
        const running = owner();
        const why = unreachable();
        if (!running && why) throw new ReadOnlySessionError(why);
        await this.cluster.post(id, command);
        // Nobody runs it now: this instance takes it over, and its inbox with it.
        if (!running) void this.takeOver(id);
      },
    };
  }

  /** Why this instance cannot run the session (its folder is not here), or undefined. */
  private unreachable(header: LogHeader): string | undefined {
    const folder = header.workspace?.workDir;
    if (!folder) return undefined;
    const inside = this.reach.roots.some((root) => {
      const rel = path.relative(path.resolve(root), path.resolve(folder));
      return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
    });
    if (inside && fs.existsSync(folder)) return undefined;
    return `the session's folder ${folder} is not within this instance's reach (SKEIN_WORKDIR ${this.reach.roots.join(', ')}); only an instance that can reach it runs the session`;
  }

  /** Each heartbeat: catch up copies that missed a notification, take over orphaned sessions, drain inboxes. */
  private async tick(): Promise<void> {
    // Called from notifications too (not only the heartbeat's guarded timer): a database error is reported, never thrown.
    try {
      await this.checkAll();
    } catch (err) {
      this.warn('*', 'the heartbeat check', err);
    }
  }

  private async checkAll(): Promise<void> {
    const host = this.host;
    if (!host) return;
    const copies: string[] = [];
    const owned: string[] = [];
    for (const [id, live] of host.loaded()) (live.session.remote ? copies : owned).push(id);
    const last = await this.cluster.lastSeqs(copies);
    for (const id of copies) if ((last.get(id) ?? 0) > (this.store.lastSeq(id) ?? 0)) await this.store.catchUp(id);
    for (const id of await this.cluster.orphaned()) await this.takeOver(id);
    // A copy whose lease is free, or ours (given to this instance), becomes the running session.
    for (const id of copies) {
      const hint = this.cluster.ownerHint(id);
      if (hint === 'me' || hint === 'free') await this.takeOver(id);
    }
    // Inboxes are drained on their notification; the heartbeat drains only those holding rows (a lost
    // notification, a delete that failed): one query, not one per session run here (1,000 opened: 1,000 a second).
    const waiting = await this.cluster.withInbox(owned);
    for (const id of owned) {
      const hint = this.cluster.ownerHint(id);
      const log = host.peek(id)?.session.log as { conflicted?: boolean } | undefined;
      // Fencing: another instance took the lease (this one looked dead, e.g. a stalled event loop), or
      // committed seqs this copy also wrote. Start again from the table: as its copy, or as the owner.
      if ((hint !== 'me' && hint !== 'free') || log?.conflicted) {
        this.warn(id, 'running it here', new Error(hint !== 'me' ? `another instance (${hint}) holds its lease now` : 'another writer committed its next events'));
        await this.store.reread(id);
        host.reload(id);
      } else if (hint === 'me' && (waiting.has(id) || this.applied.get(id)?.size)) await this.drain(id);
    }
  }

  /** Takes an orphaned session's lease (when its folder is here), then runs it from the table's last event. */
  private async takeOver(id: string): Promise<void> {
    const host = this.host;
    if (!host || this.takingOver.has(id)) return;
    // A session out of reach: only its header is read (its events are, once it is ours).
    const known = this.store.header(id) ?? (await this.store.peekHeader(id).catch(() => undefined));
    if (known && this.unreachable(known)) return;
    // Already run here (a second call after the first took it): reloading would cut its turn.
    const here = host.peek(id);
    if (here && !here.session.remote) return;
    this.takingOver.add(id);
    try {
      await this.store.catchUp(id);
      const header = this.store.header(id);
      if (!header || this.unreachable(header)) return;
      if (!(await this.cluster.claim(id))) {
        // Another instance got it: the events read for nothing go again, unless it is open here.
        if (!host.peek(id)) this.store.release(id);
        return;
      }
      // Everything the old owner committed, then a fresh copy that runs: its interrupted turn is closed.
      await this.store.catchUp(id);
      log.info(`took over the session from a stopped instance`, { session: id });
      host.reload(id);
      await this.drain(id);
    } catch (err) {
      this.warn(id, 'taking over', err);
    } finally {
      this.takingOver.delete(id);
    }
  }

  /** Applies what other instances posted to an owned session, once each, in order. */
  drain(id: string): Promise<void> {
    const running = this.draining.get(id);
    if (running) return running.then(() => this.drain(id));
    const next = this.applyInbox(id)
      .catch((err) => this.warn(id, 'reading its inbox', err))
      .finally(() => this.draining.delete(id));
    this.draining.set(id, next);
    return next;
  }

  private async applyInbox(id: string): Promise<void> {
    const live = await this.host?.open(id);
    if (!live || live.session.remote) return;
    let applied = this.applied.get(id);
    if (!applied) {
      // After a load: the messages a previous owner already logged are not applied twice.
      applied = new Set(live.session.log.all().flatMap((e) => (e.kind === 'user' && e.inbox !== undefined ? [e.inbox] : [])));
      this.applied.set(id, applied);
    }
    const rows = (await this.cluster.inbox(id)).filter((row) => !applied.has(row.id));
    for (const row of rows) {
      // A command the session could not take (its log refused the write) stays in the inbox for the next drain.
      if (this.apply(live, row)) applied.add(row.id);
    }
    if (!rows.length && !applied.size) return;
    await live.session.durable();
    // Only what was applied (and is durable) goes; a row committed late is read at the next drain.
    const done = [...applied];
    await this.cluster.done(id, done);
    for (const rowId of done) applied.delete(rowId);
    // Rows deleted are never read again; their messages stay in the log (a new owner rebuilds the set from it).
  }

  private apply(live: LiveSession, row: InboxRow): boolean {
    const command = row.command;
    try {
      if (command.type === 'user_message') void live.session.userMessage(command.text, command.images, row.id);
      else if (command.type === 'cancel') void live.session.cancel();
      else if (command.type === 'compact') void live.session.requestCompaction({ trigger: 'manual', ...(command.instructions && { instructions: command.instructions }) });
      else decideApproval(live, command.callId, command.decision, command.reason);
      return true;
    } catch (err) {
      // A decision for a call no longer waiting is moot (done); anything else is reported and tried again later.
      if (err instanceof NoPendingApprovalError) return true;
      this.warn(live.session.id, `applying a forwarded ${command.type}`, err);
      return false;
    }
  }

  private warn(session: string, what: string, err: unknown): void {
    log.warn(`cluster: ${what} failed: ${err instanceof Error ? err.message : String(err)}`, { session });
  }
}
