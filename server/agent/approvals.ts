// The session's approval mode (its last `mode` event, else SKEIN_APPROVAL):
// which tool calls wait for the user, which plan mode refuses, and the wait
// itself (what each mode does to a call: mode-rules.ts). A call that needs approval is logged as an `approval_request`, the agent
// moves to WaitingForApproval, and the call runs (or is denied) once a
// decision arrives: from the user (REST or WebSocket), from a cancel, or from
// a new user message (which denies, with its text as the reason). Decisions
// are logged too, so a restart finds a request still pending and decides it
// again under the session's mode and rules. A switch of mode while a call
// waits decides it again under the new mode, as a restart would: `never`
// approves it, `plan` refuses a write, `on-write` approves a read-only call
// and keeps a write waiting, `always` keeps it waiting. What a session rule
// covers is in approval-rules.ts.
import {
  parseCompactCommand,
  type AgentState,
  type ApprovalDecision,
  type ApprovalDecisionEvent,
  type ApprovalMode,
  type ApprovalRequestEvent,
  type ApprovalRule,
  type SkeinEvent,
} from '../../shared/protocol.js';
import type { ToolCall } from '../llm/types.js';
import { previewOf } from './approval-preview.js';
import { offerFor, ruleMatches } from './approval-rules.js';
import { planRefusal, verdictOf } from './mode-rules.js';
import type { Session } from './session.js';

/** What the gate uses of its session: a Session (tests give a small one of their own). */
export type ApprovalSession = Pick<Session, 'append' | 'subscribe'> & { readonly log: Pick<Session['log'], 'all' | 'last' | 'kinds'> };

/** Whether a call to `name` waits for the user in this mode (plan mode asks about nothing: it runs or refuses). */
export function needsApproval(mode: ApprovalMode, name: string): boolean {
  return verdictOf(mode, name) === 'ask';
}

export { offerFor, ruleFor, ruleMatches } from './approval-rules.js';

/** The result, and the reason logged, of a call that waited when its session was forked. */
export const FORKED_BEFORE_APPROVAL = 'forked before it was approved';

/** Why a decision for a call was refused (HTTP 409). */
export class NoPendingApprovalError extends Error {}

/** The server is shutting down while a call waits: nothing is decided, a restart asks again. */
export class ApprovalSuspended extends Error {}

/**
 * What happens to a call: it runs (`readOnly`: plan mode's bash, only inside
 * the read-only sandbox), or it gets `output` as its (error) result.
 */
export type Clearance = { run: true; readOnly?: true } | { run: false; output: string };

/** Longest reason kept from a new user message (the message itself reaches the model whole, right after). */
const MAX_MESSAGE_REASON = 2000;

interface Decided {
  decision: ApprovalDecision;
  by: ApprovalDecisionEvent['by'];
  reason?: string;
}

interface Pending {
  /** The call's request: the log's open one until a decision or a result follows it. */
  request: ApprovalRequestEvent;
  settle: (d: Decided) => void;
}

export interface ApprovalDeps {
  session: ApprovalSession;
  /** SKEIN_APPROVAL: the mode of a session that never switched. */
  mode: ApprovalMode;
  workDir: string;
  state: () => AgentState;
  transition: (to: AgentState, reason: string) => void;
  /** Aborted when the server shuts down (not a cancel: the request stays pending). */
  stopped: AbortSignal;
}

export class ApprovalGate {
  private readonly rules: ApprovalRule[] = [];
  private pending: Pending | undefined;
  /** A new message denied a call of the current answer: the calls after it are denied with the same reason. */
  private deniedByMessage: string | undefined;
  /** The session's mode: its last switch (replayed from the log), else SKEIN_APPROVAL. */
  private current: ApprovalMode;

  constructor(private readonly deps: ApprovalDeps) {
    // Rules recorded before a restart still hold: they are in the log.
    for (const e of deps.session.log.kinds.eventsOf('approval_decision')) if (e.decision === 'approve_session' && e.rule) this.rules.push(e.rule);
    this.current = deps.session.log.last('mode')?.to ?? deps.mode;
  }

  get mode(): ApprovalMode {
    return this.current;
  }

  /**
   * The user switches the session's mode. Logged before it takes effect (a
   * log that refuses it changes nothing: LogWriteError). The call waiting now,
   * if any, is decided again under the new mode. Returns whether it changed.
   */
  setMode(to: ApprovalMode): boolean {
    if (to === this.current) return false;
    this.deps.session.append({ kind: 'mode', from: this.current, to });
    this.current = to;
    const pending = this.pending;
    if (!pending) return true;
    const verdict = verdictOf(to, pending.request.name);
    if (verdict === 'ask') return true;
    this.pending = undefined;
    pending.settle({ decision: verdict === 'refuse' ? 'deny' : 'approve', by: 'mode', reason: `the session switched to ${to} mode` });
    return true;
  }

