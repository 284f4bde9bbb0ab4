// A fork: a new session whose history is another's up to a point.
import path from 'node:path';
import { FORKED_HERE } from '../../shared/protocol.js';
import { EventLog, type LogHeader } from '../store/event-log.js';
import { checkEditPoint, copySavedMessage, copySavedOutputs, forkedEvents } from '../manage/fork.js';
import { copyImages } from '../images/image-files.js';
import { createWorkspace } from '../workspace/workspace.js';
import type { LiveSession } from '../agent/live-session.js';
import type { SessionsHost } from './host.js';
import { newId } from './session-id.js';

export interface ForkOptions {
  /** Made by Edit and resend: the fork's first own message replaces the one after the fork point (its title says so). */
  edit?: boolean;
}

export type ForkHost = Pick<SessionsHost, 'open' | 'dir' | 'roots' | 'config' | 'options' | 'start' | 'changed'>;

/**
 * A new session whose history is the original's up to `seq` (copied, seqs
 * kept; the original's log is only read). A turn cut by the fork point is
 * closed in the copy. A session with its own worktree gives its fork a new
 * worktree, on `skein/<new id>`, starting where the original's branch is now.
 * The fork has no title of its own: it is titled by what differs (see
 * shared/session-title.ts), and a rename still wins. Only the log is copied:
 * what the web UI said about the original (a "Rewound…" notice) stays there.
 */
export async function forkSession(host: ForkHost, id: string, seq: number, options: ForkOptions = {}): Promise<LiveSession | undefined> {
  const source = await host.open(id);
  if (!source) return undefined;
  const header = source.session.log.header;
  const newIdValue = newId();
  // A message saved as a file is copied with the fork, and the copy's events point to the copy's file.
  const copied = forkedEvents(source.session.log, seq);
  if (options.edit) checkEditPoint(source.session.log, seq);
  const events = copied.map((e) => {
    if (e.kind !== 'user') return e;
    const saved = e.saved && copySavedMessage(e.saved, path.join(host.dir, newIdValue, 'outputs'));
    const images = e.images && copyImages(e.images, path.join(host.dir, newIdValue, 'images'));
    return { ...e, ...(saved && { saved }), ...(images && { images }) };
  });
  const original = header.workspace;
  const workspace = original?.worktree
    ? await createWorkspace(host.roots(), host.config.dataDir, newIdValue, { folder: original.folder, worktree: true, ...(original.branch && { startPoint: original.branch }) })
    : original;
  const forkHeader: LogHeader = { skein: 1, session: newIdValue, createdAt: new Date().toISOString(), model: header.model, ...(workspace && { workspace }), forkOf: { session: id, seq, ...(options.edit && { edit: true }) }, ...(header.mcpTools && { mcpTools: header.mcpTools }) };
  copySavedOutputs(host.dir, id, newIdValue, seq);
  const log = host.options.database ? host.options.database.createWith(forkHeader, events) : await EventLog.createWithAsync(path.join(host.dir, `${newIdValue}.jsonl`), forkHeader, events);
  const live = host.start(log);
  live.agent.recoverInterrupted(FORKED_HERE, true);
  host.changed(newIdValue);
  return live;
}
