// The agent loop of one session: single-threaded, driven by its inbox, every
// move a checked transition of the state machine and an event in the log.
import fs from 'node:fs';
import { FORKED_HERE, parseCompactCommand, type AgentState, type ApprovalMode, type Gauge, type ReasoningEffort, type SkeinEvent, type Usage } from '../../shared/protocol.js';
import { plain } from '../compaction/view.js';
import { costUsd, type ModelInfo } from '../llm/models.js';
import { requestTokens } from '../llm/tokens.js';
import type { ProviderChoice } from '../llm/providers.js';
import { ContextOverflowError, hasScriptedUser, type LlmRequest, type LlmResponse, type Provider, type ToolCall } from '../llm/types.js';
import { TOOLS } from '../tools/registry.js';
import type { SandboxSettings } from '../tools/sandbox.js';
import { SessionTools } from '../tools/session-tools.js';
import { RequestShape } from './request-shape.js';
import { headOf } from './request-head.js';
import type { ToolSecrets } from '../tools/tool.js';
import { ApprovalGate, ApprovalSuspended, unansweredCalls } from './approvals.js';
import { CompactionRunner, type CompactionSettings } from './compaction-runner.js';
import { estimatedGauge, gaugeFromUsage } from './gauge.js';
import { callModel } from './model-call.js';
import { needsCompactionAfterSwitch, type ModelServices } from './model-switch.js';
import { emptyLengthOverflow, OverflowRecovery, wroteNothingForLength } from './overflow-recovery.js';
import { LogWriteError, type AgentHandle, type Session } from './session.js';
import { ReadOnlySessionError } from '../cluster/remote-owner.js';
import { canTransition, StateMachine } from './state-machine.js';
import { Cancelled, closeOpenWork, turnEndFor, type TurnEnd } from './turn-end.js';
import { DEFAULT_TURN_LIMITS, TurnLimits, type TurnLimitSettings } from './turn-limits.js';
import { SessionWindow, withLimits } from './window.js';
import { WriteBackoff, type BackoffTiming } from './write-backoff.js';
import { StatusNotes } from './status-notes.js';
import { ToolRunner } from './tool-runner.js';
import { ProjectInstructions } from './project-instructions.js';
import { ToolNotes } from './tool-notes.js';
import { log } from '../log.js';

const SYSTEM_TEMPLATE = fs.readFileSync(new URL('./system-prompt.md', import.meta.url), 'utf8');
const LEAN_SYSTEM_TEMPLATE = fs.readFileSync(new URL('./system-prompt-lean.md', import.meta.url), 'utf8').trim();

export interface AgentSettings extends CompactionSettings, Partial<TurnLimitSettings> {
  workDir: string;
  /** Cap a huge tool result as it arrives (default true). */
  resultCap?: boolean;
  bashTimeoutMs: number;
  toolOutputLimit: number;
  /** SKEIN_TOOL_ENV_ALLOW and secret values to mask in tool output (e.g. the generated access token). */
  tools?: ToolSecrets;
  /** Retries, the summariser and model switches (absent: no retries, no switch, the session's model summarises). */
  models?: ModelServices;
  /** How long to wait before trying again when the log refuses writes (default 1 s doubling to 30 s). */
  writeBackoff?: BackoffTiming;
  /** SKEIN_STATUS_UPDATES: status notes to the agent (default off). */
  statusUpdates?: boolean;
  /** SKEIN_APPROVAL: the mode of a session that never switched (default never). */
  approval?: ApprovalMode;
  /** SKEIN_SANDBOX=workspace: bash runs under bubblewrap (absent: unconfined). */
  sandbox?: SandboxSettings;
  /** The session's tools, fixed at its start (absent: the built-in ones). */
  toolSet?: SessionTools;
}

