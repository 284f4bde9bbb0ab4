// A session the manager has loaded: its log and state, and the agent that runs it.
// A leaf, so the manager's parts (cluster roles, the database side, the factory) import it, not the manager.
import type { Agent } from './agent.js';
import type { Session } from './session.js';
import type { ApprovalDecision } from '../../shared/protocol.js';

export interface LiveSession {
  session: Session;
  agent: Agent;
  /** Its running children's calls waiting for approval, answerable from here (subagents/child-approvals.ts). */
  delegated?: DelegatedApprovals;
}

/** What a parent session knows of its running children's waiting calls (set by the session factory when subagents are on). */
export interface DelegatedApprovals {
  /** Decides the call `callId` waiting in a running child or deeper; false when none waits with that id. */
  decide(callId: string, decision: ApprovalDecision, reason?: string): boolean;
}
