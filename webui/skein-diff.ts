// <skein-diff>: the unified diff a write_file / edit_file result carries,
// added lines green, removed lines red, hunk headers muted; collapsible, open
// when short. Plain text only (lit escapes it): a diff is never HTML.
import { css, html, LitElement } from 'lit';

/** Diffs up to this many lines start open. */
const OPEN_LINES = 40;

/** Splits a file tool's output into its summary line and the diff after it (if any). */
export function splitDiff(name: string, output: string): { summary: string; diff: string } | undefined {
  if (name !== 'write_file' && name !== 'edit_file') return undefined;
  const newline = output.indexOf('\n');
  if (newline < 0) return undefined;
  const rest = output.slice(newline + 1);
  if (!rest.startsWith('--- ')) return undefined;
  return { summary: output.slice(0, newline), diff: rest };
}

export class SkeinDiff extends LitElement {
  static override properties = { diff: { attribute: false } };
  declare diff: string;

  static override styles = css`
    details { border-top: 1px solid var(--border); }
    summary { cursor: pointer; padding: 4px 10px; font-size: 12px; color: var(--muted); }
    .add-count { color: var(--ok); } .del-count { color: var(--danger); }
    pre { margin: 0; padding: 6px 0; font-family: var(--mono); font-size: 12.5px; max-height: 60vh; overflow: auto; }
    .line { display: block; padding: 0 10px; white-space: pre-wrap; overflow-wrap: anywhere; }
    /* A background of its own (not a tint of --ok): the green text keeps AA contrast on it in both themes. */
    .add { background: var(--ok-bg); color: var(--ok); }
    .del { background: var(--danger-bg); color: var(--danger); }
    .hunk, .head { color: var(--muted); }
    .note { color: var(--muted); font-style: italic; }
  `;

  override render() {
    const lines = this.diff.split('\n');
    const kind = (l: string, i: number) =>
      i < 2 && (l.startsWith('--- ') || l.startsWith('+++ ')) ? 'head' : l.startsWith('@@') ? 'hunk' : l.startsWith('+') ? 'add' : l.startsWith('-') ? 'del' : l.startsWith('[diff cut') || l.startsWith('\\') ? 'note' : 'ctx';
    const kinds = lines.map(kind);
    const added = kinds.filter((k) => k === 'add').length;
    const removed = kinds.filter((k) => k === 'del').length;
    return html`<details ?open=${lines.length <= OPEN_LINES}>
      <summary>Diff <span class="add-count">+${added}</span> <span class="del-count">−${removed}</span></summary>
      <pre aria-label="Diff">${lines.map((l, i) => html`<span class="line ${kinds[i]}" data-kind=${kinds[i]!}>${l || ' '}</span>`)}</pre>
    </details>`;
  }
}
customElements.define('skein-diff', SkeinDiff);
