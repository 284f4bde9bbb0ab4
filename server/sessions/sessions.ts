// All sessions of a server: created, listed by last activity, loaded lazily.
// At start only the sessions index is read (see SessionIndex); a session's log
// is loaded when it is opened, posted to or its agent must run, and unloaded
// after SKEIN_SESSION_IDLE_UNLOAD_MS without use (idle-sweep.ts). This class
// is the lifecycle of the loaded sessions; its parts, each given what it needs
// of it (host.ts): the list and its index (list-index.ts), what a start reads
// (start-scan.ts), new sessions (create.ts), trash (trash.ts), fork (fork.ts),
// the side other instances and the database see (cluster-host.ts).
import fs from 'node:fs';
import path from 'node:path';
import type { ListedSession, ScanProgress, SessionSnapshot, SkeinEvent, Workspace } from '../../shared/protocol.js';
import type { Config } from '../config.js';
import type { ProviderChoice } from '../llm/providers.js';
import { warmTokenizer } from '../llm/tokens.js';
import { EventLog } from '../store/event-log.js';
import { SessionIndex } from '../store/session-index.js';
import { LogReads } from '../store/log-reads.js';
import type { SessionLog } from '../store/session-log.js';
import type { PgStore } from '../store/postgres/pg-store.js';
import type { SessionMeta } from '../manage/meta.js';
import { Trash } from '../manage/trash.js';
import type { WorkspaceRequest } from '../workspace/workspace.js';
import type { McpHub } from '../mcp/hub.js';
import { log as logger } from '../log.js';
import type { ClusterHost } from '../cluster/cluster-roles.js';
import type { PgEventLog } from '../store/postgres/pg-event-log.js';
import { UserTextTracker } from '../store/postgres/pg-summaries.js';
import type { PageQuery, Page } from '../http/event-page.js';
import { modelServices, type ModelServices } from '../agent/model-switch.js';
import { loadFromDatabase, type DatabaseHost } from './database-sessions.js';
import { SessionSearch } from './session-search.js';
import { liveSession } from './session-factory.js';
import { newId } from './session-id.js';
import type { SessionsHost } from './host.js';
import { SessionList, type ListFilter, type ListListener } from './list-index.js';
import { StartScan } from './start-scan.js';
import { deleteSession, restoreSession } from './trash.js';
import { forkSession, type ForkOptions } from './fork.js';
import { ClusterSide } from './cluster-host.js';
import { createSession, createSessionIn } from './create.js';
import { McpReports } from './mcp-reports.js';
import { IdleSweep } from './idle-sweep.js';
import { Projects } from '../projects/projects.js';
import { ProjectRequests } from '../projects/project-requests.js';
import { Subagents } from '../subagents/children.js';
import { closedAtRestart } from '../subagents/restart.js';

/** Default of SKEIN_SESSION_IDLE_UNLOAD_MS. */
export const DEFAULT_IDLE_UNLOAD_MS = 600_000;

export type { SessionOptions } from './session-options.js';
export type { LiveSession } from '../agent/live-session.js';
import type { SessionOptions } from './session-options.js';
import type { LiveSession } from '../agent/live-session.js';

export { SessionBusyError } from './trash.js';
export type { ListFilter, ListListener } from './list-index.js';

