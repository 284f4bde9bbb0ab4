// The REST calls the UI makes. Model listing and switching belong to a newer
// server API (GET /api/models, POST /api/sessions/:id/model); they are read
// loosely and fail soft, so the UI still works against a server without them.
import type { ChangesReport, ListedSession, McpServerInfo, ProjectFileTrust, RewindPreview, SessionSnapshot, SkeinEvent, TrashedSession, ViewMessage, WorktreeActionResult } from '../shared/protocol.js';

export class ApiError extends Error {
  constructor(readonly status: number, message: string, readonly code?: string, readonly files?: string[]) {
    super(message);
  }
}

async function call<T>(route: string, init?: { method?: string; body?: unknown }): Promise<T> {
  const res = await fetch(route, {
    method: init?.method ?? (init?.body !== undefined ? 'POST' : 'GET'),
    headers: { 'content-type': 'application/json' },
    ...(init?.body !== undefined && { body: JSON.stringify(init.body) }),
  });
  const text = await res.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  if (!res.ok) {
    const refusal = body as { error?: string; code?: string; files?: string[] } | undefined;
    throw new ApiError(res.status, refusal?.error ?? `${route}: HTTP ${res.status}`, refusal?.code, refusal?.files);
  }
  return body as T;
}

export async function listSessions(filter: { archived?: boolean; query?: string } = {}): Promise<ListedSession[]> {
  const params = new URLSearchParams();
  if (filter.archived) params.set('archived', '1');
  // A search's results show the words around their match.
  if (filter.query?.trim()) {
    params.set('q', filter.query.trim());
    params.set('snippets', '1');
  }
  const qs = params.toString();
  return (await call<{ sessions: ListedSession[] }>(`/api/sessions${qs ? `?${qs}` : ''}`)).sessions;
}

export interface NewSessionOptions {
  model?: string;
  folder?: string;
  worktree?: boolean;
}

export async function createSession(options: NewSessionOptions | string = {}): Promise<string> {
  const o = typeof options === 'string' ? { model: options } : options;
  const body = { ...(o.model && { model: o.model }), ...(o.folder && { folder: o.folder }), ...(o.worktree !== undefined && { worktree: o.worktree }) };
  return (await call<{ id: string }>('/api/sessions', { body })).id;
}

const sessionRoute = (id: string) => `/api/sessions/${encodeURIComponent(id)}`;

export async function updateSession(id: string, change: { title?: string; archived?: boolean }): Promise<SessionSnapshot> {
  return call<SessionSnapshot>(sessionRoute(id), { method: 'PATCH', body: change });
}

/** Moves a session to the trash; `worktree: 'remove'` removes its worktree too (refused with 409 when dirty unless forced). */
export async function deleteSession(id: string, worktree: 'keep' | 'remove' = 'keep', force = false): Promise<void> {
  await call(`${sessionRoute(id)}?worktree=${worktree}${force ? '&force=1' : ''}`, { method: 'DELETE' });
}

export async function listTrash(): Promise<TrashedSession[]> {
  return (await call<{ sessions: TrashedSession[] }>('/api/trash')).sessions;
}

export async function restoreSession(id: string): Promise<void> {
  await call(`/api/trash/${encodeURIComponent(id)}/restore`, { body: {} });
}

/** `edit`: for Edit and resend (the fork's title then says "edited"). */
export async function forkSession(id: string, seq: number, edit = false): Promise<string> {
  return (await call<{ id: string }>(`${sessionRoute(id)}/fork`, { body: { seq, ...(edit && { edit }) } })).id;
}

export async function getChanges(id: string): Promise<ChangesReport> {
  return call<ChangesReport>(`${sessionRoute(id)}/changes`);
}

/** Adds a folder the user typed to the projects; the server says why it refuses one. Returns it as kept (symlinks resolved). */
export async function addProject(folder: string): Promise<string> {
  return (await call<{ folder: string }>('/api/projects', { body: { folder } })).folder;
}

export async function removeProject(folder: string): Promise<void> {
  await call(`/api/projects?folder=${encodeURIComponent(folder)}`, { method: 'DELETE' });
}

/** The user's answer to an editor's request to open a folder (409: answered elsewhere first). */
export async function decideProjectRequest(id: string, decision: 'allow' | 'deny'): Promise<void> {
  await call(`/api/projects/requests/${encodeURIComponent(id)}`, { body: { decision } });
}

/** SKEIN_WORKTREE: whether a new session gets its own worktree by default (false when it cannot be read). */
export async function serverWorktreeDefault(): Promise<boolean> {
  try {
    return (await call<{ worktreeDefault?: boolean }>('/api/settings')).worktreeDefault === true;
  } catch {
    return false;
  }
}

/** One of the Changes panel's actions on the session's own worktree (refused with the server's sentence). */
export async function worktreeAction(id: string, action: 'commit' | 'merge' | 'apply' | 'discard' | 'push', body: Record<string, unknown> = {}): Promise<WorktreeActionResult> {
  return call<WorktreeActionResult>(`${sessionRoute(id)}/worktree/${action}`, { body });
}

