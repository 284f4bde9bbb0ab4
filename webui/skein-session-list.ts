// <skein-session-list>: every session with its title (the first user message,
// or the name given), branch and last activity, most recent first; real links
// to /s/<id>, so a session can be opened in a new tab or bookmarked. A search
// box (titles and user messages, on the server), a toggle for archived
// sessions, the trash, and a menu per session: rename, archive, export, delete.
// Forks sit under the session they came from (session-tree.ts), folded with a
// count until opened; the session one is in is always shown.
import { css, html, LitElement, nothing } from 'lit';
import type { ListedSession, Project, SessionSnapshot, TrashedSession } from '../shared/protocol.js';
import './skein-projects.js';
import { exportUrl, serverWorktreeDefault } from './api.js';
import { formatCost, formatTokens, STATE_WORDS, timeAgo } from './format.js';
import { markedParts } from '../shared/search-snippet.js';
import { ancestorsOf, sessionTree, type SessionNode } from './session-tree.js';
import { styleProps } from './style-props.js';

export class SkeinSessionList extends LitElement {
  static override properties = {
    sessions: { attribute: false },
    current: { attribute: false },
    trash: { attribute: false },
    projects: { attribute: false },
    showArchived: { state: true },
    showTrash: { state: true },
    renaming: { state: true },
    folder: { state: true },
    worktree: { state: true },
    unfolded: { state: true },
  };
  declare sessions: ListedSession[];
  declare current: string;
  declare trash: TrashedSession[];
  declare projects: Project[];
  declare showArchived: boolean;
  declare showTrash: boolean;
  declare renaming: string;
  declare folder: string;
  declare worktree: boolean;
  /** The sessions whose forks are shown (folded by default). */
  declare unfolded: Set<string>;
  /** The session whose origins were last unfolded (once each time another is opened: folding it again is the user's). */
  private revealed = '';
  private query = '';
  private searchTimer: ReturnType<typeof setTimeout> | undefined;

  constructor() {
    super();
    this.sessions = [];
    this.current = '';
    this.trash = [];
    this.projects = [];
    this.showArchived = false;
    this.showTrash = false;
    this.renaming = '';
    this.folder = '';
    this.worktree = false;
    this.unfolded = new Set();
  }

  /** SKEIN_WORKTREE: the "Own git worktree" box starts from the server's default (until the user ticks it either way). */
  private worktreeDefault = false;
  private worktreeChosen = false;

  override connectedCallback() {
    super.connectedCallback();
    void serverWorktreeDefault().then((on) => {
      this.worktreeDefault = on;
      if (!this.worktreeChosen) this.worktree = on;
    });
  }

  /** The new session's `worktree`: said only when it differs from the server's default (which then applies only in a git folder). */
  private worktreeChoice(): { worktree?: boolean } {
    return this.worktree === this.worktreeDefault ? {} : { worktree: this.worktree };
  }

