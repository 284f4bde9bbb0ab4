// A session: its durable event log, its live subscribers, and the inbox its
// agent loop consumes. Events are appended to the log before anyone sees them.
import { subagentFields } from '../subagents/snapshot-fields.js';
import type {
  AgentState,
  ApprovalMode,
  DeltaFrame,
  Gauge,
  NewEvent,
  SessionSnapshot,
  SkeinEvent,
} from '../../shared/protocol.js';
import { parseCompactCommand, type ImageInput, type ReasoningEffort } from '../../shared/protocol.js';
import { latestPlan, PLAN_TOOL, type Plan } from '../../shared/plan.js';
import { TitleFacts } from '../../shared/session-title.js';
import { saveIfLarge } from '../compaction/large-message.js';
import { IncrementalView, type SourcedMessage } from '../compaction/view.js';
import type { SessionLog as EventLog } from '../store/session-log.js';
import type { SessionMeta } from '../manage/meta.js';
import { currentSecretValues, type NamedSecret } from '../tools/env.js';
import { maskDeep, maskEvent, maskLiveFrame, StreamMask, type LiveFrame } from './event-mask.js';
import { PendingCompactions, type CompactionRequest } from './pending-compactions.js';
import { imagesDirOf, spillDirOf } from './session-files.js';
import { checkImages, saveImages } from '../images/image-files.js';
import { ReadOnlySessionError, type ForwardedCommand, type RemoteOwner } from '../cluster/remote-owner.js';

export type { CompactionRequest } from './pending-compactions.js';

export type Subscriber = (event: SkeinEvent) => void;
/** Gets ephemeral frames (streamed text): live only, never logged nor replayed. */
/** Ephemeral frames: streaming deltas, and errors that could not be written to the log. */
export type EphemeralFrame = LiveFrame;
export type FrameListener = (frame: EphemeralFrame) => void;

/** The agent loop as the session sees it. */
export interface AgentHandle {
  readonly state: AgentState;
  /** A wake() now would start work at once (idle, not shutting down, no write back-off under way). */
  readonly ready: boolean;
  gauge(): Gauge;
  /** The session's approval mode. */
  readonly mode?: ApprovalMode;
  /** The efforts the model accepts as its provider said them (undefined: it did not say). */
  readonly discoveredEfforts?: ReasoningEffort[] | undefined;
  /** Something arrived in the inbox. */
  wake(): void;
  cancel(): void;
}

/** The event log refused a write (disk full, read-only disk). */
export class LogWriteError extends Error {
  override readonly name = 'LogWriteError';
}

export class Session {
  /** Each subscriber, with the seq it has seen up to (it asked for events after `since`). */
  private readonly subscribers = new Map<Subscriber, { since: number }>();
  /** In-process observers told at append time, before durability (tests, metrics). */
  private readonly observers = new Set<Subscriber>();
  private readonly frameListeners = new Set<FrameListener>();
  /** Compactions asked for and not started yet (after a restart: the ones the log shows queued). */
  readonly compactions: PendingCompactions;
  private agent: AgentHandle | undefined;
  private readonly cachedView = new IncrementalView();
  /** The last append failed: clients were told, and are not told again until one succeeds. */
  private writeFailing = false;
  /** Title and archive flag set by a person (kept in <id>.meta.json). */
  meta: SessionMeta = {};
  /** Subscribers have been given every event up to this seq (only durable events are shown). */
  private delivered: number;
  private readonly durableWaiters: { seq: number; resolve: () => void; reject: (err: Error) => void }[] = [];
  /** The agent's latest plan, kept as it changes (snapshots carry it: a client may load only the log's tail). */
  private plan: Plan | undefined;
  /** Set while another instance runs this session: commands go there (see remote-owner.ts). */
  remote: RemoteOwner | undefined;
  /** Told when this copy is about to be replaced (the session moved between instances): clients reconnect. */
  private readonly evictListeners = new Set<() => void>();
  /** Secrets that are not in the environment (the access token, a --database-url password): masked like the environment's. */
  extraSecrets: readonly NamedSecret[] = [];
  private readonly streamMask = new StreamMask(() => this.secrets());

  constructor(
    readonly id: string,
    readonly log: EventLog,
    public model: string,
    /** How hard the model reasons (SKEIN_REASONING_EFFORT, or the last one set with the model picker). */
    public effort: ReasoningEffort = 'default',
  ) {
    // From the kind index (kind-index.ts): no pass over every event of a big log.
    this.compactions = new PendingCompactions(log.kinds.eventsOf('compaction'));
    this.delivered = log.durableSeq;
    this.plan = latestPlan(log.all(), log.kinds.resultsOf(PLAN_TOOL));
    log.onDurable((upTo) => this.deliver(upTo));
  }

  /** Connects the agent loop (once, right after both exist). */
  attach(agent: AgentHandle): void {
    this.agent = agent;
  }

  get state(): AgentState {
    // Another instance runs the agent: its state is the last one it logged.
    if (this.remote) return this.log.last('state')?.to ?? 'WaitingForUserInput';
    return this.agent?.state ?? 'WaitingForUserInput';
  }

