// All sessions of a server: created, listed by last activity, loaded lazily.
// At start only the sessions index is read (see SessionIndex); a session's log
// is loaded when it is opened, posted to or its agent must run, and unloaded
// after SKEIN_SESSION_IDLE_UNLOAD_MS without use.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { FORKED_HERE, type Gauge, type ListedSession, type ScanProgress, type SessionListFrame, type SessionSnapshot, type SkeinEvent, type Workspace } from '../../shared/protocol.js';
import type { Config } from '../config.js';
import { createProvider, createProviderOrPlaceholder, type ProviderChoice } from '../llm/providers.js';
import { warmTokenizer } from '../llm/tokens.js';
import { EventLog, type LogHeader } from '../store/event-log.js';
import { SessionIndex } from '../store/session-index.js';
import { SessionSearch, type TailToRead } from './session-search.js';
import type { SessionLog } from '../store/session-log.js';
import type { PgStore } from '../store/postgres/pg-store.js';
import { logLines } from '../store/jsonl-export.js';
import { metaMtime, readMeta, writeMeta, type SessionMeta } from '../manage/meta.js';
import type { ScanContext } from '../store/log-scan.js';
import { LogScan, type ScanHost } from './log-scan-runner.js';
import { estimatedGauge } from './gauge.js';
import { copySavedMessage, copySavedOutputs, forkedEvents } from '../manage/fork.js';
import { copyImages } from '../images/image-files.js';
import { Trash } from '../manage/trash.js';
import { createWorkspace, removeWorktree, type WorkspaceRequest } from '../workspace/workspace.js';
import type { McpHub } from '../mcp/hub.js';
import { log as logger } from '../log.js';
import type { ClusterHost } from '../cluster/cluster-roles.js';
import { ReadOnlySessionError } from '../cluster/remote-owner.js';
import type { PgEventLog } from '../store/postgres/pg-event-log.js';
import { modelServices, providerSettings, type ModelServices } from './model-switch.js';
import { liveSession } from './session-factory.js';
import { maskSecrets } from '../tools/env.js';
import type { IndexEntry } from '../store/session-index.js';
import { UserTextTracker } from '../store/postgres/pg-summaries.js';
import type { PageQuery, Page } from '../http/event-page.js';
import { loadFromDatabase, SummaryFollower, type DatabaseHost } from './database-sessions.js';

/** Default of SKEIN_SESSION_IDLE_UNLOAD_MS. */
export const DEFAULT_IDLE_UNLOAD_MS = 600_000;

export type { SessionOptions } from './session-options.js';
export type { LiveSession } from './live-session.js';
import type { SessionOptions } from './session-options.js';
import type { LiveSession } from './live-session.js';

/** The session is in the middle of a turn or a compaction (HTTP 409). */
export class SessionBusyError extends Error {
  override readonly name = 'SessionBusyError';
}

export type ListListener = (frame: SessionListFrame) => void;

/** GET /api/sessions filters. */
export interface ListFilter {
  /** Archived sessions are listed too (marked `archived`). */
  archived?: boolean;
  /** Case-insensitive text that the title or a user message must contain. */
  query?: string;
}

export class Sessions implements ClusterHost {
  private readonly live = new Map<string, LiveSession>();
  private readonly dir: string;
  private readonly models: ModelServices;
  readonly trash: Trash;
  private readonly listeners = new Set<ListListener>();
  /** Sessions whose list entry changed and is about to be sent (changes are coalesced). */
  private readonly dirty = new Set<string>();
  private flushTimer: ReturnType<typeof setTimeout> | undefined;
  /** The last MCP state change each server reported to the timelines. */
  private readonly lastMcp = new Map<string, { state: string; retryInMs?: number }>();
  /** What the list needs of every session, loaded or not. */
  readonly index: SessionIndex;
  /** What users typed, for ?q= (no log is read for a query). */
  readonly search: SessionSearch;
  /** When each loaded session was last used (get, post, its agent). */
  private readonly lastUsed = new Map<string, number>();
  private readonly idleUnloadMs: number;
  private sweepTimer: ReturnType<typeof setInterval> | undefined;
  private saveTimer: ReturnType<typeof setTimeout> | undefined;
  /** Loaded sessions whose index entry must be taken again at the next index write. */
  private readonly indexDirty = new Set<string>();
  /** The first scan of logs the index did not describe (see loadAll). */
  private scan: Pick<LogScan, 'pending' | 'progress' | 'run'> | undefined;
  /** Resolves once that scan is done and its entries written. */
  scanned: Promise<void> = Promise.resolve();
  private closing = false;
  /** New sessions whose lease is being taken (several instances on one database). */
  private readonly claimed = new Map<string, Promise<void>>();
  /** How many logs were read since this object was made (tests prove a start reads none). */
  logsLoaded = 0;

