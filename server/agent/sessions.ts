// All sessions of a server: created, reloaded from disk at start, listed by
// last activity.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { AgentState, SessionListFrame, SessionSnapshot, SkeinEvent, Workspace } from '../../shared/protocol.js';
import type { Config } from '../config.js';
import type { CompactionStrategy } from '../compaction/pipeline.js';
import { defaultStrategies } from '../compaction/strategies/index.js';
import type { Provider } from '../llm/types.js';
import { createProvider, createProviderOrPlaceholder, type ProviderChoice } from '../llm/providers.js';
import { warmTokenizer } from '../llm/tokens.js';
import type { NamedSecret } from '../tools/env.js';
import { EventLog, type LogHeader } from '../store/event-log.js';
import { readMeta, writeMeta, type SessionMeta } from '../manage/meta.js';
import { copySavedOutputs, forkedEvents } from '../manage/fork.js';
import { Trash } from '../manage/trash.js';
import { createWorkspace, removeWorktree, type WorkspaceRequest } from '../workspace/workspace.js';
import type { McpHub } from '../mcp/hub.js';
import { SessionTools } from '../tools/session-tools.js';
import { Agent } from './agent.js';
import { modelServices, providerSettings, type ModelServices } from './model-switch.js';
import { Session } from './session.js';
import { log as logger } from '../log.js';

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

export class Sessions {
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

