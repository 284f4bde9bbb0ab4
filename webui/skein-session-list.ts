// <skein-session-list>: every session with its title (the first user message)
// and last activity, most recent first; real links to /s/<id>, so a session
// can be opened in a new tab or bookmarked.
import { css, html, LitElement } from 'lit';
import type { SessionSnapshot } from '../shared/protocol.js';
import { STATE_WORDS, timeAgo } from './format.js';

export class SkeinSessionList extends LitElement {
  static override properties = { sessions: { attribute: false }, current: { attribute: false } };
  declare sessions: SessionSnapshot[];
  declare current: string;

  constructor() {
    super();
    this.sessions = [];
    this.current = '';
  }

  static override styles = css`
    :host { display: flex; flex-direction: column; min-height: 0; }
    .new { margin: 10px 12px; font: inherit; font-size: 14px; font-weight: 600; padding: 8px 12px; border-radius: 10px; cursor: pointer;
      border: 1px solid var(--accent); background: var(--accent); color: var(--accent-fg); }
    .new:focus-visible, a:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
    h2 { font-size: 12px; text-transform: uppercase; letter-spacing: 0.05em; color: var(--muted); margin: 6px 16px 4px; }
    ul { list-style: none; margin: 0; padding: 0 8px 12px; overflow-y: auto; flex: 1; }
    a { display: block; padding: 7px 10px; border-radius: 8px; color: var(--fg); text-decoration: none; }
    a:hover { background: var(--code-bg); }
    a[aria-current='page'] { background: var(--user-bg); }
    .title { display: block; font-size: 14px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
    .meta { display: block; font-size: 12px; color: var(--muted); white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
    .busy { color: var(--warn); }
  `;

  override render() {
    return html`
      <button class="new" @click=${() => this.dispatchEvent(new CustomEvent('new-session', { bubbles: true, composed: true }))}>+ New session</button>
      <h2 id="sessions-h">Sessions</h2>
      <ul aria-labelledby="sessions-h">
        ${this.sessions.map(
          (s) => html`<li>
            <a href="/s/${s.id}" aria-current=${s.id === this.current ? 'page' : 'false'} data-id=${s.id} @click=${(e: MouseEvent) => this.open(e, s.id)}>
              <span class="title">${s.title}</span>
              <span class="meta">${timeAgo(s.lastActivity)} · ${s.model}${s.state !== 'WaitingForUserInput'
                ? html` · <span class="busy">${STATE_WORDS[s.state]}</span>` : ''}</span>
            </a>
          </li>`,
        )}
      </ul>
    `;
  }

  private open(e: MouseEvent, id: string) {
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return; // let the browser open a tab
    e.preventDefault();
    this.dispatchEvent(new CustomEvent('open-session', { detail: { id }, bubbles: true, composed: true }));
  }
}
customElements.define('skein-session-list', SkeinSessionList);