  constructor(
    private readonly config: Config,
    /** In-code choices with no setting: another compaction pipeline, no result cap (benchmarks use them). */
    private readonly options: SessionOptions = {},
  ) {
    this.dir = path.join(config.dataDir, 'sessions');
    fs.mkdirSync(this.dir, { recursive: true });
    this.models = modelServices(config);
    this.trash = new Trash(config.dataDir, this.dir);
    this.index = new SessionIndex(this.dir);
    this.search = new SessionSearch(this.dir);
    this.idleUnloadMs = config.sessionIdleUnloadMs ?? DEFAULT_IDLE_UNLOAD_MS;
    options.mcp?.onStateChange((change) => this.reportMcp(change));
  }

  /** The PostgreSQL store (SKEIN_DATABASE_URL), if any. */
  get store(): PgStore | undefined {
    return this.options.database;
  }

  /** GET /api/mcp. */
  get mcp(): McpHub | undefined {
    return this.options.mcp;
  }

  /** An MCP server that failed, or became ready again, is shown in every live session's timeline. */
  private reportMcp(change: { server: string; state: 'starting' | 'ready' | 'failed' | 'stopped'; message: string; retryInMs?: number }): void {
    if (change.state !== 'failed' && change.state !== 'ready') return;
    // A server that stays down is retried every minute for ever: once the pause stops growing, its timelines hear no more until it is back.
    const last = this.lastMcp.get(change.server);
    this.lastMcp.set(change.server, change);
    if (change.state === 'failed' && last?.state === 'failed' && last.retryInMs === change.retryInMs) return;
    for (const { session } of this.live.values()) {
      if (session.remote) continue; // the instance that runs it reports its own
      try {
        session.append({ kind: 'mcp', ...change });
      } catch {
        /* a log that refuses writes: the state is still in GET /api/mcp */
      }
    }
  }

  /**
   * Reads the sessions index; only the sessions that were mid-turn are loaded
   * (their interrupted turns closed) before this returns. The logs the index
   * does not describe (missing or stale entries) are scanned after it, one at
   * a time, while the list is served (see `scanning`). Returns warnings for
   * the server log.
   */
  loadAll(): string[] {
    const warnings: string[] = this.trash.purge();
    const saved = this.index.readSaved({ repair: true });
    this.index.clear();
    this.search.load();
    const tails: TailToRead[] = [];
    const files = fs.readdirSync(this.dir);
    const names = files.filter((f) => f.endsWith('.jsonl')).sort();
    // Few sessions have a meta file (renamed or archived): only theirs are looked at.
    const metas = new Set(files.filter((f) => f.endsWith('.meta.json')).map((f) => f.slice(0, -'.meta.json'.length)));
    this.metaIds = metas;
    const stale: string[] = [];
    for (const name of names) {
      const id = name.slice(0, -'.jsonl'.length);
      const entry = saved.get(id);
      let stat: fs.Stats;
      try {
        stat = fs.statSync(path.join(this.dir, name));
      } catch {
        continue;
      }
      if (SessionIndex.fresh(entry, stat, metas.has(id) ? metaMtime(this.dir, id) : undefined)) {
        this.index.set(id, entry, false);
        if (entry.needsStart) this.load(id, warnings);
        else if (this.search.behind(id, stat.size)) tails.push({ id, file: path.join(this.dir, name), size: stat.size, lastSeq: entry.snapshot.lastSeq });
        continue;
      }
      stale.push(id);
    }
    this.scan = new LogScan(stale, this.scanHost());
    // Then the search index reads what logs gained past its marks (a crash before it was written).
    this.scanned = this.scan
      .run()
      .then(() => this.search.readTails(tails, (id) => this.index.has(id)))
      .then(() => this.saveIndex());
    void this.saveIndex();
    this.startSweep();
    return warnings;
  }