  constructor(
    private readonly config: Config,
    /** In-code choices with no setting: another compaction pipeline, no result cap (benchmarks use them). */
    private readonly options: SessionOptions = {},
  ) {
    this.dir = path.join(config.dataDir, 'sessions');
    fs.mkdirSync(this.dir, { recursive: true });
    this.models = modelServices(config);
    this.trash = new Trash(config.dataDir, this.dir);
    options.mcp?.onStateChange((change) => this.reportMcp(change));
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
      try {
        session.append({ kind: 'mcp', ...change });
      } catch {
        /* a log that refuses writes: the state is still in GET /api/mcp */
      }
    }
  }

  /** Reloads every session log; interrupted turns are closed. Returns warnings for the server log. */
  loadAll(): string[] {
    const warnings: string[] = this.trash.purge();
    for (const name of fs.readdirSync(this.dir).filter((f) => f.endsWith('.jsonl')).sort()) {
      const file = path.join(this.dir, name);
      try {
        const { log, report } = EventLog.open(file);
        if (report.tornTail !== undefined) warnings.push(`${name}: skipped a torn last line (${report.tornTail.length} bytes) from a crash mid-write`);
        if (report.badLines.length) warnings.push(`${name}: skipped unreadable lines ${report.badLines.join(', ')}`);
        const live = this.start(log);
        live.agent.recoverInterrupted();
        // Compactions that were queued and never started run now.
        if (live.session.compactions.size) live.agent.wake();
      } catch (err) {
        warnings.push(`${name}: not loaded: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    return warnings;
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
    return this.create(model, workspace, id);
  }

  create(model = this.config.model, workspace?: Workspace, id = newId()): LiveSession {
    // Refuses an unknown model, or one whose provider has no key, before writing anything.
    const choice = createProvider(model, providerSettings(this.config));
    const now = new Date();
    const log = EventLog.create(path.join(this.dir, `${id}.jsonl`), { skein: 1, session: id, createdAt: now.toISOString(), model, ...(workspace && { workspace }) });
    const live = this.start(log, choice);
    this.changed(id);
    // The timeline starts with the MCP servers as they are: which tools the session has, which were skipped, which server is down.
    for (const state of this.options.mcp?.states() ?? []) live.session.append({ kind: 'mcp', ...state });
    if (choice.warning) {
      logger.warn(choice.warning, { session: id });
      live.session.append({ kind: 'error', message: choice.warning, code: 'unknown_model' });
    }
    return live;
  }

  get(id: string): LiveSession | undefined {
    return this.live.get(id);
  }

  /** Most recent activity first; archived sessions only when asked. */
  list(filter: ListFilter = {}): SessionSnapshot[] {
    const query = filter.query?.trim().toLowerCase();
    return [...this.live.values()]
      .filter(({ session }) => filter.archived || !session.meta.archived)
      .filter(({ session }) => !query || matches(session.title(), session.log.all(), query))
      .map((l) => l.session.snapshot())
      .sort((a, b) => b.lastActivity.localeCompare(a.lastActivity));
  }

  /** Renames (an empty title goes back to the first user message) and archives or unarchives. */
  update(id: string, change: SessionMeta & { title?: string }): SessionSnapshot | undefined {
    const live = this.live.get(id);
    if (!live) return undefined;
    const meta: SessionMeta = { ...live.session.meta };
    if (change.title !== undefined) {
      if (change.title.trim()) meta.title = change.title.trim();
      else delete meta.title;
    }
    if (change.archived !== undefined) {
      if (change.archived) meta.archived = true;
      else delete meta.archived;
    }
    writeMeta(this.dir, id, meta);
    live.session.meta = meta;
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
    const live = this.live.get(id);
    if (!live) return false;
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
    this.trash.put(id, live.session.title(), keptWorktree);
    this.dirty.delete(id);
    this.emit({ type: 'session_removed', id });
    return true;
  }

  /** Brings a session back from the trash. */
  restore(id: string): LiveSession | undefined {
    if (!this.trash.has(id) || this.live.has(id)) return undefined;
    this.trash.restore(id);
    const { log } = EventLog.open(path.join(this.dir, `${id}.jsonl`));
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
    const source = this.live.get(id);
    if (!source) return undefined;
    const events = forkedEvents(source.session.log, seq);
    const header = source.session.log.header;
    const newIdValue = newId();
    const original = header.workspace;
    const workspace = original?.worktree
      ? await createWorkspace(this.roots(), this.config.dataDir, newIdValue, { folder: original.folder, worktree: true, ...(original.branch && { startPoint: original.branch }) })
      : original;
    const forkHeader: LogHeader = { skein: 1, session: newIdValue, createdAt: new Date().toISOString(), model: header.model, ...(workspace && { workspace }), forkOf: { session: id, seq } };
    copySavedOutputs(this.dir, id, newIdValue, seq);
    const log = EventLog.createWith(path.join(this.dir, `${newIdValue}.jsonl`), forkHeader, events);
    writeMeta(this.dir, newIdValue, { title: `${source.session.title()} (fork)` });
    const live = this.start(log);
    live.agent.recoverInterrupted(`the fork copied the history up to event ${seq}, inside a turn: that turn ends here`);
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
    if (!this.listeners.size) return;
    this.dirty.add(id);
    // Many events in a row (a tool run, a replay) make one frame per session.
    this.flushTimer ??= setTimeout(() => {
      this.flushTimer = undefined;
      for (const changed of this.dirty) {
        const live = this.live.get(changed);
        if (live) this.emit({ type: 'session', session: live.session.snapshot() });
      }
      this.dirty.clear();
    }, 50);
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
    clearTimeout(this.flushTimer);
    this.listeners.clear();
    const lives = [...this.live.values()];
    // No new turn starts from here on: a message typed now is logged, not answered.
    for (const { agent } of lives) agent.close();
    const idle = Promise.all(lives.map(({ agent }) => agent.whenIdle()));
    await Promise.race([idle, new Promise((r) => setTimeout(r, graceMs).unref())]);
    for (const { session } of lives) session.log.close();
    this.live.clear();
  }

  /** `choice`: the provider create() already made (a replay reads its recording once). */
  private start(log: EventLog, choice?: ProviderChoice): LiveSession {
    const id = log.header.session;
    // Only a server with no session at all goes without the tokenizer (most of an idle server's memory).
    warmTokenizer();
    // The model of the last switch, if any; a model whose key is gone still loads (it says why when used).
    const model = log.last('model')?.to ?? log.header.model;
    const made = choice ?? createProviderOrPlaceholder(model, providerSettings(this.config));
    const { info } = made;
    const provider = this.options.wrapProvider ? this.options.wrapProvider(made.provider) : made.provider;
    // The effort last set with the model picker, else SKEIN_REASONING_EFFORT.
    const effort = [...log.all()].reverse().find((e) => e.kind === 'model' && e.effort !== undefined);
    const session = new Session(id, log, model, effort?.kind === 'model' ? effort.effort : this.config.reasoningEffort);
    session.meta = readMeta(this.dir, id);
    const onEvent = this.options.onEvent;
    // From now on only: what the log held before this server started is not counted again.
    if (onEvent) session.subscribe(log.lastSeq, (event) => onEvent(id, event));
    const lastState = log.last('state');
    const initial: AgentState = lastState?.to ?? 'WaitingForUserInput';
    const agent = new Agent(
      session,
      provider,
      info,
      {
        // The session's own folder (its worktree, when it has one); logs from before workspaces: SKEIN_WORKDIR.
        workDir: log.header.workspace?.workDir ?? this.config.workDir,
        contextWindow: info.contextWindow,
        targetRatio: this.config.compactTargetRatio,
        policy: {
          thresholdRatio: this.config.compactThresholdRatio,
          preflight: this.config.compactPreflight,
          everyNCalls: this.config.compactEveryNCalls,
        },
        strategies: this.options.strategies ?? defaultStrategies(this.config.compactKeepToolResults, { provider: this.config.compactProvider }),
        resultCap: this.options.resultCap ?? true,
        summariserTimeoutMs: this.config.summarizerTimeoutMs,
        models: this.models,
        bashTimeoutMs: this.config.bashTimeoutMs,
        toolOutputLimit: this.config.toolOutputLimit,
        tools: { envAllow: this.config.toolEnvAllow, secrets: this.options.toolSecrets ?? [] },
        maxStepsPerTurn: this.config.maxStepsPerTurn,
        maxTurnCostUsd: this.config.maxTurnCostUsd,
        statusUpdates: this.config.statusUpdates,
        approval: this.config.approval,
        ...(this.config.sandbox === 'workspace' && { sandbox: { network: this.config.sandboxNetwork } }),
        toolSet: new SessionTools(undefined, this.options.mcp),
      },
      initial,
    );
    const live = { session, agent };
    this.live.set(id, live);
    session.subscribe(log.lastSeq, () => this.changed(id));
    return live;
  }
}

function newId(): string {
  const now = new Date();
  return `${now.toISOString().slice(0, 19).replace(/[-:]/g, '').replace('T', '-')}-${crypto.randomBytes(3).toString('hex')}`;
}

function matches(title: string, events: readonly { kind: string; text?: string }[], query: string): boolean {
  if (title.toLowerCase().includes(query)) return true;
  return events.some((e) => e.kind === 'user' && typeof e.text === 'string' && e.text.toLowerCase().includes(query));
}