  /** Another instance runs the session: the command goes there (resolves once handed over); undefined here. */
  forward(command: ForwardedCommand): Promise<void> | undefined {
    // The inbox row is stored in the database too: no secret in it either.
    return this.remote?.forward(maskDeep(command, this.secrets()));
  }

  onEvict(listener: () => void): () => void {
    this.evictListeners.add(listener);
    return () => this.evictListeners.delete(listener);
  }

  /**
   * This copy is being replaced: every client is told to reconnect (and resumes
   * from its last seq), and whoever waits for an append that is not durable yet
   * is told it may never be (another instance took the session meanwhile).
   */
  evict(): void {
    for (const waiter of this.durableWaiters.splice(0)) {
      waiter.reject(new ReadOnlySessionError('the session moved to another instance before this was stored; check the session and send it again if it is missing'));
    }
    for (const listener of [...this.evictListeners]) {
      try {
        listener();
      } catch {
        /* a closed socket */
      }
    }
    this.evictListeners.clear();
  }

  /** Every configured secret, as of now (the environment as of this turn of the event loop, as the tools' mask reads it). */
  secrets(): NamedSecret[] {
    return currentSecretValues(this.extraSecrets);
  }

  /**
   * Appends to the log; subscribers are told once it is durable (group commit, see EventLog).
   * Every secret in the event is masked first: whatever produced it (a tool input the
   * model rebuilt, an answer, an error, a preview, a summary, the user's own text).
   */
  append(event: NewEvent): SkeinEvent {
    // Only the instance that runs the session writes its log.
    if (this.remote) throw new ReadOnlySessionError(`this session runs elsewhere (${this.remote.reason}): do this on the instance that runs it`);
    let full: SkeinEvent;
    try {
      full = this.log.append(maskEvent(event, this.secrets()));
    } catch (err) {
      // Nothing was recorded (the log cut any partial line); say so to everyone watching.
      const reason = err instanceof Error ? err.message : String(err);
      if (!this.writeFailing) this.broadcast({ type: 'error', message: `could not write the session log (${reason}); the ${event.kind} event was not recorded` });
      this.writeFailing = true;
      throw new LogWriteError(reason);
    }
    this.writeFailing = false;
    if (full.kind === 'tool_result' && full.name === PLAN_TOOL && !full.isError) this.plan = latestPlan(this.log.all(), this.log.kinds.resultsOf(PLAN_TOOL)) ?? this.plan;
    for (const observer of this.observers) observer(full);
    return full;
  }

  /** Tells `observer` of every event as it is appended (not yet durable: never forward these to clients). */
  observe(observer: Subscriber): () => void {
    this.observers.add(observer);
    return () => this.observers.delete(observer);
  }

  /** Hands newly durable events to every subscriber, in seq order, once each. */
  private deliver(upTo: number): void {
    const fresh = this.log.since(this.delivered).filter((e) => e.seq <= upTo);
    this.delivered = upTo;
    for (const event of fresh) {
      for (const [subscriber, from] of this.subscribers) {
        // Asked for events after a seq not yet durable when it subscribed: nothing at or before it.
        if (event.seq <= from.since) continue;
        try {
          subscriber(event);
        } catch {
          // A broken subscriber (closed socket) must not harm the session.
        }
      }
    }
    while (this.durableWaiters[0] && this.durableWaiters[0].seq <= upTo) this.durableWaiters.shift()!.resolve();
  }

  /** Resolves once everything appended so far is durable and shown (what an acknowledgement waits for). */
  durable(): Promise<void> {
    const seq = this.log.lastSeq;
    if (seq <= this.delivered) return Promise.resolve();
    return new Promise((resolve, reject) => this.durableWaiters.push({ seq, resolve, reject }));
  }

  /** The durable events after `since`: what clients may see (REST and the socket's replay). */
  events(since = 0): SkeinEvent[] {
    const after = this.log.since(since);
    // Only the tail can be waiting for its fdatasync.
    let end = after.length;
    while (end > 0 && after[end - 1]!.seq > this.delivered) end--;
    return end === after.length ? after : after.slice(0, end);
  }

  /**
   * Replays durable events after `since` to the subscriber, then keeps it live.
   * Both happen in one synchronous step, so every event arrives exactly once.
   */
  subscribe(since: number, subscriber: Subscriber): () => void {
    for (const event of this.events(since)) subscriber(event);
    this.subscribers.set(subscriber, { since });
    return () => this.subscribers.delete(subscriber);
  }

  /** How many clients watch (subscribers and frame listeners): a watched session is never unloaded. */
  get audience(): number {
    return this.subscribers.size + this.frameListeners.size;
  }

  /** Sends an ephemeral frame to everyone connected now; nothing is written. */
  broadcast(given: EphemeralFrame): void {
    // Streamed text and error notes are masked as the log is: a client never sees a secret, live or replayed.
    const frame = maskLiveFrame(given, this.streamMask, () => this.secrets());
    for (const listener of this.frameListeners) {
      try {
        listener(frame);
      } catch {
        // A broken listener (closed socket) must not harm the session.
      }
    }
  }

