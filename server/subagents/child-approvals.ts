// A child's approval request surfaces in its parent's timeline as well as in
// its own, and the user answers it once, from either view: the parent's
// approval route or frame, given a callId that is not the parent's own
// waiting call, passes the decision down to the running child (or grandchild)
// whose call waits with that id. Each decision, wherever it came from, is told
// back to the parent (phase `approval_decision`), so both views show it answered.
import type { ApprovalDecision, EventOf, SkeinEvent } from '../../shared/protocol.js';
import { NoPendingApprovalError } from '../agent/approvals.js';
import type { LiveSession } from '../agent/live-session.js';

type SubagentNote = Pick<EventOf<'subagent'>, 'phase' | 'tool' | 'approval'>;

/**
 * What the parent's timeline says of one of its child's events: its approval
 * requests and decisions, and those its own children relayed to it (a
 * grandchild's keep their `session`). Undefined for every other event.
 */
export function approvalNote(childId: string, event: SkeinEvent): SubagentNote | undefined {
  if (event.kind === 'approval_request') {
    const { callId, name, input, preview, rule, alwaysAsks } = event;
    return { phase: 'approval', tool: name, approval: { session: childId, callId, name, input, preview, rule, ...(alwaysAsks && { alwaysAsks }) } };
  }
  if (event.kind === 'approval_decision') {
    const { callId, name, decision, by, reason } = event;
    return { phase: 'approval_decision', tool: name, approval: { session: childId, callId, name, decision, by, ...(reason && { reason }) } };
  }
  if (event.kind === 'subagent' && (event.phase === 'approval' || event.phase === 'approval_decision') && event.approval) {
    return { phase: event.phase, ...(event.tool && { tool: event.tool }), approval: event.approval };
  }
  return undefined;
}

/**
 * The user's decision on `callId`, sent to `live` (REST, WebSocket, or
 * forwarded by another instance): its own waiting call, else one of its
 * running children's. Throws NoPendingApprovalError when neither waits.
 */
export function decideApproval(live: LiveSession, callId: string, decision: ApprovalDecision, reason?: string): void {
  try {
    live.agent.approvals.decide(callId, decision, reason);
  } catch (err) {
    if (!(err instanceof NoPendingApprovalError) || !live.delegated?.decide(callId, decision, reason)) throw err;
  }
}

/**
 * Finds the child (or grandchild, through the child's own delegated
 * approvals) whose call `callId` waits, and decides it. Two running children
 * waiting with the same id (ids come from the providers) are not guessed
 * between: the user answers in the child's own session.
 */
export function decideInChildren(children: Iterable<LiveSession>, callId: string, decision: ApprovalDecision, reason?: string): boolean {
  const list = [...children];
  const waiting = list.filter((c) => c.agent.approvals.waitingFor === callId);
  if (waiting.length > 1) {
    throw new NoPendingApprovalError(`tool call ${JSON.stringify(callId)} waits in several child sessions (${waiting.map((c) => c.session.id).join(', ')}): answer it in the child's own session`);
  }
  if (waiting[0]) {
    waiting[0].agent.approvals.decide(callId, decision, reason);
    return true;
  }
  for (const child of list) if (child.delegated?.decide(callId, decision, reason)) return true;
  return false;
}
