// <skein-project-requests>: an editor asks to open a folder that is not one of
// the projects (its `skein acp` session/new). Shown in every tab (the list
// socket carries the pending requests) with Allow / Deny; the editor shows
// the same question, and whichever the user answers first counts: the other
// prompt goes away. Allow adds the folder to the projects.
import { css, html, LitElement, nothing } from 'lit';
import type { ProjectRequest } from '../shared/protocol.js';
import { decideProjectRequest } from './api.js';

export class SkeinProjectRequests extends LitElement {
  static override properties = { requests: { attribute: false }, error: { state: true }, busy: { state: true } };
  declare requests: ProjectRequest[];
  declare error: string;
  declare busy: string;

  constructor() {
    super();
    this.requests = [];
    this.error = '';
    this.busy = '';
  }

  static override styles = css`
    :host { display: block; }
    section { border: 1px solid var(--warn); background: var(--warn-bg); border-radius: 8px; margin: 8px 12px; padding: 10px 12px; font-size: 13px; }
    h2 { font-size: 14px; margin: 0 0 4px; }
    p { margin: 4px 0; }
    .path { font-family: var(--mono, monospace); font-size: 12.5px; overflow-wrap: anywhere; }
    .muted { color: var(--muted); }
    .error { color: var(--danger); }
    .actions { display: flex; gap: 8px; margin-top: 8px; }
    button { font: inherit; padding: 4px 12px; border-radius: 6px; border: 1px solid var(--border); background: var(--bg, transparent); color: inherit; cursor: pointer; }
    button.allow { background: var(--accent); color: var(--accent-fg); border-color: var(--accent); }
    button:disabled { opacity: 0.6; cursor: default; }
    button:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
  `;

  override render() {
    if (!this.requests.length) return nothing;
    return this.requests.map(
      (r) => html`<section role="alertdialog" aria-labelledby="project-h-${r.id}" data-testid="project-request" data-folder=${r.folder}>
        <h2 id="project-h-${r.id}">An editor asks to open a folder in skein</h2>
        <p class="path">${r.folder}</p>
        <p class="muted">Allowed, it joins your projects (remove it under + New session → Folder) and sessions can work there. Your editor asks the same: the first answer counts.</p>
        ${this.error ? html`<p class="error" role="alert">${this.error}</p>` : nothing}
        <div class="actions">
          <button class="allow" ?disabled=${this.busy === r.id} @click=${() => void this.decide(r, 'allow')}>Allow</button>
          <button ?disabled=${this.busy === r.id} @click=${() => void this.decide(r, 'deny')}>Deny</button>
        </div>
      </section>`,
    );
  }

  private async decide(request: ProjectRequest, decision: 'allow' | 'deny') {
    this.busy = request.id;
    this.error = '';
    try {
      await decideProjectRequest(request.id, decision);
    } catch (err) {
      // 409: answered meanwhile (in the editor or another tab); the list socket takes the prompt away.
      if (!(err instanceof Error && 'status' in err && err.status === 409)) this.error = err instanceof Error ? err.message : String(err);
    } finally {
      this.busy = '';
    }
  }
}

customElements.define('skein-project-requests', SkeinProjectRequests);