  static override styles = css`
    :host { display: flex; flex-direction: column; min-height: 0; }
    .new { margin: 10px 12px 4px; font: inherit; font-size: 14px; font-weight: 600; padding: 8px 12px; border-radius: 10px; cursor: pointer;
      border: 1px solid var(--accent); background: var(--accent); color: var(--accent-fg); }
    .new:focus-visible, a:focus-visible, button:focus-visible, input:focus-visible, summary:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
    .where { margin: 0 12px 6px; font-size: 12px; color: var(--muted); }
    .where summary { cursor: pointer; }
    .where label { display: block; margin-top: 4px; }
    .where input[type='text'] { width: 100%; box-sizing: border-box; font: inherit; font-size: 12px; padding: 4px 6px; border-radius: 6px;
      border: 1px solid var(--border); background: var(--bg); color: var(--fg); }
    .search { margin: 4px 12px; font: inherit; font-size: 13px; padding: 6px 8px; border-radius: 8px; border: 1px solid var(--border); background: var(--bg); color: var(--fg); }
    .filters { display: flex; gap: 10px; margin: 2px 16px 4px; font-size: 12px; color: var(--muted); }
    h2 { font-size: 12px; text-transform: uppercase; letter-spacing: 0.05em; color: var(--muted); margin: 6px 16px 4px; }
    ul { list-style: none; margin: 0; padding: 0 8px 12px; overflow-y: auto; flex: 1; }
    li { position: relative; }
    a { display: block; padding: 7px 30px 7px 10px; border-radius: 8px; color: var(--fg); text-decoration: none; }
    a:hover { background: var(--code-bg); }
    a[aria-current='page'] { background: var(--user-bg); }
    .title { display: block; font-size: 14px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
    .meta { display: block; font-size: 12px; color: var(--muted); white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
    .busy { color: var(--warn); }
    /* A search result: the words around the match, the words searched for marked (up to three lines). */
    .snippet { display: -webkit-box; -webkit-line-clamp: 3; -webkit-box-orient: vertical; overflow: hidden; font-size: 12px; color: var(--fg); margin: 2px 0; overflow-wrap: anywhere; }
    .snippet mark { background: color-mix(in srgb, var(--accent) 25%, transparent); color: inherit; border-radius: 3px; padding: 0 1px; }
    /* The live state is never cut: it wraps rather than ending in an ellipsis. */
    .live { display: block; font-size: 12px; white-space: normal; overflow-wrap: anywhere; }
    .tag { font-size: 11px; border: 1px solid var(--border); border-radius: 6px; padding: 0 4px; margin-left: 4px; }
    details.actions { position: absolute; top: 6px; right: 4px; }
    details.actions summary { list-style: none; cursor: pointer; padding: 0 6px; border-radius: 6px; color: var(--muted); font-size: 16px; line-height: 1.4; }
    details.actions summary::-webkit-details-marker { display: none; }
    details.actions[open] summary { background: var(--code-bg); color: var(--fg); }
    .menu { position: absolute; right: 0; z-index: 5; display: flex; flex-direction: column; min-width: 170px; padding: 4px; border-radius: 8px;
      border: 1px solid var(--border); background: var(--panel); box-shadow: var(--shadow); }
    .menu button, .menu a { font: inherit; font-size: 13px; text-align: left; padding: 5px 8px; border: none; border-radius: 6px; background: none; color: var(--fg); cursor: pointer; }
    .menu button:hover, .menu a:hover { background: var(--code-bg); }
    .menu .danger { color: var(--danger); }
    .rename { display: block; width: 100%; box-sizing: border-box; font: inherit; font-size: 14px; padding: 6px 8px; border-radius: 8px; border: 1px solid var(--accent); }
    .trash li { display: flex; align-items: center; gap: 6px; padding: 5px 10px; font-size: 13px; }
    .trash .t { flex: 1; min-width: 0; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
    .trash button { font: inherit; font-size: 12px; padding: 2px 8px; border-radius: 6px; border: 1px solid var(--border); background: var(--panel); color: var(--fg); cursor: pointer; }
    .empty { color: var(--muted); font-size: 13px; padding: 6px 10px; }
    /* Forks: under their origin, a thin line on their left; the fold button says how many. */
    li.fork { margin-left: calc(var(--depth, 1) * 12px); padding-left: 6px; border-left: 1px solid var(--border); }
    .fold { display: block; font: inherit; font-size: 12px; color: var(--muted); background: none; border: none; padding: 1px 10px 5px; cursor: pointer; border-radius: 6px; }
    .fold:hover { color: var(--fg); }
  `;

  override render() {
    const roots = this.projects.filter((p) => !p.missing).map((p) => p.folder);
    return html`
      <button class="new" @click=${() => this.fire('new-session', { ...(this.folder.trim() && { folder: this.folder.trim() }), ...this.worktreeChoice() })}>+ New session</button>
      <details class="where">
        <summary>Folder${this.folder.trim() ? `: ${this.folder.trim()}` : ''}${this.worktree ? ' · own worktree' : ''}</summary>
        <label>Working folder (one of your projects, or inside one)
          <input type="text" list="roots" .value=${this.folder} placeholder=${roots[0] ?? ''}
            @input=${(e: Event) => (this.folder = (e.target as HTMLInputElement).value)}>
        </label>
        <datalist id="roots">${roots.map((r) => html`<option value=${r}></option>`)}</datalist>
        <label><input type="checkbox" .checked=${this.worktree} @change=${(e: Event) => {
          this.worktree = (e.target as HTMLInputElement).checked;
          this.worktreeChosen = true;
        }}>
          Own git worktree (new branch skein/&lt;id&gt;)</label>
        <skein-projects .projects=${this.projects} @project-added=${(e: CustomEvent<{ folder: string }>) => (this.folder = e.detail.folder)}></skein-projects>
      </details>
      <input class="search" type="search" aria-label="Search sessions" placeholder="Search titles and messages…" @input=${(e: Event) => this.search((e.target as HTMLInputElement).value)}>
      <div class="filters">
        <label><input type="checkbox" .checked=${this.showArchived} @change=${(e: Event) => this.setArchived((e.target as HTMLInputElement).checked)}> Show archived</label>
        <label><input type="checkbox" .checked=${this.showTrash} @change=${(e: Event) => this.setTrash((e.target as HTMLInputElement).checked)}> Trash</label>
      </div>
      ${this.showTrash ? this.renderTrash() : this.renderSessions()}
    `;
  }

