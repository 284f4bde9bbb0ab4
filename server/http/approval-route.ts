// POST /api/sessions/:id/approvals/:callId {decision, reason?}: the user's
// decision on a tool call waiting for approval, its own or a running child's (the WebSocket's `approval`
// frame does the same). 202 when taken; 400 for a bad body; 404 for an unknown
// session; 409 when that call is not the one waiting; 507 when the log refuses it.
import type express from 'express';
import { PROJECT_REMOVED, projectGone } from './project-gone.js';
import { parseApprovalDecision } from '../../shared/protocol.js';
import { NoPendingApprovalError } from '../agent/approvals.js';
import { maskSecrets } from '../tools/env.js';
import { decideApproval } from '../subagents/child-approvals.js';
import type { Sessions } from '../sessions/sessions.js';

export function addApprovalRoute(app: express.Express, sessions: Sessions): void {
  app.post('/api/sessions/:id/approvals/:callId', async (req, res) => {
    const live = await sessions.open(String(req.params.id));
    if (!live) return void res.status(404).json({ error: 'unknown session' });
    const parsed = parseApprovalDecision((req.body ?? {}) as Record<string, unknown>);
    if (!parsed.ok) return void res.status(400).json({ error: parsed.error });
    // A removed project's session does no more work there: its waiting call may be denied, not approved.
    const gone = parsed.value.decision === 'deny' ? undefined : projectGone(sessions, live);
    if (gone) return void res.status(409).json({ error: gone, code: PROJECT_REMOVED });
    // Another instance runs the session: the decision goes there.
    const forwarded = live.session.forward({ type: 'approval', callId: String(req.params.callId), ...parsed.value });
    if (forwarded) {
      await forwarded;
      return void res.status(202).json({ accepted: true, decision: parsed.value.decision });
    }
    try {
      // Its own waiting call, or one of its running children's (a child's request surfaces in its parent's timeline).
      decideApproval(live, String(req.params.callId), parsed.value.decision, parsed.value.reason);
    } catch (err) {
      // The refusal quotes the call id as sent: masked, as the socket's error frames are.
      if (err instanceof NoPendingApprovalError) return void res.status(409).json({ error: maskSecrets(err.message, live.session.secrets()) });
      throw err; // LogWriteError: 507 from the app's error handler
    }
    res.status(202).json({ accepted: true, decision: parsed.value.decision });
  });
}
