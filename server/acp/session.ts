// One skein session seen from an editor: its event stream translated into
// `session/update`s (in order), a prompt's turn and how it ended, the tool
// calls that wait for approval asked through `session/request_permission`,
// and the session's approval mode.
import { RequestError, type AgentContext, type ContentBlock, type PermissionOption, type RequestPermissionRequest, type RequestPermissionResponse, type SessionModeState, type SessionUpdate, type StopReason } from '@agentclientprotocol/sdk';
import type { ApprovalDecision, ApprovalRequestEvent, EventOf, Gauge, ImageInput, SkeinEvent } from '../../shared/protocol.js';
import type { Api } from '../cli/api.js';
import type { Connection } from '../cli/connection.js';
import { CliError, EXIT } from '../cli/exit-codes.js';
import { log } from '../log.js';
import { availableCommands, modeFor, MODES, type ModeId } from './commands.js';
import { permissionAnswer, permissionOptions } from './permission.js';
import { openStream, type SessionStream } from './session-stream.js';
import { diffContent, toolKind, toolLocations, toolTitle } from './tool-display.js';
import { IDLE, TurnWatch, type TurnEnding } from './turn.js';
import { UpdateTranslator, usageUpdate } from './updates.js';
import { ChildProgress } from './child-progress.js';
import { childRequest, type Asked } from './child-approval.js';

export interface AcpSessionOptions {
  connection: Connection;
  api: Api;
  client: AgentContext;
  /** The client advertised `session.compaction`. */
  compactionUpdates: boolean;
}

/** The mode of a session whose snapshot says none (a server older than per-session modes): SKEIN_APPROVAL's default. */
const DEFAULT_MODE: ModeId = 'never';

export class AcpSession {
  private stream: SessionStream | undefined;
  private translator: UpdateTranslator | undefined;
  /** Notifications go out one after another, in the order of the events. */
  private queue: Promise<void> = Promise.resolve();
  private state = IDLE;
  private mode: ModeId = DEFAULT_MODE;
  private turn: { watch: TurnWatch; done: (ending: TurnEnding) => void } | undefined;
  /** Calls waiting for approval (its own, and its children's: `task` names the task call they belong to), and the permission request asked for each. */
  private readonly approvals = new Map<string, Asked>();
  /** Its running children (`task` calls): their steps as updates of the task call. */
  private readonly children: ChildProgress;
  /** Children started but not finished, seen while the history was replayed: followed once it is read. */
  private readonly running = new Map<string, EventOf<'subagent'>>();
  private live = false;
  /** Why the stream ended without being asked to: the session must be loaded again. */
  private lost: string | undefined;
  /** A cancel arrived while the prompt was on its way: it is sent again once the prompt is in. */
  private cancelWanted = false;
  closed = false;
  /** The session's context gauge as its last usage event said (in the prompt's answer, `_meta.skein.gauge`). */
  gauge: Gauge | undefined;

  constructor(
    readonly id: string,
    private readonly options: AcpSessionOptions,
  ) {
    this.children = new ChildProgress(options.connection, options.api, (updates) => this.send(updates));
  }

  /** Opens the stream; `replay`: the history is sent as updates (session/load) before this resolves. */
  async open(replay: boolean): Promise<void> {
    let translator: UpdateTranslator | undefined;
    const stream = await openStream(this.options.connection, this.options.api, this.id, 0, {
      hello: (snapshot) => {
        this.state = snapshot.state;
        this.gauge = snapshot.gauge;
        this.mode = snapshot.mode ?? DEFAULT_MODE;
        translator = new UpdateTranslator({ workDir: snapshot.workspace?.workDir, compactionUpdates: this.options.compactionUpdates, mode: () => this.mode });
        this.translator = translator;
      },
      event: (event, live) => !this.closed && translator && this.see(event, live, translator, replay),
      delta: (frame) => !this.closed && translator && this.live && this.send(translator.delta(frame)),
      lost: (reason) => {
        log.warn(`acp: ${reason}`, { session: this.id });
        this.lost = reason;
        this.turn?.done({ error: reason, code: 'server_gone' });
        this.turn = undefined;
      },
    });
    this.stream = stream;
    // Closed while its stream opened (another session/load of this id came in): it must not stay subscribed.
    if (this.closed) return void stream.close();
    await stream.caughtUp;
    this.live = true;
    for (const started of this.running.values()) this.children.follow(started);
    await this.queue;
  }

  /** The session's folder, as the server gave it when the stream opened. */
  workDir(): string | undefined {
    return this.stream?.snapshot.workspace?.workDir;
  }