  /** The call waiting for a decision now, if any. */
  get waitingFor(): string | undefined {
    return this.pending?.request.callId;
  }

  /** A new answer's calls: a message that denied the previous answer's calls does not deny these. */
  startAnswer(): void {
    this.deniedByMessage = undefined;
  }

  /**
   * The request a restart found pending: the agent was in WaitingForApproval
   * and the call has neither a decision nor a result.
   */
  pendingInLog(): ApprovalRequestEvent | undefined {
    if (this.deps.state() !== 'WaitingForApproval') return undefined;
    return this.openRequest();
  }

  /**
   * The user's decision on the pending call. Logged before it takes effect:
   * if the log refuses it, nothing changes (LogWriteError) and the call still waits.
   */
  decide(callId: string, decision: ApprovalDecision, reason?: string): void {
    const pending = this.pending;
    if (!pending || pending.request.callId !== callId) {
      const now = pending ? `; the call waiting now is ${pending.request.callId}` : '; no tool call is waiting for approval';
      throw new NoPendingApprovalError(`tool call ${JSON.stringify(callId)} is not waiting for approval${now}`);
    }
    const { request } = pending;
    // A protected path: approved once, and the next such call asks again.
    const rule = decision === 'approve_session' && !request.alwaysAsks ? request.rule : undefined;
    this.deps.session.append({ kind: 'approval_decision', callId, name: request.name, decision, by: 'user', ...(reason && { reason }), ...(rule && { rule }) });
    if (rule) this.rules.push(rule);
    this.pending = undefined;
    pending.settle({ decision, by: 'user', ...(reason && { reason }) });
  }

  /** Waits, if this call needs it, until it may run; throws ApprovalSuspended on shutdown. */
  async clear(call: ToolCall, signal: AbortSignal): Promise<Clearance> {
    const { session, workDir } = this.deps;
    const mode = this.current;
    // After a restart the request is already in the log and the agent already waits: decided again here, under today's mode and rules.
    const resumed = this.resumedRequest(call);
    const verdict = verdictOf(mode, call.name);
    if (verdict === 'refuse') {
      if (resumed) {
        session.append({ kind: 'approval_decision', callId: call.id, name: call.name, decision: 'deny', by: 'mode', reason: `the session is in ${mode} mode` });
        this.deps.transition('RunningTools', `${call.name} refused: the session is in ${mode} mode`);
      }
      return { run: false, output: planRefusal(call.name) };
    }
    if (verdict === 'run' || verdict === 'read-only') {
      // Worded as before per-session modes when the session never switched (it follows SKEIN_APPROVAL).
      if (resumed) {
        const source = this.deps.session.log.last('mode') ? "the session's mode" : 'SKEIN_APPROVAL';
        const where = verdict === 'read-only' ? ' in the read-only sandbox' : '';
        this.deps.transition('RunningTools', `${source} is now ${mode}: ${call.name} runs without asking${where}`);
      }
      return this.cleared(call);
    }
    const rule = this.rules.find((r) => ruleMatches(r, call, workDir));
    if (rule) {
      session.append({ kind: 'approval_decision', callId: call.id, name: call.name, decision: 'approve', by: 'rule', rule });
      if (resumed) this.deps.transition('RunningTools', `${call.name} approved by a session rule`);
      return this.cleared(call);
    }
    // Never a resumed call: the message's own call was decided after every request before it.
    if (this.deniedByMessage !== undefined) {
      const reason = this.deniedByMessage;
      session.append({ kind: 'approval_decision', callId: call.id, name: call.name, decision: 'deny', by: 'message', reason });
      return { run: false, output: deniedOutput(reason) };
    }
    let request = resumed;
    if (!request) {
      const preview = await previewOf(call.name, call.input, workDir);
      const offer = offerFor(call, workDir);
      const asked = { kind: 'approval_request', callId: call.id, name: call.name, input: call.input, preview, rule: offer.rule, ...(offer.alwaysAsks && { alwaysAsks: offer.alwaysAsks }) } as const;
      request = session.append(asked) as ApprovalRequestEvent;
      this.deps.transition('WaitingForApproval', `${call.name} waits for approval`);
    }
    const decided = await this.wait(request, signal);
    if (decided.by !== 'user') {
      session.append({ kind: 'approval_decision', callId: call.id, name: call.name, decision: decided.decision, by: decided.by, ...(decided.reason && { reason: decided.reason }) });
    }
    if (decided.by === 'cancel') return { run: false, output: 'denied: cancelled' };
    const byMode = decided.by === 'mode' ? ` (${decided.reason})` : '';
    this.deps.transition('RunningTools', `${call.name} ${decided.decision === 'deny' ? 'denied' : 'approved'}${byMode}`);
    if (decided.by === 'message') this.deniedByMessage = decided.reason;
    if (decided.decision !== 'deny') return this.cleared(call);
    return { run: false, output: decided.by === 'mode' ? planRefusal(call.name) : deniedOutput(decided.reason) };
  }

