// The menu of a timeline row ("⋯" at its top right, shown on hover and on
// keyboard focus): fork the session from this event.
import { css, html, nothing } from 'lit';
import type { Row } from './timeline-model.js';

/** The event a fork from this row copies up to (a tool row: its result, when it has one). */
export function forkSeqOf(row: Row): number | undefined {
  switch (row.kind) {
    case 'user':
    case 'agent':
      return row.event.seq;
    case 'tool':
      return row.result?.seq ?? row.call.seq;
    case 'compaction':
      return row.event.phase === 'finished' || row.event.phase === 'failed' ? row.event.seq : undefined;
    default:
      return undefined;
  }
}

export function renderRowMenu(row: Row, fork: (seq: number) => void, rewind: (seq: number) => void, edit: (seq: number, text: string) => void) {
  const seq = forkSeqOf(row);
  if (seq === undefined) return nothing;
  const close = (e: Event) => (e.target as HTMLElement).closest('details')?.removeAttribute('open');
  return html`<details class="rowmenu">
    <summary aria-label="Event ${seq} actions" title="Actions">⋯</summary>
    <div class="rowmenu-items" role="menu">
      <button role="menuitem" @click=${(e: Event) => {
        close(e);
        fork(seq);
      }}>Fork from here</button>
      <button role="menuitem" @click=${(e: Event) => {
        close(e);
        rewind(seq);
      }}>Rewind to here…</button>
      ${row.kind === 'user' ? html`<button role="menuitem" @click=${(e: Event) => {
        close(e);
        edit(row.event.seq, row.event.text);
      }}>Edit and resend</button>` : nothing}
    </div>
  </details>`;
}

export const rowMenuStyles = css`
  .row { position: relative; }
  .rowmenu { position: absolute; top: 4px; right: -4px; z-index: 3; opacity: 0; }
  .row:hover .rowmenu, .rowmenu:focus-within, .rowmenu[open] { opacity: 1; }
  .rowmenu summary { list-style: none; cursor: pointer; padding: 0 6px; border-radius: 6px; color: var(--muted); background: var(--panel);
    border: 1px solid var(--border); font-size: 14px; line-height: 1.4; }
  .rowmenu summary::-webkit-details-marker { display: none; }
  .rowmenu summary:focus-visible, .rowmenu button:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
  .rowmenu-items { position: absolute; right: 0; margin-top: 2px; padding: 4px; border-radius: 8px; border: 1px solid var(--border);
    background: var(--panel); box-shadow: var(--shadow); white-space: nowrap; }
  .rowmenu-items button { font: inherit; font-size: 13px; padding: 5px 10px; border: none; border-radius: 6px; background: none; color: var(--fg); cursor: pointer; }
  .rowmenu-items button:hover { background: var(--code-bg); }
`;