export class Agent implements AgentHandle {
  private readonly machine: StateMachine;
  private running = false;
  private idle: Promise<void> = Promise.resolve();
  private abort: AbortController | undefined;
  /** Public for the overhead benchmark, which times the same calls a request makes. */
  readonly compaction: CompactionRunner;
  /** The log's last seq when the latest request was built: later user events are unseen. */
  private seenSeq: number;
  readonly system: string;
  /** SKEIN_SUMMARIZER_MODEL's provider, when set. */
  private readonly summariser: ProviderChoice | undefined;
  /** A model switch asked for and not yet applied (it waits for a safe point). */
  private pendingModel: string | undefined;
  /** An effort asked for with it (or alone, with the current model). */
  private pendingEffort: ReasoningEffort | undefined;
  /** The window the session really has (asked, learned from refusals) and how to recover from a refusal. */
  readonly window: SessionWindow;
  private readonly recovery: OverflowRecovery;
  /** The model table's limits for the current model, before anything was learned. */
  private tableInfo: ModelInfo;
  private readonly limits: TurnLimits;
  private readonly writes: WriteBackoff;
  /** A turn that failed or was cancelled and whose end the log has not taken yet. */
  private unfinished: TurnEnd | undefined;
  /** Set by close(): no new turn or compaction starts. */
  private closing = false;
  /** Failures in a row before a turn could start (see failedBeforeStart). */
  private startFailures = 0;
  /** System prompts changed for the window (RequestShape): with compactions, what makes two requests incomparable. */
  private reshapes = 0;
  /** Aborted by close(): ends a write back-off early. */
  private readonly stopped = new AbortController();
  private readonly statusNotes: StatusNotes;
  private readonly tools: ToolRunner;
  private readonly instructions: ProjectInstructions;
  /** After a restart in WaitingForApproval: the answer's calls still to run, the first one still asking. */
  private resumeCalls: ToolCall[] | undefined;
  private readonly toolNotes: ToolNotes;
  /** The system prompt and tools each request carries (lean in a small window). */
  private readonly shape: RequestShape;

  constructor(
    private readonly session: Session,
    private provider: Provider,
    private info: ModelInfo,
    private readonly settings: AgentSettings,
    initial: AgentState,
  ) {
    // Project instructions are read (and logged) when the session is created: the system prompt never changes after.
    this.instructions = new ProjectInstructions(session, settings.workDir);
    const template = SYSTEM_TEMPLATE.replaceAll('{{workDir}}', settings.workDir);
    this.system = this.instructions.systemSection ? `${template}\n\n${this.instructions.systemSection}` : template;
    const leanTemplate = LEAN_SYSTEM_TEMPLATE.replaceAll('{{workDir}}', settings.workDir);
    const leanSystem = this.instructions.systemSection ? `${leanTemplate}\n\n${this.instructions.systemSection}` : leanTemplate;
    this.machine = new StateMachine(initial, (from, to, reason) => session.append({ kind: 'state', from, to, reason }));
    this.seenSeq = session.log.lastSeq;
    this.summariser = settings.models?.summariser();
    this.tableInfo = info;
    this.window = new SessionWindow({
      session,
      provider: () => this.provider,
      tableInfo: () => this.tableInfo,
      apply: (limits) => {
        this.info = { ...this.info, ...limits };
        this.settings.contextWindow = limits.contextWindow;
      },
      setting: settings.models?.window?.setting,
      cache: settings.models?.window?.cache,
    });
    this.recovery = new OverflowRecovery({
      window: this.window,
      model: () => this.provider.model,
      enterCompacting: (reason) => this.machine.transition('Compacting', reason),
      compact: (level) => this.compaction.run({ trigger: 'overflow', level }, this.abort!.signal),
      // With the largest server/ours ratio seen: the margin covers the spread of the server's tokenizer.
      estimate: () => this.compaction.estimator.estimate(this.session.view(), this.compaction.base(), true),
      headEstimate: () => this.compaction.headEstimate(),
      preflight: () => this.settings.policy.preflight,
      calibrate: (raw, prompt) => this.compaction.estimator.observeRefusal(raw, prompt),
      note: (message) => this.session.append({ kind: 'error', message, code: 'overflow_guess' }),
    });
    this.limits = new TurnLimits({ ...DEFAULT_TURN_LIMITS, ...definedOnly(settings) });
    this.writes = new WriteBackoff((message) => session.broadcast({ type: 'error', message }), settings.writeBackoff);
    const toolSet = settings.toolSet ?? new SessionTools();
    this.shape = new RequestShape({ system: this.system, tools: toolSet.specs }, leanSystem);
    this.compaction = new CompactionRunner(session, settings, {
      base: () => this.shape.current(this.settings.contextWindow),
      // The session's own model summarises within the window learned so far.
      // (in our tokens: the server's window over the largest ratio of its count to ours seen, so its chunks fit its count).
      summariser: () => this.summariser?.provider ?? withLimits(this.provider, { ...this.info, contextWindow: Math.floor(this.info.contextWindow / Math.max(1, this.compaction.estimator.upperRatio)) }),
      provider: () => this.provider,
      windowSource: () => this.window.source,
      reserve: () => this.window.reserve,
      summariserInfo: () => this.summariser?.info ?? this.info,
      summariserIsSessionModel: () => !this.summariser,
      info: () => this.info,
      model: () => this.provider.model,
      gauge: () => this.gauge(),
    });
    const approvals = new ApprovalGate({
      session,
      mode: settings.approval ?? 'never',
      workDir: settings.workDir,
      state: () => this.machine.state,
      transition: (to, reason) => this.machine.transition(to, reason),
      stopped: this.stopped.signal,
    });
    this.tools = new ToolRunner(session, settings, () => this.provider, approvals, toolSet);
    this.toolNotes = new ToolNotes(session, toolSet);
    this.statusNotes = new StatusNotes(session, settings.statusUpdates === true, this.gauge());
    session.attach(this);
  }

