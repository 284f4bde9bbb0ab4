// A session whose folder the user removed from the projects (or that is gone
// from the disk) keeps its log readable but does no more work there: a new
// turn, a fork, a rewind or a worktree action is refused (HTTP 409, an error
// frame on the socket, an error in the editor) until the folder is added again.
import type { Sessions } from '../sessions/sessions.js';

type Live = NonNullable<Awaited<ReturnType<Sessions['open']>>>;

/** Why the session may not work any more, or undefined when its folder is still a project. */
export function projectGone(sessions: Pick<Sessions, 'projects'>, live: Live): string | undefined {
  // Another instance runs it (a cluster): that instance's projects decide; a read-only copy says why itself.
  if (live.session.remote) return undefined;
  const folder = live.session.log.header.workspace?.folder;
  if (!folder || sessions.projects.contains(folder)) return undefined;
  return `this session works in ${folder}, which is no longer one of skein's projects (it was removed from the list, or is gone): add the folder again (web UI: + New session → Folder → Add folder) to go on; its conversation stays readable`;
}

export const PROJECT_REMOVED = 'project_removed';

/**
 * A project removed while its sessions work: their turns are cancelled (a call waiting for approval is denied
 * by the cancel), so nothing more runs in the folder the user took off the list. Returns the unsubscribe.
 */
export function stopWorkInRemovedProjects(sessions: Pick<Sessions, 'projects' | 'loaded'>): () => void {
  return sessions.projects.onChange(() => {
    for (const [, live] of sessions.loaded()) {
      if (live.session.state === 'WaitingForUserInput' || !projectGone(sessions, live)) continue;
      void Promise.resolve(live.session.cancel()).catch(() => undefined);
    }
  });
}
