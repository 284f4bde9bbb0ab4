// <skein-delete-dialog>: confirms deleting a session (to the trash, restorable
// for 30 days) and offers to remove its worktree. A worktree with uncommitted
// work is never removed silently: the server refuses, the dialog says which
// files, and only "Remove anyway" forces it.
import { css, html, LitElement, nothing } from 'lit';
import type { SessionSnapshot } from '../shared/protocol.js';
import * as api from './api.js';

export class SkeinDeleteDialog extends LitElement {
  static override properties = {
    session: { attribute: false },
    removeWorktree: { state: true },
    dirty: { state: true },
    error: { state: true },
    working: { state: true },
  };
  declare session: SessionSnapshot | undefined;
  declare removeWorktree: boolean;
  declare dirty: string;
  declare error: string;
  declare working: boolean;

  constructor() {
    super();
    this.removeWorktree = false;
    this.dirty = '';
    this.error = '';
    this.working = false;
  }

  static override styles = css`
    .scrim { position: fixed; inset: 0; background: rgb(0 0 0 / 0.35); z-index: 50; display: grid; place-items: center; }
    [role='dialog'] { background: var(--panel); color: var(--fg); border: 1px solid var(--border); border-radius: 12px; padding: 16px 18px; max-width: 460px;
      box-shadow: var(--shadow); font-size: 14px; }
    h2 { font-size: 16px; margin: 0 0 8px; }
    p { margin: 6px 0; }
    .warn { color: var(--danger); }
    code { font-family: var(--mono); font-size: 12px; }
    .buttons { display: flex; justify-content: flex-end; gap: 8px; margin-top: 14px; }
    button { font: inherit; font-size: 13px; padding: 6px 12px; border-radius: 8px; border: 1px solid var(--border); background: var(--panel); color: var(--fg); cursor: pointer; }
    button.danger { background: var(--danger); border-color: var(--danger); color: var(--danger-fg); }
    button:focus-visible, input:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
  `;

  override render() {
    const s = this.session;
    if (!s) return nothing;
    const worktree = s.workspace?.worktree;
    return html`<div class="scrim" @keydown=${(e: KeyboardEvent) => e.key === 'Escape' && this.finish(false)}>
      <div role="dialog" aria-modal="true" aria-labelledby="del-h">
        <h2 id="del-h">Delete “${s.title}”?</h2>
        <p>It moves to the trash and can be restored for 30 days.</p>
        ${worktree ? html`<label><input type="checkbox" .checked=${this.removeWorktree}
            @change=${(e: Event) => (this.removeWorktree = (e.target as HTMLInputElement).checked)}> Also remove its worktree <code>${worktree}</code>
            (the branch <code>${s.workspace?.branch}</code> stays)</label>` : nothing}
        ${this.dirty ? html`<p class="warn" role="alert">${this.dirty}</p>` : nothing}
        ${this.error ? html`<p class="warn" role="alert">${this.error}</p>` : nothing}
        <div class="buttons">
          <button @click=${() => this.finish(false)}>Cancel</button>
          ${this.dirty
            ? html`<button class="danger" ?disabled=${this.working} @click=${() => void this.confirm(true)}>Remove anyway (discard uncommitted changes)</button>`
            : html`<button class="danger" ?disabled=${this.working} @click=${() => void this.confirm(false)}>Delete</button>`}
        </div>
      </div>
    </div>`;
  }

  override updated(changed: Map<string, unknown>) {
    if (changed.has('session') && this.session) {
      this.removeWorktree = false;
      this.dirty = '';
      this.error = '';
      void this.updateComplete.then(() => this.renderRoot.querySelector<HTMLButtonElement>('button')?.focus());
    }
  }

  private async confirm(force: boolean) {
    const s = this.session;
    if (!s) return;
    this.working = true;
    try {
      await api.deleteSession(s.id, this.removeWorktree ? 'remove' : 'keep', force);
      this.finish(true);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (err instanceof api.ApiError && err.status === 409 && /uncommitted/.test(message)) this.dirty = message;
      else this.error = message;
    } finally {
      this.working = false;
    }
  }

  private finish(deleted: boolean) {
    const id = this.session?.id;
    this.session = undefined;
    this.dispatchEvent(new CustomEvent('closed', { detail: { id, deleted }, bubbles: true, composed: true }));
  }
}
customElements.define('skein-delete-dialog', SkeinDeleteDialog);