  get state(): AgentState {
    return this.machine.state;
  }

  /** The efforts the model accepts as its provider said them, when it did ('off': none). */
  get discoveredEfforts(): ReasoningEffort[] | undefined {
    const caps = this.window.capabilities;
    return caps && (caps.mode === 'off' ? [] : caps.efforts);
  }

  /** Decisions on tool calls waiting for approval (REST, WebSocket). */
  get approvals(): ApprovalGate {
    return this.tools.approvals;
  }

  /** The session's approval mode (its last switch, else SKEIN_APPROVAL). */
  get mode(): ApprovalMode {
    return this.tools.approvals.mode;
  }

  /** The user switches the session's mode (never the model); logged, and it decides a waiting call again. */
  setMode(mode: ApprovalMode): boolean {
    if (this.session.remote) throw new ReadOnlySessionError(`this session ${this.session.remote.reason}: switch its mode there`);
    return this.tools.approvals.setMode(mode);
  }

  get ready(): boolean {
    return !this.running && !this.closing && this.state === 'WaitingForUserInput';
  }

  gauge(): Gauge {
    const last = this.session.log.last('usage');
    const gauge = last?.gauge ?? estimatedGauge(0, undefined, this.provider.model, this.settings.contextWindow, this.settings.policy.thresholdRatio);
    // A window learned since the last usage event moves the gauge's window, threshold and reserve at once.
    const reserve = this.window.reserve;
    if (gauge.contextWindow === this.settings.contextWindow && gauge.windowSource === this.window.source && gauge.reserve === reserve) return gauge;
    return { ...gauge, contextWindow: this.settings.contextWindow, ratio: gauge.contextTokens / this.settings.contextWindow, windowSource: this.window.source, reserve };
  }

  /** The request the model would get next (also GET /view). */
  nextRequest(): LlmRequest {
    const view = this.session.view();
    const base = this.compaction.base();
    return {
      ...base,
      messages: plain(view),
      // Clamped so that the input estimate and the answer fit the window known so far.
      maxOutputTokens: this.window.outputBudget(this.compaction.estimator.estimate(view, base, true)),
      purpose: 'turn',
      ...(this.session.effort !== 'default' && { effort: this.session.effort }),
    };
  }

  wake(): void {
    // Another instance runs this session: this copy's loop never starts.
    if (this.running || this.closing || this.session.remote) return;
    this.running = true;
    this.idle = this.loop();
  }

  /** Resolves when the loop has nothing left to do (for shutdown). */
  whenIdle(): Promise<void> {
    return this.idle;
  }

  cancel(): void {
    this.abort?.abort(new Cancelled('cancelled by the user'));
  }

