// The open session's folder and branch (under the title, in the header), and
// the toggle of its Changes panel (in the context bar): parts of <skein-app>'s
// template.
import { html, nothing } from 'lit';
import { branchIcon } from './icons.js';
import { currentWorkspace, type CommandHost } from './slash-actions.js';

export interface WorkspaceBarHost extends Pick<CommandHost, 'sessions' | 'currentId' | 'snapshot'> {
  showChanges: boolean;
  showView: boolean;
  /** Bumped when the panel opens: it fetches the changes again. */
  changesVersion: number;
}

/**
 * The folder the session was asked to work in and its branch, whole (they
 * wrap rather than being cut). Never the worktree's own path: that is skein's
 * business (under its data folder), the folder and the branch are the user's.
 */
export function workspaceLine(host: WorkspaceBarHost) {
  const ws = currentWorkspace(host);
  if (!ws) return nothing;
  const where = `Folder ${ws.folder}${ws.worktree ? ', in a git worktree of its own' : ''}${ws.branch ? `, on branch ${ws.branch}` : ''}`;
  return html`<p class="workspace" data-testid="workspace" title=${where}><span class="folder">${ws.folder}</span>${ws.worktree
    ? html`<span class="own"> (own worktree)</span>` : nothing}${ws.branch
    ? html` <span class="branch" data-testid="branch">${branchIcon}<span class="sr">branch</span> ${ws.branch}</span>` : nothing}</p>`;
}

/** The Changes toggle: the files changed since the session started. */
export function changesToggle(host: WorkspaceBarHost) {
  if (!currentWorkspace(host)) return nothing;
  return html`<button class="toggle changes" aria-pressed=${host.showChanges} @click=${() => {
    host.showChanges = !host.showChanges;
    host.showView = false;
    host.changesVersion++;
  }} title="Files changed since the session started, with their diff"><span class="long">${host.showChanges ? 'Back to timeline' : 'Changes'}</span><span class="short">${host.showChanges ? 'Timeline' : 'Changes'}</span></button>`;
}