  listen(listener: FrameListener): () => void {
    this.frameListeners.add(listener);
    return () => this.frameListeners.delete(listener);
  }

  /** The model view, derived from the log (incrementally: each event is applied once). */
  view(): SourcedMessage[] {
    this.cachedView.update(this.log.all());
    return this.cachedView.messages();
  }

  /** A worktree action under way (the Changes panel's merge, apply...): a message meanwhile is logged, its turn waits for the action's end. */
  private held: Promise<unknown> | undefined;

  /** Runs `work` with no turn starting until it ends (the agent must not write while git merges). */
  async holdTurnsWhile<T>(work: Promise<T>): Promise<T> {
    this.held = work;
    try {
      return await work;
    } finally {
      if (this.held === work) this.held = undefined;
    }
  }

  /** A user message; `/compact [focus]` asks for a compaction instead. Another instance's session: forwarded there. */
  userMessage(text: string, images?: readonly ImageInput[], inbox?: number): void | Promise<void> {
    // Bytes that are not an image are refused here, before anything is forwarded or logged (throws ImageError).
    if (images?.length) checkImages(images);
    const forwarded = this.forward({ type: 'user_message', text, ...(images?.length && { images: [...images] }) });
    if (forwarded) return forwarded;
    const command = images?.length ? undefined : parseCompactCommand(text);
    const window = this.agent?.gauge().contextWindow;
    const saved = command || !window ? undefined : saveIfLarge(text, window, spillDirOf(this));
    const refs = images?.length ? saveImages(images, imagesDirOf(this)) : undefined;
    this.append({ kind: 'user', text, ...(inbox !== undefined && { inbox }), ...(saved && { saved }), ...(refs && { images: refs }) });
    if (command) this.requestCompaction({ trigger: 'manual', ...command });
    else if (this.held) {
      const wake = () => this.agent?.wake();
      void this.held.then(wake, wake);
    } else this.agent?.wake();
  }

  /** Queues a compaction; one that cannot start at once is logged as `queued` first (throws LogWriteError if the log refuses). */
  requestCompaction(request: CompactionRequest): void | Promise<void> {
    if (this.remote && request.trigger === 'manual') return this.forward({ type: 'compact', ...(request.instructions !== undefined && { instructions: request.instructions }) })!;
    if (!this.agent?.ready) {
      this.append({
        kind: 'compaction',
        phase: 'queued',
        trigger: request.trigger,
        ...(request.instructions !== undefined && { instructions: request.instructions }),
        ...(request.preserveRecentGroups !== undefined && { preserveRecentGroups: request.preserveRecentGroups }),
      });
    }
    this.compactions.add(request);
    this.agent?.wake();
  }

  cancel(): void | Promise<void> {
    const forwarded = this.forward({ type: 'cancel' });
    if (forwarded) return forwarded;
    this.agent?.cancel();
  }

  title(): string {
    if (this.meta.title) return this.meta.title;
    // The user messages that are no /compact, among the user messages only (kind-index.ts); a fork's title says what differs.
    const all = this.log.all();
    const facts = new TitleFacts(this.log.header.forkOf);
    for (const i of this.log.kinds.of('user')) {
      const e = all[i] as Extract<SkeinEvent, { kind: 'user' }>;
      if (parseCompactCommand(e.text)) continue;
      facts.user(e.seq, e.text);
      // Past the first message (and, in a fork, its first own one) nothing changes the title.
      if (!this.log.header.forkOf || e.seq > this.log.header.forkOf.seq) break;
    }
    return facts.title();
  }

  snapshot(): SessionSnapshot {
    const all = this.log.all();
    return {
      id: this.id,
      state: this.state,
      model: this.model,
      effort: this.effort,
      ...(this.agent?.mode && { mode: this.agent.mode }),
      gauge: this.agent!.gauge(),
      lastSeq: this.delivered,
      title: this.title(),
      createdAt: this.log.header.createdAt,
      lastActivity: all.length ? all[all.length - 1]!.ts : this.log.header.createdAt,
      ...(this.meta.title && { customTitle: this.meta.title }),
      ...(this.meta.archived && { archived: true }),
      ...(this.log.header.workspace && { workspace: this.log.header.workspace }),
      ...(this.log.header.forkOf && { forkOf: this.log.header.forkOf }),
      ...(this.log.header.subagent && { parent: { session: this.log.header.subagent.parent, callId: this.log.header.subagent.callId, agent: this.log.header.subagent.agent } }),
      ...subagentFields(all, this.log.header.subagent !== undefined),
      ...(this.plan && { plan: this.plan }),
      ...(this.agent?.discoveredEfforts && { efforts: this.agent.discoveredEfforts }),
      ...(this.remote && { runsElsewhere: this.remote.reason }),
      ...(this.remote?.readOnly && { readOnly: this.remote.reason }),
    };
  }
}