  /** Shutdown: the running turn is cancelled and nothing new starts (messages are still logged). */
  close(): void {
    this.closing = true;
    this.stopped.abort();
    this.cancel();
  }

  /**
   * After a restart: a turn that was running when the process died is closed
   * as interrupted. `forked`: the log is a fork's copy (see closeForked).
   */
  recoverInterrupted(reason = 'interrupted: the server restarted', forked = false): void {
    if (forked) return this.closeForked();
    // Waiting for a decision is not interrupted work: the request stays pending and the buttons come back.
    if (this.tools.approvals.pendingInLog()) {
      this.resumeCalls = unansweredCalls(this.session.log.all());
      this.wake();
      return;
    }
    const end: TurnEnd = { reason, via: 'Error', code: 'interrupted' };
    try {
      this.closeTurn(end);
    } catch (err) {
      if (!(err instanceof LogWriteError)) throw err;
      // The disk is full at start: the session still loads, and the loop closes the turn once writes succeed.
      this.unfinished = end;
      this.wake();
    }
  }

  /**
   * A fork's copy: nothing failed, the user chose a point. After a finished
   * turn the copy just waits; a turn the point cut is closed with a plain
   * "forked here" (its open calls answered so, a call waiting for approval
   * denied: the original still waits for its own decision).
   */
  private closeForked(): void {
    const state = this.state;
    if (state === 'WaitingForUserInput') return;
    if (state === 'EndOfTurn' || answeredTurn(this.session.log.all())) {
      this.finishTurn('forked after a finished turn', 'EndOfTurn');
      return;
    }
    this.tools.approvals.denyForFork();
    closeOpenWork(this.session, `not run: ${FORKED_HERE}`);
    this.finishTurn(FORKED_HERE, 'Cancelled');
  }

  /** Runs until there is nothing to do. Never throws: a failure ends the turn, a refused write waits and tries again. */
  private async loop(): Promise<void> {
    try {
      while (!this.closing) {
        try {
          if (this.unfinished) this.closeTurn(this.unfinished);
          this.unfinished = undefined;
          if (!(await this.step())) return;
          this.writes.succeeded();
          this.startFailures = 0;
        } catch (err) {
          await this.recover(err);
        }
      }
    } finally {
      // In the same step that decides there is nothing left (not a later .finally): a wake() in between is never lost.
      this.running = false;
    }
  }

  /** One piece of work from the inbox; false when there is none. */
  private async step(): Promise<boolean> {
    this.applyModelSwitch();
    if (this.resumeCalls) await this.turn(this.takeResume());
    else if (this.session.compactions.size) await this.compactionOnly();
    else if (this.hasUnseenUserMessage()) await this.turn();
    else return this.playScriptedUser();
    return true;
  }

  /** A replayed session: the recorded user's next message arrives at its place. */
  private playScriptedUser(): boolean {
    const text = hasScriptedUser(this.provider) ? this.provider.nextUserMessage() : undefined;
    if (text === undefined) return false;
    this.session.userMessage(text);
    return true;
  }

  private hasUnseenUserMessage(): boolean {
    return this.session.log.since(this.seenSeq).some((e) => e.kind === 'user' && !parseCompactCommand(e.text));
  }

  /** A queued compaction while idle: Waiting -> Compacting -> Waiting. */
  private async compactionOnly(): Promise<void> {
    this.abort = new AbortController();
    const due = this.session.compactions.peek()!;
    this.machine.transition('Compacting', `${due.trigger} compaction`);
    await this.compaction.run(due, this.abort.signal);
    this.machine.transition('WaitingForUserInput', 'compaction finished');
    this.abort = undefined;
  }

  private takeResume(): ToolCall[] {
    const calls = this.resumeCalls!;
    this.resumeCalls = undefined;
    return calls;
  }

