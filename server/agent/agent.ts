// The agent loop of one session: single-threaded, driven by its inbox, every
// move a checked transition of the state machine and an event in the log.
import { parseCompactCommand, type AgentState, type ApprovalMode, type Gauge, type ReasoningEffort } from '../../shared/protocol.js';
import { plain } from '../compaction/view.js';
import { requestTokens } from '../llm/tokens.js';
import type { ModelInfo } from '../llm/models.js';
import type { ProviderChoice } from '../llm/providers.js';
import { hasScriptedUser, type LlmRequest, type Provider, type ToolCall } from '../llm/types.js';
import { SessionTools } from '../tools/session-tools.js';
import { RequestShape } from './request-shape.js';
import { ApprovalGate } from './approvals.js';
import { CompactionRunner } from './compaction-runner.js';
import { estimatedGauge, withWindow } from './gauge.js';
import { OverflowRecovery } from './overflow-recovery.js';
import type { AgentHandle, Session } from './session.js';
import { ReadOnlySessionError } from '../cluster/remote-owner.js';
import { StateMachine } from './state-machine.js';
import { Cancelled } from './turn-end.js';
import { DEFAULT_TURN_LIMITS, TurnLimits } from './turn-limits.js';
import { SessionWindow, withLimits } from './window.js';
import { WriteBackoff } from './write-backoff.js';
import { StatusNotes } from './status-notes.js';
import { ToolRunner } from './tool-runner.js';
import { ProjectInstructions } from './project-instructions.js';
import { ToolNotes } from './tool-notes.js';
import { definedOnly, type AgentSettings } from './agent-settings.js';
import { systemPrompts } from './system-prompts.js';
import { TurnClosing } from './turn-closing.js';
import { ModelAnswer } from './model-answer.js';
import { ModelSwitching } from './model-switching.js';
import { CutAnswers } from './cut-answers.js';

