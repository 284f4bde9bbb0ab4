// Deleting a session (to the trash, restorable for 30 days, its worktree too
// when asked) and bringing it back.
import fs from 'node:fs';
import path from 'node:path';
import { EventLog } from '../store/event-log.js';
import { readLog } from '../store/log-reader.js';
import type { SessionLog } from '../store/session-log.js';
import { logLines } from '../store/jsonl-export.js';
import { removeWorktree } from '../workspace/workspace.js';
import { ReadOnlySessionError } from '../cluster/remote-owner.js';
import type { LiveSession } from '../agent/live-session.js';
import type { SessionsHost } from './host.js';

/** The session is in the middle of a turn or a compaction (HTTP 409). */
export class SessionBusyError extends Error {
  override readonly name = 'SessionBusyError';
}

export type TrashHost = Pick<SessionsHost, 'open' | 'live' | 'options' | 'trash' | 'dir' | 'index' | 'search' | 'lastUsed' | 'indexDirty' | 'saveIndex' | 'dirty' | 'emit' | 'start' | 'changed'>;

/**
 * Moves a session to the trash (restorable for 30 days). Refused while a
 * turn or compaction runs (cancel it first). With `removeWorktree`, its
 * worktree goes too, but a dirty one only with `force` (DirtyWorktreeError,
 * and then nothing at all is deleted).
 */
export async function deleteSession(host: TrashHost, id: string, options: { removeWorktree?: boolean; force?: boolean } = {}): Promise<boolean> {
  const live = await host.open(id);
  if (!live) return false;
  if (live.session.remote) throw new ReadOnlySessionError(`this session ${live.session.remote.reason}: delete it there`);
  const busy = () => live.session.state !== 'WaitingForUserInput';
  if (busy()) throw new SessionBusyError(`the session is busy (${live.session.state}): cancel its turn first (POST /api/sessions/${id}/cancel), then delete it`);
  const worktree = live.session.log.header.workspace?.worktree;
  if (options.removeWorktree && worktree) await removeWorktree(worktree, options.force === true);
  // A message that arrived while git worked may have started a turn.
  if (busy() || !host.live.has(id)) throw new SessionBusyError(`the session became busy (${live.session.state}): cancel its turn first, then delete it`);
  host.live.delete(id);
  live.agent.close();
  await live.agent.whenIdle();
  live.session.log.close();
  const keptWorktree = worktree && fs.existsSync(worktree) ? worktree : undefined;
  // From the database, the trash gets the log as JSONL (restorable like any other).
  if (host.options.database) {
    await live.session.log.flushed?.();
    fs.writeFileSync(path.join(host.dir, `${id}.jsonl`), logLines(live.session.log.header, live.session.log.all()));
  }
  host.trash.put(id, live.session.title(), keptWorktree);
  if (host.options.database) await host.options.database.remove(id);
  await host.options.cluster?.forget(id);
  host.index.delete(id);
  host.search.removed(id);
  host.lastUsed.delete(id);
  host.indexDirty.delete(id);
  void host.saveIndex();
  host.dirty.delete(id);
  host.emit({ type: 'session_removed', id });
  return true;
}

/** Brings a session back from the trash. */
export async function restoreSession(host: TrashHost, id: string): Promise<LiveSession | undefined> {
  if (!host.trash.has(id) || host.index.has(id)) return undefined;
  host.trash.restore(id);
  const file = path.join(host.dir, `${id}.jsonl`);
  let log: SessionLog = EventLog.fromRead(file, await readLog(file));
  if (host.options.database) {
    // Back into the database; the JSONL copy goes.
    log.close();
    log = host.options.database.createWith(log.header, log.all());
    fs.rmSync(file);
  }
  const live = host.start(log);
  host.changed(id);
  return live;
}
