// A child's call waiting for approval, as its parent's stream tells it (a
// `subagent` event, phase `approval`): the same request as the child's own,
// asked in the editor as a permission request on the parent's task call, and
// answered with the parent's approval route and the child's callId (skein
// passes the decision down to the child).
import type { ApprovalRequestEvent, EventOf } from '../../shared/protocol.js';

/** A call waiting for approval and the permission request asked for it; `task`: the child's, under this task call of the parent. */
export interface Asked {
  event: ApprovalRequestEvent;
  asked?: AbortController;
  task?: { callId: string; child: string; agent: string };
}

export function childRequest(note: EventOf<'subagent'>): Asked | undefined {
  const a = note.approval;
  if (!a?.input || !a.preview || !a.rule) return undefined;
  const event: ApprovalRequestEvent = { kind: 'approval_request', seq: note.seq, ts: note.ts, callId: a.callId, name: a.name, input: a.input, preview: a.preview, rule: a.rule, ...(a.alwaysAsks && { alwaysAsks: a.alwaysAsks }) };
  return { event, task: { callId: note.callId, child: a.session, agent: note.agent } };
}
