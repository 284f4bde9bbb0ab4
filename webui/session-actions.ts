// What the session list and the timeline's row menu ask of the server
// (rename, archive, restore, fork) and the live list channel, for <skein-app>.
import type { Project, ProjectRequest, ReasoningEffort, SessionListFrame, SessionSnapshot, TrashedSession } from '../shared/protocol.js';
import * as api from './api.js';
import { MODE_INFO, modeLabel } from '../shared/modes.js';

export interface ListHost {
  sessions: SessionSnapshot[];
  trash: TrashedSession[];
  projects: Project[];
  projectRequests: ProjectRequest[];
  notice: string;
  readonly currentId: string;
  filter: { query?: string; archived?: boolean };
  refreshSessions(): Promise<void>;
  open(id: string, at?: number): Promise<void>;
  /** The open session was deleted (here or elsewhere): `next` is the session after it in the list. */
  currentRemoved(removed: SessionSnapshot | undefined, next: string | undefined): void;
}

/** Applies a frame of /ws/sessions to the list shown: in place when the row is there, else a refetch (filters live on the server). */
export function applyListFrame(host: ListHost, frame: SessionListFrame, refreshSoon: () => void): void {
  // A scan of the logs at start adds sessions as it goes: the list is fetched again.
  if (frame.type === 'sessions' || frame.type === 'scanning') return refreshSoon();
  if (frame.type === 'session_removed') return removeFromList(host, frame.id);
  if (frame.type === 'projects') {
    // The folder picker's projects, and an editor's requests to open a folder (shown in every tab).
    host.projects = frame.projects;
    host.projectRequests = frame.requests;
    return;
  }
  const i = host.sessions.findIndex((s) => s.id === frame.session.id);
  const hidden = frame.session.archived && !host.filter.archived;
  if (i < 0 || hidden) return refreshSoon();
  const next = [...host.sessions];
  next[i] = frame.session;
  next.sort((a, b) => b.lastActivity.localeCompare(a.lastActivity));
  host.sessions = next;
}

/** A session went to the trash: out of the list; when it is the open one, the one after it opens. */
export function removeFromList(host: ListHost, id: string): void {
  const at = host.sessions.findIndex((s) => s.id === id);
  const removed = host.sessions[at];
  host.sessions = host.sessions.filter((s) => s.id !== id);
  if (id === host.currentId) host.currentRemoved(removed, host.sessions[Math.max(0, Math.min(at, host.sessions.length - 1))]?.id);
}

/** The open session's approval mode (the mode picker, `/mode <name>`); without a known name, what each mode does. */
export async function setMode(host: ListHost & { snapshot: SessionSnapshot | undefined; info: string }, mode: string): Promise<void> {
  if (!MODE_INFO.some((m) => m.id === mode)) {
    host.info = `${mode ? `No mode ${mode}. ` : ''}/mode <name> switches this session's approval mode:\n${MODE_INFO.map((m) => `${modeLabel(m)}: ${m.description}`).join('\n')}`;
    return;
  }
  const id = host.currentId;
  try {
    const snapshot = await api.setMode(id, mode);
    if (host.currentId === id && host.snapshot) host.snapshot = { ...host.snapshot, mode: snapshot.mode ?? (mode as SessionSnapshot['mode']) };
    host.info = `Approval mode: ${modeLabel(MODE_INFO.find((m) => m.id === mode)!)}.`;
  } catch (err) {
    host.notice = `Could not switch the mode to ${mode}: ${err instanceof Error ? err.message : String(err)}`;
    // The picker shows the mode the session still has.
    if (host.snapshot) host.snapshot = { ...host.snapshot };
  }
}

async function attempt(host: ListHost, what: string, action: () => Promise<void>): Promise<void> {
  try {
    await action();
  } catch (err) {
    host.notice = `Could not ${what}: ${err instanceof Error ? err.message : String(err)}`;
  }
}

