// A child's approval as its parent's `subagent` event carries it (phase
// `approval` or `approval_decision`), turned into the request and decision
// events the approval card and approval-words.ts already know, so the task
// card words and answers it exactly as the child's own view does.
import type { ApprovalDecisionEvent, ApprovalRequestEvent, SubagentEvent } from '../shared/protocol.js';

/** The child's call still waiting (phase `approval` with its preview and rule), else undefined. */
export function waitingRequest(e: SubagentEvent | undefined): ApprovalRequestEvent | undefined {
  const a = e?.phase === 'approval' ? e.approval : undefined;
  if (!a?.preview || !a.rule) return undefined; // nothing to show the user: they answer in the child's own view
  const { callId, name, input = {}, preview, rule, alwaysAsks } = a;
  return { seq: e!.seq, ts: e!.ts, kind: 'approval_request', callId, name, input, preview, rule, ...(alwaysAsks && { alwaysAsks }) };
}

/** How the child's call was decided (phase `approval_decision`), else undefined. */
export function childDecision(e: SubagentEvent | undefined): ApprovalDecisionEvent | undefined {
  const a = e?.phase === 'approval_decision' ? e.approval : undefined;
  if (!a?.decision) return undefined;
  const { callId, name, decision, by = 'user', reason, rule } = a;
  return { seq: e!.seq, ts: e!.ts, kind: 'approval_decision', callId, name, decision, by, ...(reason && { reason }), ...(rule && { rule }) };
}
