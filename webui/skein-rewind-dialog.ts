// <skein-rewind-dialog>: before a rewind, what it changes: each file and the
// diff from now back to that event. Then: the files only, or the files and
// the conversation forked there.
import { css, html, LitElement, nothing } from 'lit';
import * as api from './api.js';
import './skein-diff.js';

export class SkeinRewindDialog extends LitElement {
  static override properties = {
    target: { attribute: false },
    preview: { state: true },
    error: { state: true },
    working: { state: true },
  };
  /** The session and the event to rewind to; undefined: closed. */
  declare target: { id: string; seq: number } | undefined;
  declare preview: api.RewindPreview | undefined;
  declare error: string;
  declare working: boolean;

  constructor() {
    super();
    this.error = '';
    this.working = false;
  }

  static override styles = css`
    .scrim { position: fixed; inset: 0; background: rgb(0 0 0 / 0.35); z-index: 50; display: grid; place-items: center; }
    [role='dialog'] { background: var(--panel); color: var(--fg); border: 1px solid var(--border); border-radius: 12px; padding: 16px 18px;
      width: min(760px, 94vw); max-height: 86vh; overflow: auto; box-shadow: var(--shadow); font-size: 14px; box-sizing: border-box; }
    h2 { font-size: 16px; margin: 0 0 8px; }
    p, ul { margin: 6px 0; }
    code { font-family: var(--mono); font-size: 12px; }
    .warn { color: var(--danger); }
    .buttons { display: flex; justify-content: flex-end; gap: 8px; margin-top: 14px; flex-wrap: wrap; }
    button { font: inherit; font-size: 13px; padding: 6px 12px; border-radius: 8px; border: 1px solid var(--border); background: var(--panel); color: var(--fg); cursor: pointer; }
    button.primary { background: var(--accent); border-color: var(--accent); color: var(--accent-fg); font-weight: 600; }
    button:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
  `;

  override updated(changed: Map<string, unknown>) {
    if (changed.has('target') && this.target) {
      this.preview = undefined;
      this.error = '';
      const { id, seq } = this.target;
      api.previewRewind(id, seq).then(
        (p) => this.target?.seq === seq && (this.preview = p),
        (err: unknown) => (this.error = err instanceof Error ? err.message : String(err)),
      );
    }
  }

  override render() {
    const t = this.target;
    if (!t) return nothing;
    const p = this.preview;
    const words = { restore: 'back to how it was', delete: 'deleted (created after this point)', recreate: 'recreated (deleted after this point)' };
    return html`<div class="scrim" @keydown=${(e: KeyboardEvent) => e.key === 'Escape' && this.finish()}>
      <div role="dialog" aria-modal="true" aria-labelledby="rw-h">
        <h2 id="rw-h">Rewind the files to event ${t.seq}?</h2>
        ${!p && !this.error ? html`<p>Reading the checkpoints…</p>` : nothing}
        ${p ? html`
          ${p.files.length ? html`<p>${p.files.length} file${p.files.length === 1 ? '' : 's'} will change:</p>
            <ul data-testid="rewind-files">${p.files.map((f) => html`<li><code>${f.path}</code>: ${words[f.change]}</li>`)}</ul>
            <skein-diff .diff=${p.diff}></skein-diff>` : html`<p>No file changes: the folder already is as it was then.</p>`}
          ${p.notes.map((n) => html`<p class="note">${n}</p>`)}` : nothing}
        ${this.error ? html`<p class="warn" role="alert">${this.error}</p>` : nothing}
        <div class="buttons">
          <button @click=${() => this.finish()}>Cancel</button>
          <button ?disabled=${!p || this.working} @click=${() => void this.confirm(false)}>Rewind files only</button>
          <button class="primary" ?disabled=${!p || this.working} @click=${() => void this.confirm(true)}>Rewind files and fork the conversation here</button>
        </div>
      </div>
    </div>`;
  }

  private async confirm(fork: boolean) {
    const t = this.target;
    if (!t) return;
    this.working = true;
    try {
      const done = await api.rewind(t.id, t.seq, fork);
      this.finish(done);
    } catch (err) {
      this.error = err instanceof Error ? err.message : String(err);
    } finally {
      this.working = false;
    }
  }

  private finish(done?: { restored: string[]; id?: string }) {
    this.target = undefined;
    this.dispatchEvent(new CustomEvent('closed', { detail: done, bubbles: true, composed: true }));
  }
}
customElements.define('skein-rewind-dialog', SkeinRewindDialog);
