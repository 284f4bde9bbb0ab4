// <skein-changes-panel>: the files changed in the session's folder since it
// started, each with its diff against the starting commit (untracked files
// as added); in a folder shared with other sessions, only the files this
// session changed. Refreshed by the app after each tool run (`version`). A
// session with its own worktree gets its actions here (worktree-actions.ts):
// commit, merge into the main checkout's branch, apply as a patch, discard,
// push.
import { css, html, LitElement, nothing } from 'lit';
import type { ChangedFile, ChangesReport } from '../shared/protocol.js';
import * as api from './api.js';
import { worktreeActions, worktreeActionStyles, type WorktreeActionsHost } from './worktree-actions.js';

const STATUS_LETTER: Record<ChangedFile['status'], string> = { added: 'A', modified: 'M', deleted: 'D', renamed: 'R', untracked: 'U' };

export class SkeinChangesPanel extends LitElement implements WorktreeActionsHost {
  static override properties = {
    sessionId: { attribute: false },
    version: { attribute: false },
    report: { state: true },
    error: { state: true },
    commitMessage: { state: true },
    acting: { state: true },
    confirmingDiscard: { state: true },
    outcome: { state: true },
  };
  declare sessionId: string;
  declare version: number;
  declare report: ChangesReport | undefined;
  declare error: string;
  declare commitMessage: string;
  /** The action under way (its buttons wait). */
  declare acting: string;
  declare confirmingDiscard: boolean;
  /** What the last action did or why it was refused, with the files in conflict. */
  declare outcome: { ok: boolean; text: string; conflicts?: string[]; conflictNote?: string } | undefined;
  private loading: Promise<void> | undefined;
  private again = false;

  constructor() {
    super();
    this.sessionId = '';
    this.version = 0;
    this.error = '';
    this.commitMessage = '';
    this.acting = '';
    this.confirmingDiscard = false;
  }

  refresh(): void {
    void this.load();
  }

  static override styles = [css`
    :host { display: block; overflow-y: auto; padding: 12px 16px; box-sizing: border-box; }
    .inner { max-width: 960px; margin: 0 auto; }
    h2 { font-size: 15px; margin: 0 0 4px; }
    .base { font-size: 12px; color: var(--muted); margin: 0 0 10px; font-family: var(--mono); }
    .none { color: var(--muted); }
    details { border: 1px solid var(--border); border-radius: 8px; margin: 0 0 8px; background: var(--panel); }
    summary { cursor: pointer; padding: 6px 10px; font-family: var(--mono); font-size: 13px; display: flex; gap: 8px; }
    summary:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
    .st { font-weight: 700; width: 1.2em; }
    .st.A, .st.U { color: var(--ok); } .st.D { color: var(--danger); } .st.M, .st.R { color: var(--warn); }
    pre { margin: 0; padding: 8px 10px; overflow-x: auto; font-family: var(--mono); font-size: 12px; line-height: 1.45; border-top: 1px solid var(--border); background: var(--code-bg); }
    .add { color: var(--ok); display: block; } .del { color: var(--danger); display: block; } .hunk { color: var(--muted); display: block; }
    .ctx { display: block; }
    .error { color: var(--danger); }
    .scope { font-size: 13px; color: var(--muted); margin: 0 0 10px; }
  `, worktreeActionStyles];

  override updated(changed: Map<string, unknown>) {
    if (changed.has('sessionId') && changed.get('sessionId') !== undefined) {
      this.outcome = undefined;
      this.confirmingDiscard = false;
      this.commitMessage = '';
    }
    if (changed.has('sessionId') || changed.has('version')) void this.load();
  }

  /** One request at a time; a refresh asked for meanwhile runs once after it. */
  private async load(): Promise<void> {
    if (this.loading) {
      this.again = true;
      return;
    }
    const id = this.sessionId;
    if (!id) return;
    this.loading = (async () => {
      try {
        const report = await api.getChanges(id);
        if (id === this.sessionId) {
          this.report = report;
          this.error = '';
        }
      } catch (err) {
        this.error = `Could not read the changes: ${err instanceof Error ? err.message : String(err)}`;
      }
    })();
    await this.loading;
    this.loading = undefined;
    if (this.again) {
      this.again = false;
      void this.load();
    }
  }

  override render() {
    const r = this.report;
    return html`<div class="inner" data-testid="changes">
      <h2>Changes</h2>
      ${this.error ? html`<p class="error" role="alert">${this.error}</p>` : nothing}
      ${!r ? html`<p class="none">Loading…</p>` : !r.git
        ? html`<p class="none">${r.workDir} is not in a git repository: there is no starting commit to compare with.</p>`
        : html`<p class="base">${r.branch ?? 'detached HEAD'} · since ${r.baseCommit?.slice(0, 12)} · ${r.files.length} file${r.files.length === 1 ? '' : 's'} changed</p>
          ${r.sessionOnly ? html`<p class="scope" data-testid="scope">Files this session changed (other sessions in this folder are not shown).</p>` : nothing}
          ${r.worktree ? worktreeActions(this, r) : nothing}
          ${r.files.length === 0 ? html`<p class="none">No changes since the session started.</p>` : nothing}
          ${r.files.map((f) => html`<details open data-path=${f.path}>
            <summary><span class="st ${STATUS_LETTER[f.status]}" title=${f.status}>${STATUS_LETTER[f.status]}</span>${f.path}</summary>
            <pre>${f.diff.replace(/\n$/, '').split('\n').map((line) => html`<span class=${lineClass(line)}>${line || ' '}</span>`)}${f.truncated ? html`<span class="hunk">… cut: the diff is too long to show whole</span>` : nothing}</pre>
          </details>`)}`}
    </div>`;
  }
}

function lineClass(line: string): string {
  if (line.startsWith('+++') || line.startsWith('---') || line.startsWith('diff ') || line.startsWith('index ') || line.startsWith('@@')) return 'hunk';
  if (line.startsWith('+')) return 'add';
  if (line.startsWith('-')) return 'del';
  return 'ctx';
}
customElements.define('skein-changes-panel', SkeinChangesPanel);