  /** `resume`: calls of an answer logged before a restart, waiting for approval (the turn goes on from there). */
  private async turn(resume?: ToolCall[]): Promise<void> {
    this.abort = new AbortController();
    const signal = this.abort.signal;
    this.limits.startTurn(this.gauge().totalCostUsd);
    this.compaction.startTurn();
    let overflowRetried = false;
    // First, and without a pause: the pending call waits again from the moment the session loads.
    if (resume) await this.tools.run(resume, signal);
    await this.window.settle(signal);
    for (;;) {
      // After an overflow compaction the retry goes out at once; anything queued waits for the next safe point.
      if (this.state !== 'Compacting') {
        // Safe point before a request: every tool call has its result.
        const limit = this.limits.reached(this.gauge().totalCostUsd);
        if (limit) {
          this.session.append({ kind: 'error', message: limit, code: 'turn_limit' });
          this.finishTurn('turn limit reached', 'Error');
          return;
        }
        this.applyModelSwitch();
        const due = this.compaction.dueBeforeRequest();
        if (due) {
          this.machine.transition('Compacting', `${due.trigger} compaction`);
          await this.compaction.run(due, signal);
        }
      }
      this.instructions.beforeRequest();
      this.toolNotes.beforeRequest();
      this.statusNotes.beforeRequest(this.gauge());
      const retrying = this.state === 'Compacting' && overflowRetried;
      this.machine.transition('SendingToLLM', retrying ? 'retrying after compaction' : 'sending the conversation');
      this.limits.countStep();
      const answered = await this.requestAnswer(signal);
      // Refused as too long and compacted: the retry goes out at once with the smaller view.
      overflowRetried = answered === undefined;
      if (!answered) continue;
      const { request, response, trusted } = answered;
      const usage = response.usage;
      // Reported thinking tokens are not all sent back (only their summary or encrypted form, counted in the view): the answer's own output is the rest.
      this.compaction.onResponse(requestTokens(request), usage.input + usage.cacheRead + usage.cacheWrite, usage.output - (usage.reasoning ?? 0), this.seenSeq, trusted);
      this.machine.transition('ProcessingLLMResponse', response.stopReason);
      this.recordResponse(response);
      if (response.toolCalls.length) {
        const n = response.toolCalls.length;
        this.machine.transition('RunningTools', `${n} tool call${n > 1 ? 's' : ''}`);
        await this.tools.run(response.toolCalls, signal);
        continue;
      }
      // Safe point after a response that asks for no tool.
      const after = this.compaction.dueAfterResponse();
      if (after) {
        this.machine.transition('Compacting', `${after.trigger} compaction`);
        await this.compaction.run(after, signal);
      }
      this.finishTurn('the model finished its answer', 'EndOfTurn');
      return;
    }
  }

  /**
   * Sends the view; a refusal as too long (or a server seen cutting the
   * prompt) teaches the window and is retried with a smaller output budget,
   * or compacted (undefined: send again from the safe point).
   */
  private async requestAnswer(signal: AbortSignal): Promise<{ request: LlmRequest; response: LlmResponse; trusted: boolean } | undefined> {
    for (;;) {
      const reshaped = this.shape.change(this.settings.contextWindow, this.session.log);
      if (reshaped) {
        this.session.append(reshaped);
        this.reshapes++;
      }
      const request = this.nextRequest();
      this.seenSeq = this.session.log.lastSeq;
      const estimator = this.compaction.estimator;
      const raw = requestTokens(request);
      // With the largest ratio seen between the server's count and ours: the margin covers its tokenizer's spread.
      const estimate = Math.max(Math.ceil(estimator.ratio * raw), estimator.estimate(this.session.view(), this.compaction.base(), true));
      const sent = { input: estimate, maxTokens: request.maxOutputTokens, raw };
      try {
        // A request that cannot fit the known window is compacted harder before it goes out.
        this.recovery.check(estimate, request.maxOutputTokens);
        const response = await this.callModel(request, signal);
        if (wroteNothingForLength(response)) throw emptyLengthOverflow(response);
        const head = headOf(request);
        this.window.checkReported({ raw, lineage: this.compaction.runs + this.reshapes, lowerRatio: estimator.lowerRatio, ...(head && { head }) }, response.usage);
        this.recovery.answered();
        this.window.answered();
        // A request that may have passed the context of a server known to cut: kept (nothing proves the cut), not learned from.
        return { request, response, trusted: !this.window.mayHaveCut(Math.ceil(estimator.upperRatio * raw)) };
      } catch (err) {
        if (signal.aborted) throw err;
        const overflow = err instanceof ContextOverflowError ? err : this.recovery.unrecognised(err, sent);
        if (!overflow) throw err;
        if ((await this.recovery.recover(overflow, sent)) === 'compacted') return undefined;
      }
    }
  }