  modes(): SessionModeState {
    return { currentModeId: this.mode, availableModes: MODES.map((m) => ({ ...m })) };
  }

  /**
   * What an editor shows once the session is there: the commands, the gauge, and a call already waiting for approval;
   * `announceMode`: the mode this agent was asked for (SKEIN_APPROVAL) is said as `current_mode_update` too.
   */
  afterOpen(announceMode = false): void {
    const snapshot = this.stream?.snapshot;
    this.send([
      ...(announceMode ? [{ sessionUpdate: 'current_mode_update' as const, currentModeId: this.mode }] : []),
      { sessionUpdate: 'available_commands_update', availableCommands: availableCommands() },
      ...(snapshot ? [usageUpdate(snapshot.gauge)] : []),
    ]);
    for (const { event } of this.approvals.values()) this.ask(event);
  }

  private see(event: SkeinEvent, live: boolean, translator: UpdateTranslator, replay: boolean): void {
    if (event.kind === 'state') this.state = event.to;
    if (event.kind === 'usage') this.gauge = event.gauge;
    if (event.kind === 'mode') {
      this.mode = event.to;
      if (live) this.send([{ sessionUpdate: 'current_mode_update', currentModeId: event.to }]);
    }
    if (event.kind === 'approval_request') this.approvals.set(event.callId, { event });
    if (event.kind === 'subagent') this.seeChild(event, live);
    if (event.kind === 'approval_decision' || event.kind === 'tool_result') {
      // Decided (here, in the web UI, by a rule, a cancel or a new message): a question still open in the editor is withdrawn.
      this.approvals.get(event.callId)?.asked?.abort();
      this.approvals.delete(event.callId);
    }
    if (live || replay) this.send(translator.event(event, !live));
    if (live && event.kind === 'approval_request') this.ask(event);
    const ending = this.turn?.watch.see(event);
    if (ending) {
      const turn = this.turn!;
      this.turn = undefined;
      // The turn's last updates reach the editor before its stop reason.
      void this.queue.then(() => turn.done(ending));
    }
  }

  /** A child of a task call: followed while it runs; its approval request asked here too (answered with the parent's route). */
  private seeChild(event: EventOf<'subagent'>, live: boolean): void {
    if (event.phase === 'started') {
      this.running.set(event.child, event);
      if (live) this.children.follow(event);
    } else if (event.phase === 'finished') {
      this.running.delete(event.child);
      this.children.stop(event.child);
      // A child closed while its call waited (a restart, a cancel): the question is withdrawn.
      for (const [callId, approval] of this.approvals) {
        if (approval.task?.callId !== event.callId) continue;
        approval.asked?.abort();
        this.approvals.delete(callId);
      }
    } else if (event.phase === 'approval' && event.approval) {
      const request = childRequest(event);
      if (request) this.approvals.set(request.event.callId, request);
      if (request && live) this.ask(request.event);
    } else if (event.phase === 'approval_decision' && event.approval) {
      this.approvals.get(event.approval.callId)?.asked?.abort();
      this.approvals.delete(event.approval.callId);
    }
  }

  private send(updates: SessionUpdate[]): void {
    for (const update of updates) {
      this.queue = this.queue.then(() => this.options.client.notify('session/update', { sessionId: this.id, update })).catch((err: unknown) => log.warn(`acp: session/update not sent: ${String(err)}`, { session: this.id }));
    }
  }

  /** Sends the prompt and resolves with how its turn ended. */
  async prompt(text: string, images: readonly ImageInput[] = []): Promise<StopReason> {
    if (this.lost) throw RequestError.internalError(undefined, `${this.lost}: load the session again (session/load)`);
    if (this.turn) throw RequestError.invalidRequest(undefined, 'a prompt is already running in this session: wait for it or cancel it');
    this.cancelWanted = false;
    const ending = new Promise<TurnEnding>((done) => (this.turn = { watch: new TurnWatch(text, this.state !== IDLE), done }));
    this.translator?.expectPrompt(text);
    try {
      await this.options.api.send(this.id, text, images);
      // Cancelled before the server had the prompt: the cancel then found nothing to stop.
      if (this.cancelWanted) await this.options.api.cancel(this.id);
    } catch (err) {
      this.turn = undefined;
      // The server refused the message itself (an image it cannot read, too large): the editor's request was bad.
      if (err instanceof CliError && err.code === EXIT.usage) throw RequestError.invalidParams(undefined, err.message);
      throw RequestError.internalError(undefined, err instanceof Error ? err.message : String(err));
    }
    const end = await ending;
    if (end.error !== undefined) throw RequestError.internalError({ code: end.code }, end.error);
    return end.stopReason;
  }