  /** loadAll on PostgreSQL: the list from the summaries table (see database-sessions.ts). */
  async loadFromDatabase(): Promise<string[]> {
    const warnings: string[] = this.trash.purge();
    this.index.clear();
    this.search.load();
    const { warnings: loaded, build } = await loadFromDatabase(this.databaseHost());
    warnings.push(...loaded);
    [this.scan, this.scanned] = [build, build.run()];
    this.startSweep();
    return warnings;
  }

  private startSweep(): void {
    this.sweepTimer ??= setInterval(() => this.sweep(), Math.max(50, Math.min(this.idleUnloadMs / 2, 30_000)));
    this.sweepTimer.unref();
  }

  private dbHost: DatabaseHost | undefined;
  private follower: SummaryFollower | undefined;
  private databaseHost(): DatabaseHost {
    const db = this.options.database!;
    this.dbHost ??= {
      db,
      index: this.index,
      isLoaded: (id) => this.live.has(id),
      load: (id, warnings) => this.load(id, warnings),
      peek: (id) => this.live.get(id),
      idle: (live) => this.idle(live),
      unload: (id) => this.unload(id),
      entryOf: (live) => this.entryOf(live),
      entryChanged: (snapshot) => this.emit({ type: 'session', session: snapshot }),
      listed: (entry) => this.listed(entry),
      scanContext: (id) => this.scanContext(id),
      search: this.search,
      progress: (progress) => this.emit({ type: 'scanning', ...progress }),
      closed: () => this.closing,
      // What the search file (this data folder's, from the last run) lacks comes from the row; its words
      // point at the last message (the row does not say which held them) until the session is opened.
      typed: (id, entry) => {
        if (entry.userText && !this.search.covers(id, entry.snapshot.lastSeq)) this.search.added(id, entry.snapshot.lastSeq, entry.userText);
      },
    };
    return this.dbHost;
  }

  /**
   * The session, its events read from the database first when they are not
   * in memory (a route or socket asks for it this way; get() stays synchronous).
   */
  async open(id: string): Promise<LiveSession | undefined> {
    if (this.mustFetch(id)) await this.options.database!.fetch(id);
    return this.get(id);
  }

  /** PostgreSQL: the session is listed but its events are not in memory (open() reads them). */
  mustFetch(id: string): boolean {
    const db = this.options.database;
    return db !== undefined && !this.live.has(id) && (this.index.has(id) || this.scan?.pending(id) === true) && !db.fetched(id);
  }

  /** GET /events: on PostgreSQL the page is cut in SQL (the session need not be loaded); undefined: no such session. */
  async page(id: string, query: PageQuery, pageOf: (events: readonly SkeinEvent[], query: PageQuery) => Page): Promise<Page | undefined> {
    const db = this.options.database;
    if (db) return this.index.has(id) || this.live.has(id) || this.scan?.pending(id) ? db.page(id, query) : undefined;
    const live = this.get(id);
    return live && pageOf(live.session.events(), query);
  }

  /** A session made or changed on another instance: its list entry is read from its summary row. */
  noticed(id: string): void {
    if (!this.options.database || this.closing) return;
    this.follower ??= new SummaryFollower(this.databaseHost());
    this.follower.noticed(id);
  }

  /** What the list shows of an entry (a session that never switched follows this server's SKEIN_APPROVAL). */
  private listed(entry: IndexEntry): ListedSession {
    return { ...entry.snapshot, mode: entry.chosenMode ?? this.config.approval };
  }

  /** How far the first scan of the logs the index did not describe has got (absent once it is done). */
  get scanning(): ScanProgress | undefined {
    return this.scan?.progress();
  }

  /** What the background scan needs of this object. */
  private scanHost(): ScanHost {
    return {
      dir: this.dir,
      context: (id) => this.scanContext(id),
      known: (id) => this.index.has(id) || this.live.has(id),
      indexed: (id, entry) => {
        this.index.set(id, entry);
        this.search.marked(id, entry.snapshot.lastSeq, entry.size);
        this.indexChanged();
      },
      load: (id) => {
        const warnings: string[] = [];
        const live = this.load(id, warnings);
        for (const warning of warnings) console.warn(`[skein] ${warning}`);
        if (live && this.idle(live)) this.unload(id);
        else if (live) this.changed(id);
      },
      progress: (progress) => this.emit({ type: 'scanning', ...progress }),
      closed: () => this.closing,
    };
  }

