// The actions of a session's own worktree, in its Changes panel: Commit (with
// a message), Merge into the main checkout's branch, Apply as a patch to the
// main checkout, Discard (after a confirm), Push (only when the repository
// has a remote). Each is the user's (a POST the model cannot make); what it
// did, or why it was refused, shows below the buttons with the files in
// conflict. Part of <skein-changes-panel>'s template.
import { css, html, nothing } from 'lit';
import type { ChangesReport, WorktreeActionResult } from '../shared/protocol.js';
import * as api from './api.js';

type Action = 'commit' | 'merge' | 'apply' | 'discard' | 'push';

export interface WorktreeActionsHost {
  sessionId: string;
  commitMessage: string;
  acting: string;
  confirmingDiscard: boolean;
  outcome: { ok: boolean; text: string; conflicts?: string[]; conflictNote?: string } | undefined;
  refresh(): void;
}

export const worktreeActionStyles = css`
  .wt { border: 1px solid var(--border); border-radius: 8px; background: var(--panel); padding: 10px 12px; margin: 0 0 12px; display: flex; flex-direction: column; gap: 8px; }
  .wt .state { font-size: 13px; color: var(--muted); margin: 0; }
  .wt .row { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; }
  .wt input[type='text'] { flex: 1 1 220px; min-width: 0; font: inherit; font-size: 14px; padding: 6px 8px; border-radius: 8px; border: 1px solid var(--border); background: var(--bg); color: var(--fg); }
  .wt button { font: inherit; font-size: 13px; padding: 6px 12px; border-radius: 8px; border: 1px solid var(--border); background: var(--panel); color: var(--fg); cursor: pointer; }
  .wt button:hover:not(:disabled) { border-color: var(--accent); }
  .wt button:disabled { opacity: 0.5; cursor: default; }
  .wt button:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
  .wt button.primary { background: var(--accent); border-color: var(--accent); color: var(--accent-fg, #fff); }
  .wt button.danger { color: var(--danger); }
  .wt .confirm { border: 1px solid var(--danger); border-radius: 8px; padding: 8px 10px; font-size: 13px; }
  .wt .confirm p { margin: 0 0 8px; }
  .wt .outcome { font-size: 13px; margin: 0; overflow-wrap: anywhere; }
  .wt .outcome.ok { color: var(--ok); }
  .wt .outcome.bad { color: var(--danger); }
  .wt ul { margin: 4px 0 0; padding-left: 20px; font-family: var(--mono); font-size: 12px; }
`;

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;
/** The server's sentences start lower-case (they follow "refused: "); the panel shows them as sentences. */
const sentence = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