export class Sessions implements ClusterHost {
  private readonly live = new Map<string, LiveSession>();
  private readonly dir: string;
  private readonly models: ModelServices;
  readonly trash: Trash;
  /** Sessions whose list entry changed and is about to be sent (changes are coalesced). */
  private readonly dirty = new Set<string>();
  /** What the list needs of every session, loaded or not. */
  readonly index: SessionIndex;
  /** What users typed, for ?q= (no log is read for a query). */
  readonly search: SessionSearch;
  /** When each loaded session was last used (get, post, its agent). */
  private readonly lastUsed = new Map<string, number>();
  /** Loaded sessions whose index entry must be taken again at the next index write. */
  private readonly indexDirty = new Set<string>();
  private closing = false;
  /** New sessions whose lease is being taken (several instances on one database). */
  private readonly claimed = new Map<string, Promise<void>>();
  /** The parts (see the top of this file), each given what it needs of this object. */
  private readonly listing: SessionList;
  private readonly starter: StartScan;
  private readonly cluster: ClusterSide;
  private readonly sweeper: IdleSweep;
  private readonly host: SessionsHost;
  private readonly subagents: Subagents; // the `task` tool's child sessions (subagents/)
  logsLoaded = 0; // how many logs were read since this object was made (tests prove a start reads none)
  /** JSONL: the logs being read for open(), in slices off the event loop (two opens share one read). */
  readonly reads = new LogReads();
  readonly projects: Projects; // the folders the user chose (a new session's must be one or inside one)
  readonly projectRequests: ProjectRequests;

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
    this.projects = new Projects(config.dataDir, config.workDirs?.length ? config.workDirs : [config.workDir]);
    this.projectRequests = new ProjectRequests(this.projects);
    const mcpReports = new McpReports(this.live);
    options.mcp?.onStateChange((change) => mcpReports.report(change));
    this.host = {
      dir: this.dir,
      config,
      options,
      live: this.live,
      lastUsed: this.lastUsed,
      dirty: this.dirty,
      indexDirty: this.indexDirty,
      index: this.index,
      search: this.search,
      trash: this.trash,
      claimed: this.claimed,
      pending: (id) => this.starter.pending(id) === true,
      reads: this.reads,
      closing: () => this.closing,
      open: (id) => this.open(id),
      get: (id) => this.get(id),
      load: (id, warnings) => this.load(id, warnings),
      start: (log, choice) => this.start(log, choice),
      unload: (id) => this.unload(id),
      idle: (live) => this.idle(live),
      roots: () => this.roots(),
      changed: (id) => this.listing.changed(id),
      indexChanged: () => this.listing.indexChanged(),
      emit: (frame) => this.listing.emit(frame),
      saveIndex: (options) => this.listing.saveIndex(options),
      capture: (id, live) => this.listing.capture(id, live),
      entryOf: (live) => this.listing.entryOf(live),
      listed: (entry) => this.listing.listed(entry),
      scanContext: (id) => this.starter.scanContext(id),
      metaWritten: (id) => this.starter.metaWritten(id),
    };
    this.listing = new SessionList(this.host);
    this.starter = new StartScan(this.host);
    this.cluster = new ClusterSide(this.host);
    this.sweeper = new IdleSweep(this.host, config.sessionIdleUnloadMs ?? DEFAULT_IDLE_UNLOAD_MS);
    this.subagents = new Subagents({ config, roots: () => this.roots(), get: (id) => this.get(id), createChild: (model, workspace, subagent, id = newId()) => createSession(this.host, model, workspace, id, subagent) });
  }

  /** The PostgreSQL store (SKEIN_DATABASE_URL), if any. */
  get store(): PgStore | undefined {
    return this.options.database;
  }

  /** GET /api/mcp. */
  get mcp(): McpHub | undefined {
    return this.options.mcp;
  }

  /**
   * Reads the sessions index; only the sessions that were mid-turn are loaded
   * (their interrupted turns closed) before this returns. The logs the index
   * does not describe are scanned after it, in the background (see start-scan.ts).
   * Returns warnings for the server log.
   */
  loadAll(): string[] {
    const warnings = this.starter.loadAll();
    this.startSweep();
    return warnings;
  }

  /** Resolves once the first scan is done and its entries written. */
  get scanned(): Promise<void> {
    return this.starter.scanned;
  }

  /** How far the first scan of the logs the index did not describe has got (absent once it is done). */
  get scanning(): ScanProgress | undefined {
    return this.starter.scanning;
  }

  /** loadAll on PostgreSQL: the list from the summaries table (see database-sessions.ts). */
  async loadFromDatabase(): Promise<string[]> {
    const warnings: string[] = this.trash.purge();
    this.index.clear();
    this.search.load();
    const { warnings: loaded, build } = await loadFromDatabase(this.databaseHost());
    warnings.push(...loaded);
    this.starter.adopt(build);
    this.startSweep();
    return warnings;
  }

  private startSweep(): void {
    this.sweeper.start();
  }

  /** The PostgreSQL list's view of this object (cluster-host.ts). */
  private databaseHost(): DatabaseHost {
    return this.cluster.databaseHost();
  }

  /**
   * The session, its events read from the database first when they are not
   * in memory (a route or socket asks for it this way; get() stays synchronous).
   */
  async open(id: string): Promise<LiveSession | undefined> {
    if (this.mustFetch(id)) await this.options.database!.fetch(id);
    else if (!this.options.database && !this.live.has(id) && (this.index.has(id) || this.starter.pending(id))) await this.reads.read(id, path.join(this.dir, `${id}.jsonl`));
    return this.get(id);
  }

  /** PostgreSQL: the session is listed but its events are not in memory (open() reads them). */
  mustFetch(id: string): boolean {
    const db = this.options.database;
    return db !== undefined && !this.live.has(id) && (this.index.has(id) || this.starter.pending(id) === true) && !db.fetched(id);
  }

  /** GET /events: on PostgreSQL the page is cut in SQL (cluster-host.ts). */
  page(id: string, query: PageQuery, pageOf: (events: readonly SkeinEvent[], query: PageQuery) => Page): Promise<Page | undefined> {
    return this.cluster.page(id, query, pageOf);
  }

  /** Loads a session's log and starts its agent; an interrupted turn is closed, queued compactions run. */
  private load(id: string, warnings: string[] = []): LiveSession | undefined {
    const name = `${id}.jsonl`;
    try {
      const db = this.options.database;
      const { log, report } = db ? db.open(id) : this.reads.open(id, path.join(this.dir, name));
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
      const wasRunning = live.session.state !== 'WaitingForUserInput';
      live.agent.recoverInterrupted();
      // A child left running by a crash: its parent's timeline says so too (its own turn was closed just now).
      if (wasRunning) closedAtRestart(live, (parent) => this.get(parent));
      // Compactions that were queued and never started run now.
      if (live.session.compactions.size) live.agent.wake();
      return live;
    } catch (err) {
      this.index.delete(id);
      warnings.push(`${name}: not loaded: ${err instanceof Error ? err.message : String(err)}`);
      return undefined;
    }
  }

  /** A new session in a folder of its choice, with its own worktree when asked (create.ts). */
  createIn(model = this.config.model, request: WorkspaceRequest = {}): Promise<LiveSession> {
    return createSessionIn(this.host, model, request);
  }

  create(model = this.config.model, workspace?: Workspace, id = newId()): LiveSession {
    return createSession(this.host, model, workspace, id);
  }

  /** The session, its log loaded on demand; undefined for an id that is not a session. */
  get(id: string): LiveSession | undefined {
    let live = this.live.get(id);
    // A session the first scan has not reached yet is loaded all the same.
    if (!live && (this.index.has(id) || this.starter.pending(id))) {
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

  /** The JSONL log of a session (read without loading it: search snippets). */
  logFile(id: string): string {
    return path.join(this.dir, `${id}.jsonl`);
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

  // The cluster side (cluster-host.ts).
  reload(id: string): void {
    this.cluster.reload(id);
  }

  vanished(id: string): void {
    this.cluster.vanished(id);
  }

  discovered(id: string): void {
    this.cluster.discovered(id);
  }

  noticed(id: string): void {
    this.cluster.noticed(id);
  }

  // The list and its index (list-index.ts).
  list(filter: ListFilter = {}): ListedSession[] {
    return this.listing.list(filter);
  }

  update(id: string, change: SessionMeta & { title?: string }): SessionSnapshot | undefined {
    return this.listing.update(id, change);
  }

  onListChange(listener: ListListener): () => void {
    return this.listing.onListChange(listener);
  }

  // Trash and fork (trash.ts, fork.ts).
  delete(id: string, options: { removeWorktree?: boolean; force?: boolean } = {}): Promise<boolean> {
    return deleteSession(this.host, id, options);
  }

  restore(id: string): Promise<LiveSession | undefined> {
    return restoreSession(this.host, id);
  }

  fork(id: string, seq: number, options: ForkOptions = {}): Promise<LiveSession | undefined> {
    return forkSession(this.host, id, seq, options);
  }

  /** The existing projects: SKEIN_WORKDIR's roots first (configs built in code may have only workDir), then the folders the user added. */
  roots(): string[] {
    return this.projects.roots();
  }

  /** Graceful shutdown: running turns are cancelled (tools killed), their last events written, logs closed. */
  async close(graceMs = 3000): Promise<void> {
    this.closing = true;
    this.cluster.close();
    this.listing.stop();
    this.sweeper.stop();
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
    await this.listing.saveIndex();
    await this.search.close();
    this.live.clear();
    this.lastUsed.clear();
  }

  private start(log: SessionLog, choice?: ProviderChoice): LiveSession {
    const id = log.header.session;
    // Only a server with no session at all goes without the tokenizer (most of an idle server's memory).
    warmTokenizer();
    const live = liveSession(this.config, this.options, this.models, this.dir, log, choice, this.subagents);
    this.live.set(id, live);
    this.lastUsed.set(id, Date.now());
    this.search.follow(id, live.session);
    this.listing.capture(id, live);
    log.onDurable(() => this.listing.changed(id));
    if (this.options.database) {
      const texts = new UserTextTracker(() => log.all());
      (log as PgEventLog).summarize = () => {
        const entry = this.listing.entryOf(live);
        return entry && { ...entry, ...texts.now() };
      };
    }
    return live;
  }

  /** Nothing runs, is queued or waits for the disk, and nobody watches: the session may be unloaded. */
  private idle({ session, agent }: LiveSession): boolean {
    return agent.ready && session.compactions.size === 0 && session.audience === 0 && session.log.durableSeq === session.log.lastSeq;
  }

  /** Synchronous, so no message can reach the agent between its close and its removal. */
  private unload(id: string): void {
    const live = this.live.get(id);
    if (!live) return;
    live.agent.close();
    live.session.log.close();
    this.listing.capture(id, live);
    this.live.delete(id);
    this.lastUsed.delete(id);
    this.indexDirty.delete(id);
  }
}