  private readonly emptyGauges = new Map<string, Gauge>();
  /** The sessions with a meta file (see scanContext); undefined: not known, each is looked at. */
  private metaIds: Set<string> | undefined;
  private scanContext(id: string): ScanContext {
    // Only a session with a meta file at start (or renamed since) has one to read: thousands of failed opens cost more than the scan.
    const hasMeta = this.metaIds?.has(id) ?? true;
    // The mtime before the read: a rename landing in between leaves an entry that is stale, not wrong.
    const metaMtimeMs = hasMeta ? metaMtime(this.dir, id) : undefined;
    return {
      meta: hasMeta ? readMeta(this.dir, id) : {},
      metaMtimeMs,
      defaultEffort: this.config.reasoningEffort ?? 'default',
      onUser: (seq, text) => this.search.added(id, seq, text),
      emptyGauge: (model) => {
        let gauge = this.emptyGauges.get(model);
        if (!gauge) {
          const window = createProviderOrPlaceholder(model, providerSettings(this.config)).info.contextWindow;
          gauge = estimatedGauge(0, undefined, model, window, this.config.compactThresholdRatio);
          this.emptyGauges.set(model, gauge);
        }
        return gauge;
      },
    };
  }

  /** Loads a session's log and starts its agent; an interrupted turn is closed, queued compactions run. */
  private load(id: string, warnings: string[] = []): LiveSession | undefined {
    const name = `${id}.jsonl`;
    try {
      const db = this.options.database;
      const { log, report } = db ? db.open(id) : EventLog.open(path.join(this.dir, name));
      this.logsLoaded++;
      if (report.tornTail !== undefined) warnings.push(`${name}: skipped a torn last line (${report.tornTail.length} bytes) from a crash mid-write`);
      if (report.badLines.length) warnings.push(`${name}: skipped unreadable lines ${report.badLines.join(', ')}`);
      const live = this.start(log);
      // Another instance runs it: this copy shows what that one commits and forwards what is asked of it.
      const role = this.options.cluster?.roleAt(id, log.header);
      if (role && role !== 'owner') {
        live.session.remote = role;
        (log as PgEventLog).readOnly = role.reason;
        return live;
      }
      live.agent.recoverInterrupted();
      // Compactions that were queued and never started run now.
      if (live.session.compactions.size) live.agent.wake();
      return live;
    } catch (err) {
      this.index.delete(id);
      warnings.push(`${name}: not loaded: ${err instanceof Error ? err.message : String(err)}`);
      return undefined;
    }
  }

  /**
   * A new session in a folder of its choice (one of the SKEIN_WORKDIR roots or
   * inside one), with its own worktree when asked. Its folder, branch and
   * starting commit are recorded in its log's header.
   */
  async createIn(model = this.config.model, request: WorkspaceRequest = {}): Promise<LiveSession> {
    createProvider(model, providerSettings(this.config));
    const id = newId();
    const workspace = await createWorkspace(this.roots(), this.config.dataDir, id, request);
    const live = this.create(model, workspace, id);
    // Its lease first: no other instance may take a session that is being answered to its creator.
    await this.claimed.get(id);
    return this.live.get(id) ?? live;
  }

