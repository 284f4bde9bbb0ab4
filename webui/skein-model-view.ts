// <skein-model-view>: exactly what the model sees now (GET
// /api/sessions/:id/view): the system prompt, the compaction summary in place
// of what it folded, and the recent messages, as plain text. Refreshed while
// open as the session moves.
import { css, html, LitElement, nothing, type PropertyValues } from 'lit';
import type { ViewMessage } from '../shared/protocol.js';
import { getView } from './api.js';
import { exact } from './format.js';

const LONG = 1200;

export class SkeinModelView extends LitElement {
  static override properties = {
    sessionId: { attribute: false },
    version: { attribute: false },
    messages: { state: true },
    tokens: { state: true },
    error: { state: true },
    open: { state: true },
  };
  declare sessionId: string;
  declare version: number;
  declare messages: ViewMessage[] | undefined;
  declare tokens: number;
  declare error: string;
  declare open: Set<number>;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor() {
    super();
    this.sessionId = '';
    this.version = 0;
    this.tokens = 0;
    this.error = '';
    this.open = new Set();
  }

  static override styles = css`
    :host { display: block; overflow-y: auto; }
    .inner { max-width: 860px; margin: 0 auto; padding: 12px 16px 24px; }
    .head { font-size: 13px; color: var(--muted); margin-bottom: 10px; }
    .head strong { color: var(--fg); }
    article { border: 1px solid var(--border); border-radius: 10px; background: var(--panel); margin: 8px 0; overflow: hidden; }
    article.summary { border-color: var(--accent); box-shadow: inset 3px 0 0 var(--accent); }
    header { font-size: 12px; color: var(--muted); padding: 4px 10px; border-bottom: 1px solid var(--border); display: flex; gap: 8px; }
    .role { font-weight: 700; text-transform: uppercase; letter-spacing: 0.04em; color: var(--fg); }
    pre { margin: 0; padding: 8px 10px; white-space: pre-wrap; overflow-wrap: anywhere; font-family: var(--mono); font-size: 12.5px; }
    button { font: inherit; font-size: 12px; background: none; border: none; color: var(--accent); cursor: pointer; padding: 4px 10px; }
    button:focus-visible { outline: 2px solid var(--accent); }
    .error { color: var(--danger); }
  `;

  override connectedCallback() {
    super.connectedCallback();
    void this.load();
  }

  override disconnectedCallback() {
    super.disconnectedCallback();
    clearTimeout(this.timer);
  }

  protected override updated(changed: PropertyValues<this>) {
    if (changed.has('sessionId') && changed.get('sessionId') !== undefined) void this.load();
    else if (changed.has('version') && changed.get('version') !== undefined) {
      clearTimeout(this.timer);
      this.timer = setTimeout(() => void this.load(), 400);
    }
  }

  private async load() {
    if (!this.sessionId) return;
    try {
      const view = await getView(this.sessionId);
      this.messages = view.messages;
      this.tokens = view.tokens;
      this.error = '';
    } catch (err) {
      this.error = `Could not load the model's view: ${err instanceof Error ? err.message : String(err)}`;
    }
  }

  override render() {
    if (this.error) return html`<div class="inner"><p class="error" role="alert">${this.error}</p></div>`;
    if (!this.messages) return html`<div class="inner"><p class="head">Loading what the model sees…</p></div>`;
    return html`<div class="inner">
      <p class="head" data-testid="view-head">The next request sends <strong>${this.messages.length} messages, about ${exact(this.tokens)} tokens</strong>.
        Folded history appears only as the compaction summary; everything else in the timeline is kept in the log.</p>
      ${this.messages.map((m, i) => this.renderMessage(m, i))}
    </div>`;
  }

  private renderMessage(m: ViewMessage, i: number) {
    const summary = m.role === 'user' && m.content.startsWith('<compacted-history>');
    const limit = m.role === 'system' ? 280 : LONG;
    const long = m.content.length > limit;
    const expanded = this.open.has(i) || !long;
    const shown = expanded ? m.content : `${m.content.slice(0, limit)}…`;
    return html`<article class=${summary ? 'summary' : ''} data-role=${m.role}>
      <header><span class="role">${m.role}</span>${summary ? html`<span>compaction summary</span>` : nothing}
        ${m.toolCallId ? html`<span>result of ${m.toolCallId}</span>` : nothing}</header>
      ${m.content ? html`<pre>${shown}</pre>` : nothing}
      ${m.toolCalls?.map((c) => html`<pre>→ ${c.name} ${JSON.stringify(c.input)}</pre>`)}
      ${long
        ? html`<button aria-expanded=${expanded} @click=${() => this.toggle(i)}>${expanded ? 'Show less' : `Show all ${exact(m.content.length)} characters`}</button>`
        : nothing}
    </article>`;
  }

  private toggle(i: number) {
    const open = new Set(this.open);
    if (open.has(i)) open.delete(i);
    else open.add(i);
    this.open = open;
  }
}
customElements.define('skein-model-view', SkeinModelView);
