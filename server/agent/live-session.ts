// A session the manager has loaded: its log and state, and the agent that runs it.
// A leaf, so the manager's parts (cluster roles, the database side, the factory) import it, not the manager.
import type { Agent } from './agent.js';
import type { Session } from './session.js';

export interface LiveSession {
  session: Session;
  agent: Agent;
}