  create(model = this.config.model, workspace?: Workspace, id = newId()): LiveSession {
    // Refuses an unknown model, or one whose provider has no key, before writing anything.
    const choice = createProvider(model, providerSettings(this.config));
    const now = new Date();
    // Recorded only when some server is configured (the hub exists even without one, for a project file trusted later).
    const mcpTools = this.options.mcp?.size ? this.options.mcp.tools().map((t) => t.spec) : undefined;
    const header: LogHeader = { skein: 1, session: id, createdAt: now.toISOString(), model, ...(workspace && { workspace }), ...(mcpTools && { mcpTools }) };
    const log = this.options.database ? this.options.database.create(header) : EventLog.create(path.join(this.dir, `${id}.jsonl`), header);
    const live = this.start(log, choice);
    this.changed(id);
    // Once its row is in the database (its first group), so that other instances can read it when told.
    const cluster = this.options.cluster;
    const claim = cluster && Promise.resolve((log as SessionLog).flushed?.()).then(() => cluster.created(id)).catch((err: unknown) => logger.warn(`cluster: could not take the new session's lease: ${err instanceof Error ? err.message : String(err)}`, { session: id }));
    if (claim) {
      this.claimed.set(id, claim);
      void claim.finally(() => this.claimed.delete(id));
    }
    // The timeline starts with the MCP servers as they are: which tools the session has, which were skipped, which server is down.
    for (const state of this.options.mcp?.states() ?? []) live.session.append({ kind: 'mcp', ...state });
    if (choice.warning) {
      logger.warn(choice.warning, { session: id });
      live.session.append({ kind: 'error', message: choice.warning, code: 'unknown_model' });
    }
    return live;
  }

  /** The session, its log loaded on demand; undefined for an id that is not a session. */
  get(id: string): LiveSession | undefined {
    let live = this.live.get(id);
    // A session the first scan has not reached yet is loaded all the same.
    if (!live && (this.index.has(id) || this.scan?.pending(id))) {
      // PostgreSQL: open() reads the events first; a caller that did not is told, the entry stays.
      if (this.options.database && !this.options.database.fetched(id)) {
        logger.warn('a session was asked for before its events were read from the database', { session: id });
        return undefined;
      }
      const warnings: string[] = [];
      live = this.load(id, warnings);
      for (const warning of warnings) console.warn(`[skein] ${warning}`);
    }
    if (live) this.lastUsed.set(id, Date.now());
    return live;
  }

  /** Whether the session's log is in memory now. */
  isLoaded(id: string): boolean {
    return this.live.has(id);
  }

  loaded(): Iterable<[string, LiveSession]> {
    return [...this.live];
  }

  peek(id: string): LiveSession | undefined {
    return this.live.get(id);
  }

  /** A fresh copy of a loaded session, its role decided again (it moved between instances); its clients reconnect. */
  reload(id: string): void {
    const live = this.live.get(id);
    if (live) {
      live.session.evict();
      this.unload(id);
    }
    this.load(id);
    this.changed(id);
  }

  /** A session another instance deleted: its copy closes (clients are told it is gone) and it leaves the list. */
  vanished(id: string): void {
    if (!this.index.has(id) && !this.live.has(id)) return;
    const live = this.live.get(id);
    if (live) {
      this.live.delete(id);
      live.agent.close();
      live.session.log.close();
    }
    this.index.delete(id);
    this.search.removed(id);
    this.lastUsed.delete(id);
    this.dirty.delete(id);
    this.indexDirty.delete(id);
    void this.saveIndex();
    this.emit({ type: 'session_removed', id });
  }

  /** A session another instance made: listed from now on. */
  discovered(id: string): void {
    if (this.index.has(id) || this.live.has(id)) return;
    // Listed from its summary row: its events are read only when it is opened here.
    this.noticed(id);
  }

  /**
   * Most recent activity first; archived sessions only when asked. From the
   * index: no log is read. With a query, the sessions whose title contains it
   * or whose messages hold its words (the search index), each saying where.
   */
  list(filter: ListFilter = {}): ListedSession[] {
    const query = filter.query?.trim().toLowerCase();
    const hits = query ? this.search.search(query) : undefined;
    const rows: ListedSession[] = [];
    for (const id of this.index.ids()) {
      const entry = this.index.get(id)!;
      const seq = hits?.get(id);
      if (query && seq === undefined && !entry.snapshot.title.toLowerCase().includes(query)) continue;
      const live = this.live.get(id);
      // A session that never switched follows this server's SKEIN_APPROVAL, whatever it was when the entry was taken.
      const snapshot: ListedSession = live ? live.session.snapshot() : this.listed(entry);
      if (!filter.archived && snapshot.archived) continue;
      if (query) snapshot.match = seq === undefined ? {} : { seq };
      rows.push(snapshot);
    }
    // ISO times compare as strings (localeCompare costs ten times more at thousands of rows).
    return rows.sort((a, b) => (a.lastActivity < b.lastActivity ? 1 : a.lastActivity > b.lastActivity ? -1 : 0));
  }