export function worktreeActions(host: WorktreeActionsHost, r: ChangesReport) {
  const wt = r.worktree!;
  const busy = host.acting !== '';
  const base = wt.baseBranch ?? 'the main checkout';
  const changed = r.files.length > 0 || wt.commits > 0;
  return html`<section class="wt" data-testid="worktree-actions" aria-label="This session's worktree">
    <p class="state">Own worktree on <strong>${r.branch}</strong> · ${plural(wt.commits, 'commit')} · ${plural(wt.uncommitted, 'uncommitted file')}${wt.baseBranch ? html` · merges into <strong>${wt.baseBranch}</strong>` : nothing}</p>
    <form class="row" @submit=${(e: Event) => {
      e.preventDefault();
      void run(host, 'commit', { message: host.commitMessage });
    }}>
      <input type="text" aria-label="Commit summary" placeholder="Commit message" .value=${host.commitMessage}
        @input=${(e: Event) => (host.commitMessage = (e.target as HTMLInputElement).value)}>
      <button type="submit" class="primary" ?disabled=${busy || wt.uncommitted === 0 || !host.commitMessage.trim()}
        title="Commit every change of the worktree on ${r.branch}">${host.acting === 'commit' ? 'Committing…' : 'Commit'}</button>
    </form>
    <div class="row">
      <button ?disabled=${busy || wt.commits === 0} @click=${() => void run(host, 'merge')}
        title=${wt.uncommitted ? 'Merges the commits only: commit the rest first' : `Merge ${r.branch} into ${base}; on a conflict nothing changes`}>${host.acting === 'merge' ? 'Merging…' : `Merge into ${base}`}</button>
      <button ?disabled=${busy || r.files.length === 0} @click=${() => void run(host, 'apply')}
        title="Apply the session's changes since its start to the main checkout as a patch (git apply --3way), staged there">${host.acting === 'apply' ? 'Applying…' : 'Apply as patch'}</button>
      ${wt.remote ? html`<button ?disabled=${busy} @click=${() => void run(host, 'push')}
        title="Push ${r.branch} to ${wt.remote} (hooks never run)">${host.acting === 'push' ? 'Pushing…' : `Push to ${wt.remote}`}</button>` : nothing}
      ${host.acting === 'push' ? html`<button data-testid="cancel-push" @click=${() => void api.cancelWorktreeAction(host.sessionId).catch(() => undefined)}
        title="Stop the push (a remote that does not answer is given up after the server's timeout anyway)">Cancel push</button>` : nothing}
      <button class="danger" ?disabled=${busy || !changed} @click=${() => (host.confirmingDiscard = true)}>Discard…</button>
    </div>
    ${host.confirmingDiscard ? html`<div class="confirm" role="alertdialog" aria-label="Discard the session's changes">
      <p>Reset the worktree to the session's starting commit? ${plural(wt.uncommitted, 'uncommitted file')} and ${plural(wt.commits, 'commit')} on ${r.branch} are lost: this cannot be undone.</p>
      <div class="row">
        <button class="danger" @click=${() => {
          host.confirmingDiscard = false;
          void run(host, 'discard', { confirm: true });
        }}>Discard everything</button>
        <button @click=${() => (host.confirmingDiscard = false)}>Keep them</button>
      </div>
    </div>` : nothing}
    ${host.outcome ? html`<p class="outcome ${host.outcome.ok ? 'ok' : 'bad'}" role=${host.outcome.ok ? 'status' : 'alert'} data-testid="worktree-outcome">${host.outcome.text}</p>
      ${host.outcome.conflicts?.length ? html`<div data-testid="conflicts"><span class="outcome">${host.outcome.conflictNote}</span>
        <ul>${host.outcome.conflicts.map((f) => html`<li>${f}</li>`)}</ul></div>` : nothing}` : nothing}
  </section>`;
}

async function run(host: WorktreeActionsHost, action: Action, body: Record<string, unknown> = {}): Promise<void> {
  if (host.acting) return;
  host.acting = action;
  host.outcome = undefined;
  const id = host.sessionId;
  try {
    const result: WorktreeActionResult = await api.worktreeAction(id, action, body);
    if (id !== host.sessionId) return;
    if (action === 'commit') host.commitMessage = '';
    host.outcome = {
      ok: !result.conflicts?.length,
      text: result.message,
      ...(result.conflicts?.length && { conflicts: result.conflicts, conflictNote: 'In conflict in the main checkout (both sides kept between conflict markers):' }),
    };
  } catch (err) {
    if (id !== host.sessionId) return;
    const refusal = err instanceof api.ApiError ? err : undefined;
    host.outcome = {
      ok: false,
      text: sentence(err instanceof Error ? err.message : String(err)),
      ...(refusal?.code === 'merge_conflict' && refusal.files?.length && { conflicts: refusal.files, conflictNote: 'Conflicting files (the merge was aborted: nothing changed):' }),
      ...(refusal?.code === 'dirty_main' && refusal.files?.length && { conflicts: refusal.files, conflictNote: 'Uncommitted in the main checkout:' }),
    };
  } finally {
    host.acting = '';
    host.refresh();
  }
}