  private renderSessions() {
    return html`<h2 id="sessions-h">Sessions</h2>
      <ul aria-labelledby="sessions-h">
        ${this.sessions.length === 0 ? html`<li class="empty">${this.query ? 'No session matches.' : 'No sessions.'}</li>` : nothing}
        ${sessionTree(this.sessions).flatMap((n) => this.renderNode(n))}
      </ul>`;
  }

  override willUpdate() {
    // The session one is in is always visible: its origins unfold when it is opened (or first listed).
    if (this.current === this.revealed || !this.sessions.some((s) => s.id === this.current)) return;
    this.revealed = this.current;
    const up = ancestorsOf(this.sessions, this.current);
    if (up.some((id) => !this.unfolded.has(id))) this.unfolded = new Set([...this.unfolded, ...up]);
  }

  /**
   * A session, and after it its forks, indented (rows stay siblings: each
   * row's link and menu are its own), folded behind "N forks" until opened.
   */
  private renderNode(node: SessionNode, depth = 0): unknown[] {
    const s = node.session;
    const row = this.renaming === s.id ? this.renderRename(s) : this.renderRow(s);
    const open = this.unfolded.has(s.id);
    const label = foldLabel(node);
    const fold = node.children.length
      ? html`<button class="fold" data-testid="forks-toggle" aria-expanded=${open ? 'true' : 'false'} aria-label="${open ? 'Hide' : 'Show'} ${label} of ${s.title}"
          @click=${() => this.fold(s.id, !open)}>${open ? '▾' : '▸'} ${label}</button>`
      : nothing;
    const item = html`<li data-id=${s.id} class=${depth ? 'fork' : ''} data-depth=${depth} style=${styleProps({ '--depth': String(Math.min(depth, 6)) })}>${row}${fold}</li>`;
    // Folded, the way down to the session one is in still shows: it never disappears from the list.
    const shown = open ? node.children : node.children.filter((c) => holds(c, this.current));
    return [item, ...shown.flatMap((c) => this.renderNode(c, depth + 1))];
  }

  private fold(id: string, open: boolean) {
    const next = new Set(this.unfolded);
    if (open) next.add(id);
    else next.delete(id);
    this.unfolded = next;
  }

  private renderRow(s: ListedSession) {
    const branch = s.workspace?.branch;
    return html`
      <a href="/s/${s.id}${s.match?.seq ? `?at=${s.match.seq}` : ''}" aria-current=${s.id === this.current ? 'page' : 'false'} data-id=${s.id} @click=${(e: MouseEvent) => this.open(e, s.id, s.match?.seq)}>
        <span class="title">${s.title}${s.parent ? html`<span class="tag" data-testid="subtask-tag">${s.parent.agent} subtask</span>` : nothing}${s.archived ? html`<span class="tag">archived</span>` : nothing}</span>
        ${s.match?.snippet ? html`<span class="snippet" data-testid="search-snippet">${markedParts(s.match.snippet, this.query).map((p) => (p.mark ? html`<mark>${p.text}</mark>` : p.text))}</span>` : nothing}
        <span class="meta">${timeAgo(s.lastActivity)} · ${s.model}${branch ? ` · ${branch}` : ''}</span>
        <span class="meta usage" data-testid="list-usage" title="Tokens of every request so far, and what they cost">${formatTokens(s.gauge.totalTokens ?? 0)} tokens · ${formatCost(s.gauge.totalCostUsd)}</span>
        ${s.state !== 'WaitingForUserInput' ? html`<span class="live busy" data-testid="list-state">${STATE_WORDS[s.state]}</span>` : nothing}
      </a>
      <details class="actions">
        <summary aria-label="Actions for ${s.title}" title="Rename, archive, export, delete">⋯</summary>
        <div class="menu" role="menu">
          <button role="menuitem" @click=${(e: Event) => this.act(e, () => (this.renaming = s.id))}>Rename</button>
          <button role="menuitem" @click=${(e: Event) => this.act(e, () => this.fire('archive-session', { id: s.id, archived: !s.archived }))}>${s.archived ? 'Unarchive' : 'Archive'}</button>
          <a role="menuitem" href=${exportUrl(s.id, 'md')} download="${s.id}.md" @click=${this.closeMenu}>Export Markdown</a>
          <a role="menuitem" href=${exportUrl(s.id, 'jsonl')} download="${s.id}.jsonl" @click=${this.closeMenu}>Export JSONL log</a>
          <button role="menuitem" class="danger" @click=${(e: Event) => this.act(e, () => this.fire('delete-session', { id: s.id }))}>Delete…</button>
        </div>
      </details>`;
  }