/** Stops the push under way on the session's worktree (it then answers `cancelled`). */
export async function cancelWorktreeAction(id: string): Promise<void> {
  await call(`${sessionRoute(id)}/worktree/cancel`, { body: {} });
}

export function exportUrl(id: string, format: 'jsonl' | 'md'): string {
  return `${sessionRoute(id)}/export?format=${format}`;
}

export async function getSession(id: string): Promise<SessionSnapshot> {
  return call<SessionSnapshot>(`/api/sessions/${encodeURIComponent(id)}`);
}

export async function getEvents(id: string, since = 0): Promise<SkeinEvent[]> {
  return (await call<{ events: SkeinEvent[] }>(`/api/sessions/${encodeURIComponent(id)}/events?since=${since}`)).events;
}

/** The last `limit` events before seq `before` (a page of history), and whether earlier ones exist. */
export async function getEventsBefore(id: string, before: number, limit: number): Promise<{ events: SkeinEvent[]; more: boolean }> {
  return call(`/api/sessions/${encodeURIComponent(id)}/events?before=${before}&limit=${limit}`);
}

export async function getView(id: string): Promise<{ messages: ViewMessage[]; tokens: number }> {
  return call(`/api/sessions/${encodeURIComponent(id)}/view`);
}

export interface ModelChoice {
  name: string;
  contextWindow?: number;
  provider?: string;
  /** False when the server says the model cannot be used (e.g. no API key). */
  available: boolean;
  note?: string;
  /** The reasoning efforts the model takes (besides `default`); absent: it does not reason. */
  efforts?: string[];
}

/** The model table, or [] when this server cannot list models. */
export async function listModels(): Promise<ModelChoice[]> {
  let body: unknown;
  try {
    body = await call<unknown>('/api/models');
  } catch {
    return [];
  }
  const list = Array.isArray(body) ? body : ((body as { models?: unknown } | undefined)?.models ?? []);
  if (!Array.isArray(list)) return [];
  return list.flatMap((m): ModelChoice[] => {
    if (typeof m === 'string') return [{ name: m, available: true }];
    if (typeof m !== 'object' || m === null) return [];
    const r = m as Record<string, unknown>;
    const name = [r.name, r.id, r.model].find((v): v is string => typeof v === 'string');
    if (!name) return [];
    const note = [r.reason, r.note, r.unavailableReason].find((v): v is string => typeof v === 'string');
    return [{
      name,
      available: r.available !== false,
      ...(typeof r.contextWindow === 'number' && { contextWindow: r.contextWindow }),
      ...(typeof r.provider === 'string' && { provider: r.provider }),
      ...(note !== undefined && { note }),
      ...(Array.isArray(r.efforts) && { efforts: r.efforts.filter((x): x is string => typeof x === 'string') }),
    }];
  });
}

export async function switchModel(id: string, model: string, effort?: string): Promise<void> {
  await call(`/api/sessions/${encodeURIComponent(id)}/model`, { body: { model, ...(effort && { effort }) } });
}

/** PUT /api/sessions/:id/mode: the session's approval mode (the server refuses an unknown one, naming the modes). */
export async function setMode(id: string, mode: string): Promise<SessionSnapshot> {
  return call<SessionSnapshot>(`/api/sessions/${encodeURIComponent(id)}/mode`, { method: 'PUT', body: { mode } });
}

/** GET /api/mcp: the MCP servers, their state and tools ([] when this server has none or cannot say). */
/** GET /api/trust: the project files and the decisions on them (none from a server without the route). */
export async function listTrust(): Promise<ProjectFileTrust[]> {
  try {
    return (await call<{ files: ProjectFileTrust[] }>('/api/trust')).files;
  } catch {
    return [];
  }
}

/** POST /api/trust: the decision on the content shown (409 when the file changed since). */
export async function decideTrust(file: ProjectFileTrust, decision: 'trust' | 'ignore' | 'revoke'): Promise<void> {
  await call('/api/trust', { body: { folder: file.folder, file: file.file, hash: file.sha256, decision } });
}

export async function listMcpServers(): Promise<McpServerInfo[]> {
  try {
    return (await call<{ servers: McpServerInfo[] }>('/api/mcp')).servers;
  } catch {
    return [];
  }
}

export type { RewindPreview };

export async function previewRewind(id: string, seq: number): Promise<RewindPreview> {
  return call<RewindPreview>(`${sessionRoute(id)}/rewind?seq=${seq}`);
}

/** Puts the files back as they were at `seq`; with `fork`, also a new session forked there (its id). */
export async function rewind(id: string, seq: number, fork: boolean): Promise<{ restored: string[]; id?: string }> {
  return call(`${sessionRoute(id)}/rewind`, { body: { seq, fork } });
}
