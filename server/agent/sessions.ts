// All sessions of a server: created, listed by last activity, loaded lazily.
// At start only the sessions index is read (see SessionIndex); a session's log
// is loaded when it is opened, posted to or its agent must run, and unloaded
// after SKEIN_SESSION_IDLE_UNLOAD_MS without use.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { FORKED_HERE, type Gauge, type ScanProgress, type SessionListFrame, type SessionSnapshot, type SkeinEvent, type Workspace } from '../../shared/protocol.js';
import type { Config } from '../config.js';
import type { CompactionStrategy } from '../compaction/pipeline.js';
import type { Provider } from '../llm/types.js';
import { createProvider, createProviderOrPlaceholder, type ProviderChoice } from '../llm/providers.js';
import { warmTokenizer } from '../llm/tokens.js';
import type { NamedSecret } from '../tools/env.js';
import { EventLog, type LogHeader } from '../store/event-log.js';
import { SessionIndex, logFileMentions, userTextOf } from '../store/session-index.js';
import type { SessionLog } from '../store/session-log.js';
import type { PgStore } from '../store/postgres/pg-store.js';
import { logLines } from '../store/jsonl-export.js';
import { metaMtime, readMeta, writeMeta, type SessionMeta } from '../manage/meta.js';
import type { ScanContext } from '../store/log-scan.js';
import { LogScan, type ScanHost } from './log-scan-runner.js';
import { estimatedGauge } from './gauge.js';
import { copySavedMessage, copySavedOutputs, forkedEvents } from '../manage/fork.js';
import { Trash } from '../manage/trash.js';
import { createWorkspace, removeWorktree, type WorkspaceRequest } from '../workspace/workspace.js';
import type { McpHub } from '../mcp/hub.js';
import { log as logger } from '../log.js';
import type { Agent } from './agent.js';
import type { ClusterHost, ClusterRoles } from './cluster-roles.js';
import { ReadOnlySessionError } from './remote-owner.js';
import type { PgEventLog } from '../store/postgres/pg-event-log.js';
import { modelServices, providerSettings, type ModelServices } from './model-switch.js';
import type { Session } from './session.js';
import { liveSession } from './session-factory.js';
import { maskSecrets } from '../tools/env.js';
import type { IndexEntry } from '../store/session-index.js';
import { UserTextTracker } from '../store/postgres/pg-summaries.js';
import type { PageQuery, Page } from '../http/event-page.js';
import { loadFromDatabase, SummaryFollower, type DatabaseHost } from './database-sessions.js';

/** Default of SKEIN_SESSION_IDLE_UNLOAD_MS. */
export const DEFAULT_IDLE_UNLOAD_MS = 600_000;

export interface SessionOptions {
  strategies?: CompactionStrategy[];
  /** Cap a huge tool result as it arrives (default true). */
  resultCap?: boolean;
  /** Values masked in every tool output (the access token, which is not in the environment). */
  toolSecrets?: NamedSecret[];
  /** Stands between a session and its provider (benchmarks: a server whose real window is smaller than skein is told). */
  wrapProvider?: (provider: Provider) => Provider;
  /** The MCP servers: their tools join each session's tools at its start; their failures reach every timeline. */
  mcp?: McpHub;
  /** Sees every event any session appends, after it is on disk (metrics). */
  onEvent?: (sessionId: string, event: SkeinEvent) => void;
  /** SKEIN_DATABASE_URL: the sessions' events live in PostgreSQL (see PgStore); absent: JSONL files. */
  database?: PgStore;
  /** Several instances on that database: which sessions this one runs (see cluster-roles.ts). */
  cluster?: ClusterRoles;
}