  private renderRename(s: SessionSnapshot) {
    const done = (input: HTMLInputElement, save: boolean) => {
      if (this.renaming !== s.id) return;
      this.renaming = '';
      if (save && input.value.trim() !== s.title) this.fire('rename-session', { id: s.id, title: input.value });
    };
    return html`
      <input class="rename" aria-label="New title (empty: the first message)" .value=${s.customTitle ?? s.title}
        @keydown=${(e: KeyboardEvent) => {
          if (e.key === 'Enter') done(e.target as HTMLInputElement, true);
          if (e.key === 'Escape') done(e.target as HTMLInputElement, false);
        }}
        @blur=${(e: FocusEvent) => done(e.target as HTMLInputElement, true)}>`;
  }

  private renderTrash() {
    return html`<h2 id="trash-h">Trash</h2>
      <ul class="trash" aria-labelledby="trash-h">
        ${this.trash.length === 0 ? html`<li class="empty">The trash is empty.</li>` : nothing}
        ${this.trash.map((t) => html`<li data-id=${t.id}>
          <span class="t" title="Deleted ${t.deletedAt}; kept until ${t.expiresAt}">${t.title}</span>
          <button @click=${() => this.fire('restore-session', { id: t.id })}>Restore</button>
        </li>`)}
      </ul>`;
  }

  override updated() {
    const input = this.renderRoot.querySelector<HTMLInputElement>('input.rename');
    if (input && this.renderRoot.querySelector(':focus') !== input) {
      input.focus();
      // All selected, the caret at the start: the field shows the title's beginning, not its end.
      input.setSelectionRange(0, input.value.length, 'backward');
      input.scrollLeft = 0;
    }
  }

  /** A download link leaves the page where it is: the menu closes as after any other item. */
  private closeMenu(e: Event) {
    (e.currentTarget as HTMLElement).closest('details')?.removeAttribute('open');
  }

  private act(e: Event, action: () => void) {
    (e.target as HTMLElement).closest('details')?.removeAttribute('open');
    action();
  }

  private search(text: string) {
    this.query = text;
    clearTimeout(this.searchTimer);
    this.searchTimer = setTimeout(() => this.fire('list-filter', { query: this.query, archived: this.showArchived }), 200);
  }

  private setArchived(on: boolean) {
    this.showArchived = on;
    this.fire('list-filter', { query: this.query, archived: on });
  }

  private setTrash(on: boolean) {
    this.showTrash = on;
    if (on) this.fire('show-trash', {});
  }

  private fire(name: string, detail: object) {
    this.dispatchEvent(new CustomEvent(name, { detail, bubbles: true, composed: true }));
  }

  /** `seq`: the message a search found, shown once the session is open. */
  private open(e: MouseEvent, id: string, seq?: number) {
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return; // let the browser open a tab
    e.preventDefault();
    this.fire('open-session', { id, ...(seq !== undefined && { seq }) });
  }
}
customElements.define('skein-session-list', SkeinSessionList);

/** "3 forks", "2 subtasks", or "1 fork, 2 subtasks" (a subtask is a session a `task` call started). */
function foldLabel(node: SessionNode): string {
  const under = (n: SessionNode): SessionNode[] => n.children.flatMap((c) => [c, ...under(c)]);
  const all = under(node);
  const subtasks = all.filter((n) => n.session.parent).length;
  const forks = all.length - subtasks;
  const words = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  return [forks ? words(forks, 'fork') : '', subtasks ? words(subtasks, 'subtask') : ''].filter(Boolean).join(', ');
}

/** Whether `id` is the node's session or one under it. */
function holds(node: SessionNode, id: string): boolean {
  return node.session.id === id || node.children.some((c) => holds(c, id));
}
