// An instruction change in the middle of a session, as skein delivers one
// (a changed instruction file, a setting): a `system` message in the model
// view at the point where it happened, never a rewrite of the system prompt.
// Until skein logs such changes itself, a test puts the message into the
// live session's view right after the event `afterSeq`; a compaction that
// folds that point folds the message too (it is no longer re-inserted).
import type { SourcedMessage } from '../../server/compaction/view.js';
import type { RunningServer } from '../../server/server.js';

export interface InstructionChange {
  afterSeq: number;
  text: string;
}

/** Makes the session's view carry `changes` (call again after a restart: the new server has a new session object). */
export async function emulateInstructionChanges(server: Pick<RunningServer, 'sessions'>, sessionId: string, changes: readonly InstructionChange[]): Promise<void> {
  // open(): on PostgreSQL a session not loaded since the start has its events read first.
  const session = (await server.sessions.open(sessionId))?.session;
  if (!session) throw new Error(`session ${sessionId} is not loaded`);
  const derived = session.view.bind(session);
  session.view = () => withChanges(derived(), changes);
}

export function withChanges(view: SourcedMessage[], changes: readonly InstructionChange[]): SourcedMessage[] {
  const out = [...view];
  for (const change of changes) {
    const folded = out.some((m) => m.summaryOf && m.summaryOf.covers[0] <= change.afterSeq && change.afterSeq <= m.summaryOf.covers[1]);
    if (folded) continue;
    // Right after the last message from before the change (a summary stands for the end of its range).
    let at = 0;
    out.forEach((m, i) => {
      if ((m.summaryOf ? m.summaryOf.covers[1] : m.seq) <= change.afterSeq) at = i + 1;
    });
    out.splice(at, 0, { role: 'system', content: change.text, seq: change.afterSeq });
  }
  return out;
}