export type { AgentSettings } from './agent-settings.js';

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
  /** The window the session really has (asked, learned from refusals) and how to recover from a refusal. */
  readonly window: SessionWindow;
  private readonly recovery: OverflowRecovery;
  /** The model table's limits for the current model, before anything was learned. */
  private tableInfo: ModelInfo;
  private readonly limits: TurnLimits;
  private readonly writes: WriteBackoff;
  /** Set by close(): no new turn or compaction starts. */
  private closing = false;
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
  /** The parts: ending turns, one exchange with the model, switching models (each given what it needs of this object). */
  private readonly ending: TurnClosing;
  private readonly answers: ModelAnswer;
  private readonly switching: ModelSwitching;
  /** Answers cut by a full context or max_tokens: named, learned from, continued. */
  private readonly cuts: CutAnswers;

  constructor(
    private readonly session: Session,
    private provider: Provider,
    private info: ModelInfo,
    private readonly settings: AgentSettings,
    initial: AgentState,
  ) {
    // Project instructions are read (and logged) when the session is created: the system prompt never changes after.
    this.instructions = new ProjectInstructions(session, settings.workDir);
    const section = [settings.agentPrompt && `# Your role\n\n${settings.agentPrompt}`, this.instructions.systemSection].filter(Boolean).join('\n\n');
    const { system, lean: leanSystem } = systemPrompts(settings.workDir, section || undefined);
    this.system = system;
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
      ...settings.models?.window, setting: settings.models?.window?.setting, cache: settings.models?.window?.cache, // SKEIN_CONTEXT_WINDOW, SKEIN_MAX_OUTPUT_TOKENS, the limits cache
    });
    this.recovery = new OverflowRecovery({
      window: this.window,
      model: () => this.provider.model,
      enterCompacting: (reason) => this.machine.transition('Compacting', reason),
      compact: (level) => this.compaction.run({ trigger: 'overflow', level }, this.abort!.signal),
      // With the largest server/ours ratio seen: the margin covers the spread of the server's tokenizer.
      estimate: () => this.estimateNext(),
      headEstimate: () => this.compaction.headEstimate(),
      headWords: () => this.compaction.headWords(),
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
      windowGuess: () => this.window.guess,
      keepRatio: (ratio) => this.settings.models?.window?.cache.setRatio(this.provider.model, ratio),
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
    // What the data folder learned of this server's tokenizer: the first request is estimated calibrated.
    this.compaction.estimator.reset(settings.models?.window?.cache.ratio(provider.model));
    this.statusNotes = new StatusNotes(session, settings.statusUpdates === true, this.gauge());
    this.ending = new TurnClosing({
      session,
      machine: this.machine,
      approvals,
      writes: this.writes,
      stopped: this.stopped.signal,
      state: () => this.state,
      aborted: () => this.abort?.signal.aborted ?? false,
      turnOver: () => (this.abort = undefined),
      wake: () => this.wake(),
      resume: (calls) => (this.resumeCalls = calls),
      skipUnseen: () => (this.seenSeq = this.session.log.lastSeq),
    });
    const self = {
      session,
      settings,
      shape: this.shape,
      compaction: this.compaction,
      recovery: this.recovery,
      window: this.window,
      provider: () => this.provider,
      info: () => this.info,
      gauge: () => this.gauge(),
      nextRequest: () => this.nextRequest(),
      wake: () => this.wake(),
    };
    this.answers = new ModelAnswer({ ...self, seen: (seq) => (this.seenSeq = seq) });
    this.cuts = new CutAnswers({ session, window: this.window, info: () => this.info });
    this.switching = new ModelSwitching({
      ...self,
      use: (provider, info) => {
        this.provider = provider;
        this.info = info;
        this.settings.contextWindow = info.contextWindow;
        this.tableInfo = info;
      },
    });
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
    const gauge = this.session.log.last('usage')?.gauge ?? estimatedGauge(0, undefined, this.provider.model, this.settings.contextWindow, this.settings.policy.thresholdRatio);
    return withWindow(gauge, this.settings.contextWindow, this.window.gaugeFields());
  }

  /** skein's calibrated estimate of the next request: what its output budget is sized against (GET /view). */
  estimateNext(): number {
    return this.compaction.estimator.estimate(this.session.view(), this.compaction.base(), true);
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

  /** After a restart: a turn that was running is closed as interrupted (turn-closing.ts). */
  recoverInterrupted(reason = 'interrupted: the server restarted', forked = false): void {
    this.ending.recoverInterrupted(reason, forked);
  }

  /** POST /model: checks the model now (throws UnknownModelError), switches at the next safe point (model-switching.ts). */
  switchModel(model: string, effort?: ReasoningEffort): void {
    this.switching.switchModel(model, effort);
  }

  /** Runs until there is nothing to do. Never throws: a failure ends the turn, a refused write waits and tries again. */
  private async loop(): Promise<void> {
    try {
      while (!this.closing) {
        try {
          if (this.ending.unfinished) this.ending.closeTurn(this.ending.unfinished);
          this.ending.unfinished = undefined;
          if (!(await this.step())) return;
          this.writes.succeeded();
          this.ending.startFailures = 0;
        } catch (err) {
          await this.ending.recover(err);
        }
      }
    } finally {
      // In the same step that decides there is nothing left (not a later .finally): a wake() in between is never lost.
      this.running = false;
    }
  }

  /** One piece of work from the inbox; false when there is none. */
  private async step(): Promise<boolean> {
    this.switching.apply();
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
    this.cuts.startTurn();
    let overflowRetried = false;
    let continuing = false;
    // First, and without a pause: the pending call waits again from the moment the session loads.
    if (resume) await this.tools.run(resume, signal);
    for (;;) {
      // After an overflow compaction the retry goes out at once; anything queued waits for the next safe point.
      if (this.state !== 'Compacting') {
        // Safe point before a request: every tool call has its result.
        const limit = this.limits.reached(this.gauge().totalCostUsd);
        if (limit) {
          this.session.append({ kind: 'error', message: limit, code: 'turn_limit' });
          this.ending.finishTurn('turn limit reached', 'Error');
          return;
        }
        this.switching.apply();
        // Before each request (not only a turn's first): a server that was down is asked again once it may answer.
        await this.window.settle(signal);
        const due = this.compaction.dueBeforeRequest();
        if (due) {
          this.machine.transition('Compacting', `${due.trigger} compaction`);
          await this.compaction.run(due, signal);
        }
      }
      this.instructions.beforeRequest();
      this.toolNotes.beforeRequest();
      this.cuts.beforeRequest();
      this.statusNotes.beforeRequest(this.gauge());
      const retrying = this.state === 'Compacting' && overflowRetried;
      this.machine.transition('SendingToLLM', retrying ? 'retrying after compaction' : continuing ? 'continuing the cut answer' : 'sending the conversation');
      continuing = false;
      this.limits.countStep();
      const answered = await this.answers.requestAnswer(signal);
      // Refused as too long and compacted: the retry goes out at once with the smaller view.
      overflowRetried = answered === undefined;
      if (!answered) continue;
      this.cuts.answered();
      const { request, response, trusted } = answered;
      const usage = response.usage;
      // Reported thinking tokens are not all sent back (only their summary or encrypted form, counted in the view): the answer's own output is the rest.
      this.compaction.onResponse(requestTokens(request), usage.input + usage.cacheRead + usage.cacheWrite, usage.output - (usage.reasoning ?? 0), this.seenSeq, trusted, requestTokens({ ...request, messages: [] }));
      this.machine.transition('ProcessingLLMResponse', response.stopReason);
      const cut = this.cuts.classify(request, response);
      this.answers.recordResponse(response, cut?.continues);
      if (cut) this.cuts.record(cut);
      // A cut answer goes on from the cut: the safe point before the next request makes room for it.
      continuing = cut?.continues === true;
      if (continuing) continue;
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
      this.ending.finishTurn(cut ? `the answer was cut (${cut.reason === 'context' ? 'context full' : 'max_tokens'}) and left so` : 'the model finished its answer', 'EndOfTurn');
      return;
    }
  }
}