  /** One request to the model: its text streams to the subscribers; transient failures are retried, visibly. */
  private callModel(request: LlmRequest, signal: AbortSignal): Promise<LlmResponse> {
    return callModel(this.provider, request, signal, this.settings.models?.retry ?? { max: 0, baseMs: 0 }, {
      afterSeq: this.session.log.lastSeq,
      broadcast: (frame) => this.session.broadcast(frame),
      retrying: (message) => this.session.append({ kind: 'error', message, code: 'retrying' }),
    });
  }

  /** POST /model: checks the model now (throws UnknownModelError), switches at the next safe point. */
  switchModel(model: string, effort?: ReasoningEffort): void {
    if (this.session.remote) throw new ReadOnlySessionError(`this session ${this.session.remote.reason}: switch its model there`);
    if (!this.settings.models) throw new Error('this server cannot switch models');
    if (model !== this.provider.model || this.pendingModel) this.settings.models.create(model);
    this.pendingModel = model;
    if (effort) this.pendingEffort = effort;
    this.wake();
  }

  /** At a safe point: moves to the model asked for, and compacts first when the view does not fit its window. */
  private applyModelSwitch(): void {
    const to = this.pendingModel;
    const effort = this.pendingEffort;
    this.pendingModel = undefined;
    this.pendingEffort = undefined;
    if (!to || !this.settings.models) return;
    if (to === this.provider.model) {
      // Only the effort changed: recorded so that it survives a restart.
      if (effort && effort !== this.session.effort) {
        this.session.effort = effort;
        this.session.append({ kind: 'model', from: to, to, contextWindow: this.info.contextWindow, effort });
      }
      return;
    }
    if (effort) this.session.effort = effort;
    const { provider, info, warning } = this.settings.models.create(to);
    const from = this.provider.model;
    this.provider = provider;
    this.info = info;
    this.settings.contextWindow = info.contextWindow;
    this.session.model = to;
    this.session.append({ kind: 'model', from, to, contextWindow: info.contextWindow, ...(effort && { effort }) });
    this.tableInfo = info;
    this.window.reset();
    // The last real numbers, and the calibration, came from the old model's tokenizer.
    this.compaction.estimator.reset();
    if (warning) this.session.append({ kind: 'error', message: warning, code: 'unknown_model' });
    const estimate = requestTokens(this.nextRequest());
    const { thresholdRatio } = this.settings.policy;
    const gauge = estimatedGauge(estimate, this.gauge(), to, this.settings.contextWindow, thresholdRatio);
    this.session.append({ kind: 'usage', gauge: { ...gauge, windowSource: this.window.source, reserve: this.window.reserve } });
    // Applied only at a safe point where a compaction can start: it runs first, before anything else queued.
    if (needsCompactionAfterSwitch(estimate, this.info, thresholdRatio)) this.session.compactions.add({ trigger: 'model_switch' }, true);
  }

  private recordResponse(response: LlmResponse): void {
    const usage: Usage = { ...response.usage, costUsd: costUsd(this.info, response.usage) };
    const { contextWindow, policy } = this.settings;
    const gauge = gaugeFromUsage(usage, this.gauge(), this.provider.model, contextWindow, policy.thresholdRatio);
    this.session.append({ kind: 'usage', gauge: { ...gauge, windowSource: this.window.source, reserve: this.window.reserve } });
    // A defect the provider worked around (e.g. refused thinking, sent again without it) is recorded, never hidden.
    for (const note of response.notes ?? []) this.session.append({ kind: 'error', message: note.message, code: note.code });
    const reasoning = response.reasoning && { reasoning: response.reasoning };
    this.session.append({ kind: 'agent', text: response.text, model: this.provider.model, endOfTurn: response.toolCalls.length === 0, usage, ...reasoning });
    for (const call of response.toolCalls) {
      const logged = this.session.append({ kind: 'tool_call', callId: call.id, name: call.name, input: call.input });
      // A call runs as logged: a secret the model rebuilt is masked there, and reaches no tool either.
      if (logged.kind === 'tool_call') call.input = logged.input;
    }
  }