export interface LiveSession {
  session: Session;
  agent: Agent;
}

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
  /** When each loaded session was last used (get, post, its agent). */
  private readonly lastUsed = new Map<string, number>();
  private readonly idleUnloadMs: number;
  private sweepTimer: ReturnType<typeof setInterval> | undefined;
  private saveTimer: ReturnType<typeof setTimeout> | undefined;
  /** Loaded sessions whose index entry must be taken again at the next index write. */
  private readonly indexDirty = new Set<string>();
  /** The first scan of logs the index did not describe (see loadAll). */
  private scan: LogScan | undefined;
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
    const files = fs.readdirSync(this.dir);
    const names = files.filter((f) => f.endsWith('.jsonl')).sort();
    // Few sessions have a meta file (renamed or archived): only theirs are looked at.
    const metas = new Set(files.filter((f) => f.endsWith('.meta.json')).map((f) => f.slice(0, -'.meta.json'.length)));
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
        continue;
      }
      stale.push(id);
    }
    this.scan = new LogScan(stale, this.scanHost());
    this.scanned = this.scan.run().then(() => this.saveIndex());
    void this.saveIndex();
    this.startSweep();
    return warnings;
  }

  /** loadAll on PostgreSQL: the list from the summaries table (see database-sessions.ts). */
  async loadFromDatabase(): Promise<string[]> {
    const warnings: string[] = this.trash.purge();
    this.index.clear();
    warnings.push(...(await loadFromDatabase(this.databaseHost())));
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
      idle: (live) => this.idle(live),
      unload: (id) => this.unload(id),
      entryOf: (live) => this.entryOf(live),
      entryChanged: (snapshot) => this.emit({ type: 'session', session: snapshot }),
      listed: (entry) => this.listed(entry),
      scanContext: (id) => this.scanContext(id),
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
    return db !== undefined && !this.live.has(id) && this.index.has(id) && !db.fetched(id);
  }

  /** GET /events: on PostgreSQL the page is cut in SQL (the session need not be loaded); undefined: no such session. */
  async page(id: string, query: PageQuery, pageOf: (events: readonly SkeinEvent[], query: PageQuery) => Page): Promise<Page | undefined> {
    const db = this.options.database;
    if (db) return this.index.has(id) || this.live.has(id) ? db.page(id, query) : undefined;
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
  private listed(entry: IndexEntry): SessionSnapshot {
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
  private scanContext(id: string): ScanContext {
    // The mtime before the read: a rename landing in between leaves an entry that is stale, not wrong.
    const metaMtimeMs = metaMtime(this.dir, id);
    return {
      meta: readMeta(this.dir, id),
      metaMtimeMs,
      defaultEffort: this.config.reasoningEffort ?? 'default',
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
   * index: no log is read, except to search a session whose user text is
   * longer than the index keeps (USER_TEXT_CAP).
   */
  list(filter: ListFilter = {}): SessionSnapshot[] {
    const query = filter.query?.trim().toLowerCase();
    const rows: SessionSnapshot[] = [];
    for (const id of this.index.ids()) {
      const live = this.live.get(id);
      const entry = this.index.get(id)!;
      // A session that never switched follows this server's SKEIN_APPROVAL, whatever it was when the entry was taken.
      const snapshot = live ? live.session.snapshot() : this.listed(entry);
      if (!filter.archived && snapshot.archived) continue;
      if (query && !this.mentions(id, snapshot.title, query)) continue;
      rows.push(snapshot);
    }
    // ISO times compare as strings (localeCompare costs ten times more at thousands of rows).
    return rows.sort((a, b) => (a.lastActivity < b.lastActivity ? 1 : a.lastActivity > b.lastActivity ? -1 : 0));
  }

  private mentions(id: string, title: string, query: string): boolean {
    if (title.toLowerCase().includes(query)) return true;
    const live = this.live.get(id);
    if (live) return live.session.log.all().some((e) => e.kind === 'user' && e.text.toLowerCase().includes(query));
    const entry = this.index.get(id)!;
    if (entry.userText.includes(query)) return true;
    return !entry.userTextComplete && logFileMentions(path.join(this.dir, `${id}.jsonl`), query);
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
    const events = forkedEvents(source.session.log, seq).map((e) => (e.kind === 'user' && e.saved ? { ...e, saved: copySavedMessage(e.saved, path.join(this.dir, newIdValue, 'outputs')) } : e));
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
    this.capture(id, live);
    log.onDurable(() => this.changed(id));
    if (this.options.database) {
      const texts = new UserTextTracker(() => log.all());
      (log as PgEventLog).summarize = () => this.entryOf(live, texts);
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
    if (entry) this.index.set(id, entry);
  }

  /** The list entry of a loaded session now (`texts`: its user text kept incrementally). */
  private entryOf({ session }: LiveSession, texts?: UserTextTracker): IndexEntry | undefined {
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
      ...(texts ? texts.now() : userTextOf(session.log.all())),
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