  /** Renames (an empty title goes back to the first user message) and archives or unarchives. */
  update(id: string, change: SessionMeta & { title?: string }): SessionSnapshot | undefined {
    const live = this.get(id);
    if (!live) return undefined;
    const meta: SessionMeta = { ...live.session.meta };
    if (change.title !== undefined) {
      // Kept in <id>.meta.json and the index: masked as the log is.
      if (change.title.trim()) meta.title = maskSecrets(change.title.trim(), live.session.secrets());
      else delete meta.title;
    }
    if (change.archived !== undefined) {
      if (change.archived) meta.archived = true;
      else delete meta.archived;
    }
    writeMeta(this.dir, id, meta);
    this.metaIds?.add(id);
    live.session.meta = meta;
    // At once, flushed to disk: the index must not show the old title after a crash (the log did not change).
    this.capture(id, live);
    void this.saveIndex({ sync: true });
    const entry = this.options.database && this.entryOf(live);
    if (entry) void this.options.database!.saveSummary(id, { lastSeq: live.session.log.durableSeq, entry }).catch((err: unknown) => logger.warn(`could not write the list entry: ${err instanceof Error ? err.message : String(err)}`, { session: id }));
    this.changed(id);
    return live.session.snapshot();
  }

  /**
   * Moves a session to the trash (restorable for 30 days). Refused while a
   * turn or compaction runs (cancel it first). With `removeWorktree`, its
   * worktree goes too, but a dirty one only with `force` (DirtyWorktreeError,
   * and then nothing at all is deleted).
   */
  async delete(id: string, options: { removeWorktree?: boolean; force?: boolean } = {}): Promise<boolean> {
    const live = await this.open(id);
    if (!live) return false;
    if (live.session.remote) throw new ReadOnlySessionError(`this session ${live.session.remote.reason}: delete it there`);
    const busy = () => live.session.state !== 'WaitingForUserInput';
    if (busy()) throw new SessionBusyError(`the session is busy (${live.session.state}): cancel its turn first (POST /api/sessions/${id}/cancel), then delete it`);
    const worktree = live.session.log.header.workspace?.worktree;
    if (options.removeWorktree && worktree) await removeWorktree(worktree, options.force === true);
    // A message that arrived while git worked may have started a turn.
    if (busy() || !this.live.has(id)) throw new SessionBusyError(`the session became busy (${live.session.state}): cancel its turn first, then delete it`);
    this.live.delete(id);
    live.agent.close();
    await live.agent.whenIdle();
    live.session.log.close();
    const keptWorktree = worktree && fs.existsSync(worktree) ? worktree : undefined;
    // From the database, the trash gets the log as JSONL (restorable like any other).
    if (this.options.database) {
      await live.session.log.flushed?.();
      fs.writeFileSync(path.join(this.dir, `${id}.jsonl`), logLines(live.session.log.header, live.session.log.all()));
    }
    this.trash.put(id, live.session.title(), keptWorktree);
    if (this.options.database) await this.options.database.remove(id);
    await this.options.cluster?.forget(id);
    this.index.delete(id);
    this.search.removed(id);
    this.lastUsed.delete(id);
    this.indexDirty.delete(id);
    void this.saveIndex();
    this.dirty.delete(id);
    this.emit({ type: 'session_removed', id });
    return true;
  }

  /** Brings a session back from the trash. */
  restore(id: string): LiveSession | undefined {
    if (!this.trash.has(id) || this.index.has(id)) return undefined;
    this.trash.restore(id);
    const file = path.join(this.dir, `${id}.jsonl`);
    let { log } = EventLog.open(file) as { log: SessionLog };
    if (this.options.database) {
      // Back into the database; the JSONL copy goes.
      log.close();
      log = this.options.database.createWith(log.header, log.all());
      fs.rmSync(file);
    }
    const live = this.start(log);
    this.changed(id);
    return live;
  }