  /** A message the editor shows as the agent's (answers of the slash commands handled here). */
  async say(text: string, skein?: Record<string, unknown>): Promise<void> {
    this.send([{ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text }, ...(skein && { _meta: { skein } }) }]);
    await this.queue;
  }

  /** One content block (a resource, an image) as the agent's message. */
  async send1(content: ContentBlock): Promise<void> {
    this.send([{ sessionUpdate: 'agent_message_chunk', content }]);
    await this.queue;
  }

  async cancel(): Promise<void> {
    if (this.turn) this.cancelWanted = true;
    for (const approval of this.approvals.values()) approval.asked?.abort();
    await this.options.api.cancel(this.id);
  }

  async setMode(mode: string): Promise<void> {
    const chosen = modeFor(mode);
    if ('error' in chosen) throw RequestError.invalidParams(undefined, chosen.error);
    await this.options.api.request('PUT', `/api/sessions/${encodeURIComponent(this.id)}/mode`, { mode: chosen.mode });
    // The mode event that follows tells the editor too; this answer says it at once.
    this.mode = chosen.mode;
  }

  /** Asks the editor about a call waiting for approval and passes the answer on. */
  private ask(event: ApprovalRequestEvent): void {
    const approval = this.approvals.get(event.callId);
    if (!approval || approval.asked) return;
    const asked = new AbortController();
    approval.asked = asked;
    const workDir = this.stream?.snapshot.workspace?.workDir;
    const diff = diffContent(event.name, event.input, workDir, event.preview.kind === 'diff' ? event.preview.text : undefined);
    const preview = { type: 'content' as const, content: { type: 'text' as const, text: '```\n' + event.preview.text + '\n```' } };
    const options = permissionOptions(event);
    // A child's call is asked about as the parent's task call (the editor knows that one), titled with the child's call.
    const task = approval.task;
    const title = toolTitle(event.name, event.input);
    const params: RequestPermissionRequest = {
        sessionId: this.id,
        toolCall: {
          toolCallId: task?.callId ?? event.callId,
          title: task ? `${task.agent} agent: ${title}` : title,
          kind: toolKind(event.name),
          status: 'pending',
          rawInput: event.input,
          locations: toolLocations(event.name, event.input, workDir),
          content: diff ? [diff, preview] : [preview],
          _meta: { skein: { rule: event.rule, ...(event.alwaysAsks && { alwaysAsks: event.alwaysAsks }), ...(task && { subagent: { child: task.child, callId: event.callId, tool: event.name } }) } },
        },
        options,
      };
    // Asked after every update before it has gone out: the editor knows the call (its tool_call) before the question about it.
    this.queue = this.queue.then(() => {
      if (asked.signal.aborted || !this.approvals.has(event.callId)) return;
      this.answer(event, options, approval, asked, this.options.client.request('session/request_permission', params, { cancellationSignal: asked.signal }));
    });
  }

  /** Passes the editor's answer on to skein (unless decided meanwhile elsewhere). */
  private answer(event: ApprovalRequestEvent, options: readonly PermissionOption[], approval: Asked, asked: AbortController, request: Promise<RequestPermissionResponse>): void {
    void request.then(
      async (answer) => {
        if (asked.signal.aborted || !this.approvals.has(event.callId)) return;
        const decided = permissionAnswer(answer.outcome, options);
        if (decided.kind === 'cancel') return void (await this.cancel().catch(() => {}));
        if (decided.kind === 'unknown') {
          log.warn(`acp: the editor answered an unknown option ${JSON.stringify(decided.optionId)} (not offered on this question); asking again`, { session: this.id });
          approval.asked = undefined;
          return this.ask(event);
        }
        const decision = decided.decision;
        await this.options.api.request('POST', `/api/sessions/${encodeURIComponent(this.id)}/approvals/${encodeURIComponent(event.callId)}`, { decision }).catch((err: unknown) => {
          // 409: decided meanwhile elsewhere; anything else is worth a line on stderr.
          log.warn(`acp: the decision on ${event.callId} was not taken: ${err instanceof Error ? err.message : String(err)}`, { session: this.id });
        });
      },
      (err: unknown) => {
        if (!asked.signal.aborted) log.warn(`acp: session/request_permission failed: ${err instanceof Error ? err.message : String(err)}`, { session: this.id });
      },
    );
  }

  close(): void {
    this.closed = true;
    this.stream?.close();
    this.children.closeAll();
    for (const approval of this.approvals.values()) approval.asked?.abort();
    this.turn?.done({ error: 'the connection closed', code: 'closed' });
  }
}
