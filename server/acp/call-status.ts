// The status an editor shows for each tool call (ACP: pending, in_progress,
// completed, failed), read from skein's events. skein runs an answer's calls
// one after another; a call that waits for the user stays `pending` (with the
// calls behind it) until it is allowed, and a denied call is `failed` at once,
// saying why. skein logs no event when a call starts without asking, so which
// call will ask is told from the session's mode and session rules (the rules
// the server applies); a guess that was wrong is put right when the
// approval_request comes (the call goes back to pending before it is asked).
import type { SessionUpdate } from '@agentclientprotocol/sdk';
import type { ApprovalDecisionEvent, ApprovalMode, ApprovalRule } from '../../shared/protocol.js';
import { ruleMatches } from '../agent/approval-rules.js';
import { verdictOf } from '../agent/mode-rules.js';

interface Call {
  name: string;
  input: Record<string, unknown>;
}

export class CallStatus {
  /** Calls announced that have not started, in the order the runner takes them. */
  private readonly waiting = new Map<string, Call>();
  /** The session's "always allow" rules (approve_session decisions). */
  private readonly rules: ApprovalRule[] = [];
  /** The session's tools run (RunningTools, and waiting for approval in between). */
  private running = false;

  constructor(
    private readonly mode: () => ApprovalMode,
    private readonly workDir: string | undefined,
  ) {}

  announced(callId: string, call: Call): void {
    this.waiting.set(callId, call);
  }

  /** The agent's state changed: tools start running (or go on after a decision). */
  state(to: string): SessionUpdate[] {
    this.running = to === 'RunningTools' || to === 'WaitingForApproval';
    return to === 'RunningTools' ? this.advance() : [];
  }

  /** Asked about: pending while the question is open (also when it was guessed to run without asking). */
  requested(callId: string, call: Call): SessionUpdate[] {
    if (this.waiting.has(callId)) return [];
    this.waiting.set(callId, call);
    return [{ sessionUpdate: 'tool_call_update', toolCallId: callId, status: 'pending' }];
  }

  decided(event: ApprovalDecisionEvent): SessionUpdate[] {
    if (event.decision === 'approve_session' && event.rule) this.rules.push(event.rule);
    const held = this.waiting.delete(event.callId);
    if (event.decision === 'deny') return [{ sessionUpdate: 'tool_call_update', toolCallId: event.callId, status: 'failed', content: [{ type: 'content', content: { type: 'text', text: deniedText(event) } }] }];
    return held ? [{ sessionUpdate: 'tool_call_update', toolCallId: event.callId, status: 'in_progress' }] : [];
  }

  /** A call's result: the next calls may start. */
  finished(callId: string): SessionUpdate[] {
    this.waiting.delete(callId);
    return this.running ? this.advance() : [];
  }

  /** The calls that start now: those ahead of the first one that will be asked about (or refused by the mode). */
  private advance(): SessionUpdate[] {
    const started: SessionUpdate[] = [];
    for (const [callId, call] of this.waiting) {
      if (this.holds(call)) break;
      this.waiting.delete(callId);
      started.push({ sessionUpdate: 'tool_call_update', toolCallId: callId, status: 'in_progress' });
    }
    return started;
  }

  private holds(call: Call): boolean {
    const verdict = verdictOf(this.mode(), call.name);
    if (verdict === 'refuse') return true;
    if (verdict !== 'ask') return false;
    return !this.rules.some((rule) => ruleMatches(rule, call, this.workDir ?? ''));
  }
}

/** What a denied call's update says. */
function deniedText(event: ApprovalDecisionEvent): string {
  const reason = event.reason ? `: ${event.reason}` : '';
  switch (event.by) {
    case 'user':
      return `Denied by the user${reason}`;
    case 'message':
      return `Denied: the user sent a message instead${reason}`;
    case 'cancel':
      return `Denied: the turn was cancelled${reason && reason !== ': cancelled' ? reason : ''}`;
    case 'mode':
      return `Denied by the session's mode${reason}`;
    default:
      return `Denied${reason}`;
  }
}
