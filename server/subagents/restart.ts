// A restart with a child session running: the child's own turn is closed as
// interrupted when it loads (agent/turn-closing.ts, as any session's), and its
// parent's timeline gets a `subagent` notice naming it, so that neither side
// waits for the other for ever. (The parent's `task` call was closed with its
// own interrupted turn: a restart never resumes a child.)
import type { LiveSession } from '../agent/live-session.js';
import { log } from '../log.js';

export function closedAtRestart(child: LiveSession, parentOf: (id: string) => LiveSession | undefined): void {
  const sub = child.session.log.header.subagent;
  if (!sub) return;
  const message = `${sub.agent} agent (session ${child.session.id}) was interrupted by a server restart and closed: its task call got no answer`;
  try {
    // The parent loads too if it is not yet (it was running as well, so it is being closed the same way).
    const parent = parentOf(sub.parent);
    // Waiting for an approval nobody will give (its parent's call is closed): cancelled (the agent resumed that wait synchronously).
    if (child.session.state !== 'WaitingForUserInput') child.agent.cancel();
    parent?.session.append({ kind: 'subagent', callId: sub.callId, child: child.session.id, agent: sub.agent, phase: 'finished', outcome: 'interrupted', message });
  } catch (err) {
    log.warn(`could not tell the parent session of an interrupted child: ${err instanceof Error ? err.message : String(err)}`, { session: child.session.id });
  }
}
