// The context bar's folder and branch of the open session, and the toggle of
// its Changes panel (a part of <skein-app>'s template).
import { html, nothing } from 'lit';
import { currentWorkspace, type CommandHost } from './slash-actions.js';

export interface WorkspaceBarHost extends Pick<CommandHost, 'sessions' | 'currentId' | 'snapshot'> {
  showChanges: boolean;
  showView: boolean;
  /** Bumped when the panel opens: it fetches the changes again. */
  changesVersion: number;
}

/** The open session's folder and branch, and the Changes toggle. */
export function workspaceBar(host: WorkspaceBarHost) {
  const ws = currentWorkspace(host);
  if (!ws) return nothing;
  return html`<span class="workspace" data-testid="workspace" title=${ws.workDir}>Folder <span class="folder">${ws.workDir}</span>${ws.branch
    ? html` · <span class="branch" data-testid="branch">⎇ ${ws.branch}</span>` : nothing}</span>
    <button class="toggle changes" aria-pressed=${host.showChanges} @click=${() => {
      host.showChanges = !host.showChanges;
      host.showView = false;
      host.changesVersion++;
    }} title="Files changed since the session started, with their diff"><span class="long">${host.showChanges ? 'Back to timeline' : 'Changes'}</span><span class="short">${host.showChanges ? 'Timeline' : 'Changes'}</span></button>`;
}