// An editor's session/new for a folder no project of the running server holds
// (the web UI's server was started for another folder): the user is asked
// whether skein may work there, in the editor (session/request_permission,
// about a pseudo tool call "Open <folder> in skein?") and in every web UI tab
// at once (POST /api/projects/requests). The first answer counts; the other
// prompt goes away. Allowed: the folder joins the projects and the session is
// made there. Denied: session/new fails with invalid params and a hint.
import { RequestError, type AgentContext, type PermissionOption, type RequestPermissionRequest } from '@agentclientprotocol/sdk';
import type { ProjectRequest } from '../../shared/protocol.js';
import type { Api } from '../cli/api.js';
import { log } from '../log.js';

/** How long one GET waits for the web UI's answer before asking again. */
const WAIT_S = 25;

export const OPEN_PROJECT_OPTIONS: PermissionOption[] = [
  { optionId: 'allow', name: "Allow: add it to skein's projects and open it", kind: 'allow_always' },
  { optionId: 'reject', name: 'Deny', kind: 'reject_once' },
];

/** Resolves once the folder is inside a project (asking the user if needed); throws invalid params when the user denies it. */
export async function ensureProject(api: Api, client: AgentContext, folder: string, cancelled?: AbortSignal): Promise<void> {
  const { request, tabs } = await api.request<{ request: ProjectRequest; tabs?: number }>('POST', '/api/projects/requests', { folder, from: 'an editor (skein acp)' });
  if (request.state === 'allowed') return;
  const asked = new AbortController();
  let settled = false;
  try {
    // The editor cancelled its session/new: the question is withdrawn everywhere (its prompt, every web UI tab).
    const gaveUp = new Promise<never>((_resolve, reject) => {
      const stop = () => reject(RequestError.invalidParams({ folder }, `opening ${request.folder} in skein was cancelled`));
      if (cancelled?.aborted) stop();
      cancelled?.addEventListener('abort', stop, { once: true });
      asked.signal.addEventListener('abort', () => cancelled?.removeEventListener('abort', stop), { once: true });
    });
    const decided = await Promise.race([askEditor(api, client, request, asked.signal, tabs ?? 0), answerFromServer(api, request.id, asked.signal), gaveUp]);
    settled = true;
    if (decided.state !== 'allowed') throw denied(request.folder);
  } finally {
    // The web UI answered first: the editor's prompt goes away (and the other way round: the wait ends).
    asked.abort();
    if (!settled) await api.request('DELETE', `/api/projects/requests/${encodeURIComponent(request.id)}`).catch(() => undefined);
  }
}

/** The editor's answer, passed on to the server (which the web UI may have answered first: its answer counts). */
async function askEditor(api: Api, client: AgentContext, request: ProjectRequest, signal: AbortSignal, tabs: number): Promise<ProjectRequest> {
  const params: RequestPermissionRequest = {
    // No session exists yet: the request's own id stands for one.
    sessionId: `open-project-${request.id}`,
    toolCall: {
      toolCallId: `open-project-${request.id}`,
      title: `Open ${request.folder} in skein?`,
      kind: 'other',
      status: 'pending',
      locations: [{ path: request.folder }],
      content: [{ type: 'content', content: { type: 'text', text: `The skein server you use does not work in ${request.folder} yet. Allowed, the folder is added to skein's projects (remove it in the web UI: + New session → Folder) and sessions can work there.` } }],
      _meta: { skein: { projectRequest: request.id } },
    },
    options: OPEN_PROJECT_OPTIONS,
  };
  let decision: 'allow' | 'deny';
  try {
    const answer = await client.request('session/request_permission', params, { cancellationSignal: signal });
    decision = answer.outcome.outcome === 'selected' && answer.outcome.optionId === 'allow' ? 'allow' : 'deny';
  } catch (err) {
    if (signal.aborted) return new Promise(() => {});
    const why = err instanceof Error ? err.message : String(err);
    // An editor that cannot show it (Zed refuses a question about a session it does not know yet): with a web UI
    // tab open the user answers there; with none, nobody can, so session/new fails at once saying how to go on.
    if (tabs === 0) throw cannotAsk(request.folder, why, api);
    log.warn(`acp: the editor did not ask about opening ${request.folder} (${why}); answer in the web UI`);
    return new Promise(() => {});
  }
  if (signal.aborted) return new Promise(() => {});
  try {
    return (await api.request<{ request: ProjectRequest }>('POST', `/api/projects/requests/${encodeURIComponent(request.id)}`, { decision })).request;
  } catch {
    // 409: decided in the web UI meanwhile; that answer counts.
    return (await api.request<{ request: ProjectRequest }>('GET', `/api/projects/requests/${encodeURIComponent(request.id)}`)).request;
  }
}

/** The request once decided on the server (in a web UI tab, or by the editor's answer passed on). */
async function answerFromServer(api: Api, id: string, signal: AbortSignal): Promise<ProjectRequest> {
  for (;;) {
    const { request } = await api.request<{ request: ProjectRequest }>('GET', `/api/projects/requests/${encodeURIComponent(id)}?wait=${WAIT_S}`);
    if (request.state !== 'pending') return request;
    if (signal.aborted) return new Promise(() => {});
  }
}

function cannotAsk(folder: string, why: string, api: Api): RequestError {
  return RequestError.invalidParams(
    { folder },
    `"folder": ${folder} is not one of skein's projects yet, and the editor could not show skein's question about it (${why}). Open skein's web UI (${api.url}) and add it (+ New session → Folder → Add folder), or keep the web UI open and start the thread again to answer there`,
  );
}

function denied(folder: string): RequestError {
  return RequestError.invalidParams(
    { folder },
    `"folder": ${folder} is not inside a project: opening it in skein was denied. To work there, open it again and allow it, or add it in the web UI (+ New session → Folder → Add folder)`,
  );
}