  /**
   * A new session whose history is the original's up to `seq` (copied, seqs
   * kept; the original's log is only read). A turn cut by the fork point is
   * closed in the copy. A session with its own worktree gives its fork a new
   * worktree, on `skein/<new id>`, starting where the original's branch is now.
   */
  async fork(id: string, seq: number): Promise<LiveSession | undefined> {
    const source = await this.open(id);
    if (!source) return undefined;
    const header = source.session.log.header;
    const newIdValue = newId();
    // A message saved as a file is copied with the fork, and the copy's events point to the copy's file.
    const events = forkedEvents(source.session.log, seq).map((e) => {
      if (e.kind !== 'user') return e;
      const saved = e.saved && copySavedMessage(e.saved, path.join(this.dir, newIdValue, 'outputs'));
      const images = e.images && copyImages(e.images, path.join(this.dir, newIdValue, 'images'));
      return { ...e, ...(saved && { saved }), ...(images && { images }) };
    });
    const original = header.workspace;
    const workspace = original?.worktree
      ? await createWorkspace(this.roots(), this.config.dataDir, newIdValue, { folder: original.folder, worktree: true, ...(original.branch && { startPoint: original.branch }) })
      : original;
    const forkHeader: LogHeader = { skein: 1, session: newIdValue, createdAt: new Date().toISOString(), model: header.model, ...(workspace && { workspace }), forkOf: { session: id, seq }, ...(header.mcpTools && { mcpTools: header.mcpTools }) };
    copySavedOutputs(this.dir, id, newIdValue, seq);
    const log = this.options.database ? this.options.database.createWith(forkHeader, events) : EventLog.createWith(path.join(this.dir, `${newIdValue}.jsonl`), forkHeader, events);
    writeMeta(this.dir, newIdValue, { title: `${source.session.title()} (fork)` });
    const live = this.start(log);
    live.agent.recoverInterrupted(FORKED_HERE, true);
    this.changed(newIdValue);
    return live;
  }