export function rename(host: ListHost, id: string, title: string): Promise<void> {
  return attempt(host, 'rename the session', async () => {
    await api.updateSession(id, { title });
    await host.refreshSessions();
  });
}

export function archive(host: ListHost, id: string, archived: boolean): Promise<void> {
  return attempt(host, archived ? 'archive the session' : 'unarchive the session', async () => {
    await api.updateSession(id, { archived });
    await host.refreshSessions();
  });
}

export function showTrash(host: ListHost): Promise<void> {
  return attempt(host, 'list the trash', async () => {
    host.trash = await api.listTrash();
  });
}

export function restore(host: ListHost, id: string): Promise<void> {
  return attempt(host, 'restore the session', async () => {
    await api.restoreSession(id);
    host.trash = await api.listTrash();
    await host.refreshSessions();
    await host.open(id);
  });
}

/** Undo of a delete: the session comes back from the trash and opens. */
export function undoDelete(host: ListHost, id: string): Promise<void> {
  return restore(host, id);
}

/** `edit`: Edit and resend's fork (titled by the edited message). */
export function fork(host: ListHost, seq: number, edit = false): Promise<void> {
  return attempt(host, 'fork the session', async () => {
    const id = await api.forkSession(host.currentId, seq, edit);
    await host.refreshSessions();
    await host.open(id);
  });
}

/** The delete dialog closed: a deleted session leaves the list. */
export function afterDelete(host: ListHost & { deleting: SessionSnapshot | undefined }, { id, deleted }: { id: string; deleted: boolean }): void {
  host.deleting = undefined;
  if (!deleted) return;
  removeFromList(host, id);
  void host.refreshSessions();
}

/** What the rewind dialog did: the files put back, and the fork when one was asked for. */
export interface Rewound {
  restored: string[];
  id?: string;
}

/**
 * The rewind dialog closed: say what came back; a fork opens. The notice
 * belongs to the session it is shown in (opening another clears it, see
 * <skein-app>.open): with a fork, it is said once the fork is open.
 */
export function afterRewind(host: ListHost & { rewinding: unknown; info: string; changesVersion: number }, done: Rewound | undefined): void {
  host.rewinding = undefined;
  if (!done) return;
  const files = done.restored;
  const info = `Rewound ${files.length} file${files.length === 1 ? '' : 's'}${files.length ? `: ${files.join(', ')}` : ''}${done.id ? '; this is the conversation forked there' : ''}.`;
  host.changesVersion++;
  const forked = done.id;
  if (!forked) return void (host.info = info);
  void host.refreshSessions()
    .then(() => host.open(forked))
    .then(() => {
      if (host.currentId === forked) host.info = info;
    });
}

/** The header's model picker (or /model): the session's next request goes to `model`. */
export async function switchModel(host: ListHost & { snapshot: SessionSnapshot | undefined; requestUpdate(): void }, model: string, effort?: string): Promise<void> {
  try {
    await api.switchModel(host.currentId, model, effort);
    host.notice = '';
    if (host.snapshot) host.snapshot = { ...host.snapshot, model, ...(effort && { effort: effort as ReasoningEffort }) };
  } catch (err) {
    host.notice = `Could not switch to ${model}: ${err instanceof Error ? err.message : String(err)}`;
    host.requestUpdate();
  }
}

/** The session the address names (/s/<id>, ?at=<seq> a message a search found), else the most recent, else a new one. */
export async function openFromUrl(host: ListHost): Promise<void> {
  const deepLink = /^\/s\/([\w-]+)$/.exec(location.pathname)?.[1];
  // /s/<id>?at=<seq>: a search result opened in its own tab.
  const at = Number(new URLSearchParams(location.search).get('at'));
  await host.refreshSessions();
  let id = deepLink ?? host.sessions[0]?.id;
  if (!id) {
    id = await api.createSession();
    await host.refreshSessions();
  }
  await host.open(id, deepLink && Number.isSafeInteger(at) && at > 0 ? at : undefined);
}