  /** Ends a turn through `via` (EndOfTurn, Cancelled or Error) back to WaitingForUserInput. */
  private finishTurn(reason: string, via: 'EndOfTurn' | 'Cancelled' | 'Error'): void {
    const state = this.state;
    if (state === 'WaitingForUserInput') return;
    if (state !== 'EndOfTurn' && state !== 'Cancelled' && state !== 'Error') {
      this.machine.transition(canTransition(state, via) ? via : 'Error', reason);
    }
    this.machine.transition('WaitingForUserInput', reason);
    this.abort = undefined;
  }

  /** Closes a turn that failed or was cancelled; throws if the log refuses, and can be called again. */
  private closeTurn(end: TurnEnd): void {
    const state = this.state;
    if (state === 'WaitingForUserInput') return;
    closeOpenWork(this.session, end.via === 'Cancelled' ? 'cancelled by the user before it ran' : end.reason);
    if (end.via === 'Error' && !end.recorded && state !== 'EndOfTurn' && state !== 'Cancelled' && state !== 'Error') {
      this.session.append({ kind: 'error', message: end.reason, ...(end.code && { code: end.code }) });
    }
    end.recorded = true;
    this.finishTurn(end.reason, end.via);
  }

  /**
   * Any failure: the turn is closed with its reason and the session waits for
   * the user. When the log refuses the writes, the loop waits (longer each
   * time) and tries again; the clients are told once.
   */
  private async recover(err: unknown): Promise<void> {
    // Shutting down while a call waits for approval: the log keeps it pending for the restart.
    if (err instanceof ApprovalSuspended) return;
    if (this.state !== 'WaitingForUserInput') this.unfinished ??= turnEndFor(err, this.abort?.signal.aborted ?? false);
    let refused = err instanceof LogWriteError ? err : undefined;
    try {
      if (this.unfinished) this.closeTurn(this.unfinished);
      else if (!refused) this.failedBeforeStart(err);
      this.unfinished = undefined;
    } catch (inner) {
      if (inner instanceof LogWriteError) refused = inner;
      else {
        // A bug while closing: go back to waiting; a restart closes the turn the log shows as interrupted.
        log.error(`cannot close the turn: ${String(inner)}`, { session: this.session.id });
        this.machine.forceIdle();
        this.unfinished = undefined;
      }
    }
    if (!refused) return this.writes.succeeded();
    if (!this.writes.failing) log.error(`cannot write the log: ${refused.message}`, { session: this.session.id });
    await this.writes.pause(refused, this.stopped.signal);
  }

  /** A failure before a turn's first transition is recorded; the same failure twice in a row gives up its messages (no loop). */
  private failedBeforeStart(err: unknown): void {
    log.error('a turn could not start', { session: this.session.id, error: err });
    this.session.append({ kind: 'error', message: `the turn could not start: ${err instanceof Error ? err.message : String(err)}`, code: 'internal' });
    if (++this.startFailures >= 2) this.seenSeq = this.session.log.lastSeq;
  }
}

/** The log ends with the model's final answer (only usage or notes after it): the turn is done. */
function answeredTurn(events: readonly SkeinEvent[]): boolean {
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i]!;
    if (e.kind === 'usage' || e.kind === 'status' || e.kind === 'limits' || e.kind === 'mode') continue;
    return e.kind === 'agent' && e.endOfTurn;
  }
  return false;
}

/** The turn limits that are set (undefined ones keep their defaults). */
function definedOnly(settings: Partial<TurnLimitSettings>): Partial<TurnLimitSettings> {
  return {
    ...(settings.maxStepsPerTurn !== undefined && { maxStepsPerTurn: settings.maxStepsPerTurn }),
    ...(settings.maxTurnCostUsd !== undefined && { maxTurnCostUsd: settings.maxTurnCostUsd }),
  };
}