  /** A call that may run: read-only when the mode it runs under says so (plan mode's bash, also after a switch to plan while it waited). */
  private cleared(call: ToolCall): Clearance {
    return verdictOf(this.current, call.name) === 'read-only' ? { run: true, readOnly: true } : { run: true };
  }

  /**
   * A call that is not asked about (its input does not fit its tool's
   * schema). If a restart found it waiting, the wait ends here.
   */
  notAsked(call: ToolCall, why: string): void {
    if (this.resumedRequest(call)) this.deps.transition('RunningTools', `${call.name} is not asked about: ${why}`);
  }

  /**
   * A fork copied the history up to a point where a call waited (or was just
   * asked about): the copy denies it, so that it can never be approved and
   * run there. Returns whether there was one.
   */
  denyForFork(): boolean {
    const request = this.openRequest();
    if (!request) return false;
    const { callId, name } = request;
    this.deps.session.append({ kind: 'approval_decision', callId, name, decision: 'deny', by: 'cancel', reason: FORKED_BEFORE_APPROVAL });
    this.deps.session.append({ kind: 'tool_result', callId, name, output: `denied: ${FORKED_BEFORE_APPROVAL}`, isError: true, durationMs: 0 });
    return true;
  }

  /** The request a restart found waiting for this call. */
  private resumedRequest(call: ToolCall): ApprovalRequestEvent | undefined {
    const request = this.openRequest();
    return request?.callId === call.id && this.deps.state() === 'WaitingForApproval' ? request : undefined;
  }

  /** Resolves with the first of: the user's decision, a new user message, a cancel. */
  private wait(request: ApprovalRequestEvent, signal: AbortSignal): Promise<Decided> {
    const { session, stopped } = this.deps;
    return new Promise<Decided>((resolve, reject) => {
      let unsubscribe: (() => void) | undefined;
      let finished = false;
      const done = () => {
        finished = true;
        this.pending = undefined;
        unsubscribe?.();
        signal.removeEventListener('abort', onAbort);
        stopped.removeEventListener('abort', onAbort);
      };
      const settle = (d: Decided) => {
        done();
        resolve(d);
      };
      const onAbort = () => {
        done();
        if (stopped.aborted) reject(new ApprovalSuspended('the server is shutting down; the approval stays pending'));
        else resolve({ decision: 'deny', by: 'cancel', reason: 'cancelled' });
      };
      if (signal.aborted || stopped.aborted) return onAbort();
      this.pending = { request, settle };
      // Each ending removes both (done): neither fires twice, nor stays on the server's signal.
      signal.addEventListener('abort', onAbort);
      stopped.addEventListener('abort', onAbort);
      // A message typed since the request (also one logged before a restart) answers it. The decision
      // is logged by the waiting call, never from inside the subscriber (others must see the message first).
      // Every ending unsubscribes at once (done), so only a second message of the replay comes after
      // one: its settle changes nothing (a promise settles once).
      unsubscribe = session.subscribe(request.seq, (e: SkeinEvent) => {
        if (e.kind !== 'user' || parseCompactCommand(e.text)) return;
        const text = e.text.trim();
        settle({ decision: 'deny', by: 'message', reason: text.length > MAX_MESSAGE_REASON ? `${text.slice(0, MAX_MESSAGE_REASON)}…` : text });
      });
      // Settled by a message the replay delivered, before `unsubscribe` was known.
      if (finished) unsubscribe();
    });
  }

  /** The last approval_request with no decision and no result. */
  private openRequest(): ApprovalRequestEvent | undefined {
    const events = this.deps.session.log.all();
    for (let i = events.length - 1; i >= 0; i--) {
      const e = events[i]!;
      if (e.kind === 'tool_result' || e.kind === 'approval_decision') return undefined;
      if (e.kind === 'approval_request') return e;
    }
    return undefined;
  }
}

/** The tool calls of the last answer that have no result yet, in order. */
export function unansweredCalls(events: readonly SkeinEvent[]): ToolCall[] {
  const answered = new Set(events.flatMap((e) => (e.kind === 'tool_result' ? [e.callId] : [])));
  const lastAnswer = events.findLastIndex((e) => e.kind === 'agent');
  return events.slice(lastAnswer + 1).flatMap((e) => (e.kind === 'tool_call' && !answered.has(e.callId) ? [{ id: e.callId, name: e.name, input: e.input }] : []));
}

function deniedOutput(reason: string | undefined): string {
  return reason ? `denied by the user: ${reason}` : 'denied by the user';
}