  /** Live list updates: every change of a session's state, title, activity or flags, and removals. */
  onListChange(listener: ListListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The roots of SKEIN_WORKDIR (configs built in code may have only workDir). */
  roots(): string[] {
    return this.config.workDirs?.length ? this.config.workDirs : [this.config.workDir];
  }

  private changed(id: string): void {
    this.lastUsed.set(id, Date.now());
    this.indexDirty.add(id);
    this.indexChanged();
    if (!this.listeners.size) return;
    this.dirty.add(id);
    // Many events in a row (a tool run, a replay) make one frame per session.
    this.flushTimer ??= setTimeout(() => {
      this.flushTimer = undefined;
      for (const changed of this.dirty) {
        const live = this.live.get(changed);
        if (live && this.index.has(changed)) this.emit({ type: 'session', session: live.session.snapshot() });
      }
      this.dirty.clear();
    }, 50);
  }

  /** The index on disk follows within a second (a crash before: the entry is stale and rebuilt). */
  private indexChanged(): void {
    this.saveTimer ??= setTimeout(() => {
      this.saveTimer = undefined;
      void this.saveIndex();
    }, 1000).unref();
  }

  private emit(frame: SessionListFrame): void {
    for (const listener of this.listeners) {
      try {
        listener(frame);
      } catch {
        // A broken listener (closed socket) must not harm the sessions.
      }
    }
  }

  /** Graceful shutdown: running turns are cancelled (tools killed), their last events written, logs closed. */
  async close(graceMs = 3000): Promise<void> {
    this.closing = true;
    this.follower?.close();
    clearTimeout(this.flushTimer);
    clearTimeout(this.saveTimer);
    this.saveTimer = undefined;
    clearInterval(this.sweepTimer);
    this.sweepTimer = undefined;
    this.listeners.clear();
    const lives = [...this.live.values()];
    // No new turn starts from here on: a message typed now is logged, not answered.
    for (const { agent } of lives) agent.close();
    const idle = Promise.all(lives.map(({ agent }) => agent.whenIdle()));
    await Promise.race([idle, new Promise((r) => setTimeout(r, graceMs).unref())]);
    for (const { session } of lives) session.log.close();
    // Bounded: a database that is down must not hold the shutdown for ever (what is not committed is lost, as in a crash).
    await Promise.race([Promise.all(lives.map(({ session }) => session.log.flushed?.())), new Promise((r) => setTimeout(r, graceMs).unref())]);
    await this.scanned;
    for (const id of this.live.keys()) this.indexDirty.add(id);
    await this.saveIndex();
    await this.search.close();
    this.live.clear();
    this.lastUsed.clear();
  }

  private start(log: SessionLog, choice?: ProviderChoice): LiveSession {
    const id = log.header.session;
    // Only a server with no session at all goes without the tokenizer (most of an idle server's memory).
    warmTokenizer();
    const live = liveSession(this.config, this.options, this.models, this.dir, log, choice);
    this.live.set(id, live);
    this.lastUsed.set(id, Date.now());
    this.search.follow(id, live.session);
    this.capture(id, live);
    log.onDurable(() => this.changed(id));
    if (this.options.database) {
      const texts = new UserTextTracker(() => log.all());
      (log as PgEventLog).summarize = () => {
        const entry = this.entryOf(live);
        return entry && { ...entry, ...texts.now() };
      };
    }
    return live;
  }

  /** Nothing runs, is queued or waits for the disk, and nobody watches: the session may be unloaded. */
  private idle({ session, agent }: LiveSession): boolean {
    return agent.ready && session.compactions.size === 0 && session.audience === 0 && session.log.durableSeq === session.log.lastSeq;
  }

  /** Unloads the sessions unused for SKEIN_SESSION_IDLE_UNLOAD_MS. */
  private sweep(): void {
    const before = Date.now() - this.idleUnloadMs;
    let unloaded = false;
    for (const [id, live] of this.live) {
      if ((this.lastUsed.get(id) ?? 0) > before || !this.idle(live)) continue;
      this.unload(id);
      // Its events are all committed: the next open reads them again.
      this.options.database?.release(id);
      unloaded = true;
    }
    if (unloaded) void this.saveIndex();
  }

  /** Synchronous, so no message can reach the agent between its close and its removal. */
  private unload(id: string): void {
    const live = this.live.get(id);
    if (!live) return;
    live.agent.close();
    live.session.log.close();
    this.capture(id, live);
    this.live.delete(id);
    this.lastUsed.delete(id);
    this.indexDirty.delete(id);
  }

  /** Records what the list needs of a loaded session, with the size and mtime of its log now. */
  private capture(id: string, live: LiveSession): void {
    const entry = this.entryOf(live);
    if (!entry) return;
    this.index.set(id, entry);
    // A loaded session is followed (see SessionSearch.follow): the index has all of it.
    this.search.marked(id, entry.snapshot.lastSeq, entry.size);
  }

  /** The list entry of a loaded session now. */
  private entryOf({ session }: LiveSession): IndexEntry | undefined {
    let stat: { size: number; mtimeMs: number };
    try {
      // A database-backed session has no file: its entry's freshness is its last_seq (see pg-summaries.ts).
      stat = this.options.database ? { size: -1, mtimeMs: -1 } : fs.statSync(session.log.file);
    } catch {
      return undefined;
    }
    const chosen = session.log.last('mode');
    const metaMtimeMs = this.options.database ? undefined : metaMtime(this.dir, session.id);
    return {
      // Everything in the file counts (a closed log is durable whole; a crash leaves a stale entry, rebuilt).
      snapshot: { ...session.snapshot(), state: session.state, lastSeq: session.log.lastSeq },
      size: stat.size,
      mtimeMs: stat.mtimeMs,
      ...(metaMtimeMs !== undefined && { metaMtimeMs }),
      needsStart: session.state !== 'WaitingForUserInput' || session.compactions.size > 0,
      ...(chosen && { chosenMode: chosen.to }),
    };
  }

  /**
   * The entries of the loaded sessions that changed since the last write are
   * taken again, and only they are appended to the index's journal, off the
   * event loop (see SessionIndex). A failure only costs a rebuild at the next start.
   */
  private saveIndex(options: { sync?: boolean } = {}): Promise<void> {
    for (const id of this.indexDirty) {
      const live = this.live.get(id);
      if (live) this.capture(id, live);
    }
    this.indexDirty.clear();
    // PostgreSQL: the summaries table is the index (no index.json beside it).
    if (this.options.database) return Promise.resolve();
    return this.index.write(options);
  }
}

function newId(): string {
  const now = new Date();
  return `${now.toISOString().slice(0, 19).replace(/[-:]/g, '').replace('T', '-')}-${crypto.randomBytes(3).toString('hex')}`;
}

