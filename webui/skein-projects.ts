// <skein-projects>: the folders skein may work in (the projects), under
// "+ New session" → Folder: each with Remove (a SKEIN_WORKDIR root stays while
// the server runs; a folder that no longer exists is marked missing), and
// "Add folder…": a path typed by the user, checked by the server (which says
// why it refuses `/`, the home folder itself or the data folder). The list
// comes from the list socket, so every tab shows each change.
import { css, html, LitElement, nothing } from 'lit';
import type { Project } from '../shared/protocol.js';
import { addProject, removeProject } from './api.js';

export class SkeinProjects extends LitElement {
  static override properties = { projects: { attribute: false }, adding: { state: true }, error: { state: true }, busy: { state: true } };
  declare projects: Project[];
  declare adding: string;
  declare error: string;
  declare busy: boolean;

  constructor() {
    super();
    this.projects = [];
    this.adding = '';
    this.error = '';
    this.busy = false;
  }

  static override styles = css`
    :host { display: block; margin-top: 6px; }
    h3 { font-size: 12px; font-weight: 600; margin: 0 0 2px; color: var(--muted); }
    ul { list-style: none; margin: 0; padding: 0; }
    li { display: flex; align-items: center; gap: 6px; padding: 2px 0; }
    .folder { flex: 1; min-width: 0; font-family: var(--mono, monospace); font-size: 11.5px; overflow-wrap: anywhere; color: var(--fg); }
    .tag { font-size: 11px; color: var(--muted); }
    .tag.missing { color: var(--danger); }
    button { font: inherit; font-size: 11.5px; padding: 1px 7px; border-radius: 6px; border: 1px solid var(--border); background: var(--panel); color: var(--fg); cursor: pointer; }
    button:disabled { opacity: 0.6; cursor: default; }
    button:focus-visible, input:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
    form { display: flex; gap: 6px; margin-top: 4px; }
    input { flex: 1; min-width: 0; box-sizing: border-box; font: inherit; font-size: 12px; padding: 4px 6px; border-radius: 6px; border: 1px solid var(--border); background: var(--bg); color: var(--fg); }
    .error { color: var(--danger); font-size: 12px; margin: 4px 0 0; overflow-wrap: anywhere; }
  `;

  override render() {
    return html`<h3 id="projects-h">Projects</h3>
      <ul aria-labelledby="projects-h" data-testid="projects">
        ${this.projects.map(
          (p) => html`<li data-folder=${p.folder}>
            <span class="folder">${p.folder}</span>
            ${p.missing ? html`<span class="tag missing" title="This folder no longer exists: no session can start there">missing</span>` : nothing}
            ${p.setting
              ? html`<span class="tag" title="This server was started with it (SKEIN_WORKDIR)">SKEIN_WORKDIR</span>`
              : html`<button ?disabled=${this.busy} aria-label="Remove ${p.folder} from the projects" @click=${() => void this.removeFolder(p.folder)}>Remove</button>`}
          </li>`,
        )}
      </ul>
      <form @submit=${(e: Event) => void this.add(e)}>
        <input type="text" aria-label="Add folder" placeholder="Add folder… (its whole path)" .value=${this.adding}
          @input=${(e: Event) => ((this.adding = (e.target as HTMLInputElement).value), (this.error = ''))}>
        <button type="submit" ?disabled=${this.busy || !this.adding.trim()}>Add</button>
      </form>
      ${this.error ? html`<p class="error" role="alert">${this.error}</p>` : nothing}`;
  }

  private async add(e: Event) {
    e.preventDefault();
    await this.act(async () => {
      const folder = await addProject(this.adding.trim());
      this.adding = '';
      this.dispatchEvent(new CustomEvent('project-added', { detail: { folder }, bubbles: true, composed: true }));
    });
  }

  private async removeFolder(folder: string) {
    await this.act(() => removeProject(folder));
  }

  private async act(action: () => Promise<unknown>) {
    this.busy = true;
    this.error = '';
    try {
      await action();
    } catch (err) {
      this.error = err instanceof Error ? err.message : String(err);
    } finally {
      this.busy = false;
    }
  }
}

customElements.define('skein-projects', SkeinProjects);
