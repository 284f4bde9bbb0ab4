// <skein-agent-message>: the model's answer, markdown rendered and sanitised,
// code highlighted with a copy button; while streaming, the text so far.
// A reasoning model's thinking (or summary) sits above it, collapsed. A long
// answer is cut to a bounded height until opened (not while it streams).
import { css, html, LitElement, type PropertyValues } from 'lit';
import { unsafeHTML } from 'lit/directives/unsafe-html.js';
import type { AgentEvent } from '../shared/protocol.js';
import { copyText } from './copy.js';
import { exact, formatCost } from './format.js';
import { renderMarkdown, renderMarkdownOnce } from './markdown.js';
import { messageStyles } from './message-styles.js';
import { collapseStyles, expandButton, isLong } from './long-text.js';

export class SkeinAgentMessage extends LitElement {
  static override properties = {
    event: { attribute: false },
    folded: { type: Boolean, reflect: true },
    streaming: { type: Boolean, reflect: true },
    thinking: { attribute: false },
    expanded: { type: Boolean },
  };
  declare event: AgentEvent;
  declare folded: boolean;
  declare streaming: boolean;
  /** While streaming: the thinking so far (a logged answer has it in event.reasoning). */
  declare thinking: string;
  /** A long answer is shown whole (the timeline keeps which are). */
  declare expanded: boolean;

  constructor() {
    super();
    this.folded = false;
    this.expanded = false;
    this.streaming = false;
    this.thinking = '';
  }

  static override styles = [
    messageStyles,
    collapseStyles,
    css`
      .copy { position: absolute; top: 4px; right: 4px; opacity: 0; background: var(--panel); }
      pre.code:hover .copy, .copy:focus-visible { opacity: 1; }
      pre.code:hover .lang { visibility: hidden; }
      :host([streaming]) .body::after { content: '▍'; color: var(--accent); animation: blink 1s steps(2) infinite; }
      @keyframes blink { 50% { opacity: 0; } }
      details.thinking { margin: 2px 0 6px; color: var(--muted); font-size: 13px; }
      details.thinking summary { cursor: pointer; user-select: none; }
      details.thinking .text { white-space: pre-wrap; border-left: 2px solid var(--border); padding-left: 8px; margin-top: 4px; }
    `,
  ];

  override render() {
    const e = this.event;
    const u = e.usage;
    const usage = u
      ? `${exact(u.input + u.cacheRead + u.cacheWrite)} tokens in (${exact(u.cacheRead)} cache read, ${exact(u.cacheWrite)} cache write, ${exact(u.input)} uncached), ${exact(u.output)} out, ${formatCost(u.costUsd)}`
      : '';
    const long = !this.streaming && isLong(e.text);
    const time = e.ts ? new Date(e.ts).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' }) : '';
    return html`
      <div class="who"><span>${e.model}${this.streaming ? ' · writing…' : ''}</span>
        ${u ? html`<span title=${usage}>· ${exact(u.input + u.cacheRead + u.cacheWrite)} in / ${exact(u.output)} out</span>` : ''}
        ${time ? html`<span>· ${time}</span>` : ''}
        ${u?.reasoning ? html`<span title="Tokens spent thinking (billed as output)">· ${exact(u.reasoning)} thinking</span>` : ''}
        ${this.folded ? html`<span class="folded-tag">folded, not seen by the model</span>` : ''}</div>
      ${this.renderThinking()}
      <div class="body markdown ${long && !this.expanded ? 'clipped' : ''}">${unsafeHTML(this.streaming ? renderMarkdownOnce(e.text) : renderMarkdown(e.text))}</div>
      ${long ? expandButton(this, e.seq, e.text, this.expanded) : ''}
    `;
  }

  /** The thinking, collapsed: its readable text or summary, or "redacted" when the provider encrypted it. */
  private renderThinking() {
    const r = this.event.reasoning;
    const text = this.streaming ? this.thinking : (r?.text ?? '');
    if (!text && !r?.redacted) return '';
    const label = !text ? 'Thinking (redacted)' : r?.redacted ? 'Thinking (partly redacted)' : 'Thinking';
    return html`<details class="thinking"><summary>${label}${this.streaming && !this.event.text ? '…' : ''}</summary>${text ? html`<div class="text">${text}</div>` : ''}</details>`;
  }

  protected override updated(_changed: PropertyValues<this>) {
    // A copy button on each code block, added as a node: it is not part of the sanitised HTML.
    for (const pre of this.renderRoot.querySelectorAll('pre.code')) {
      if (pre.querySelector(':scope > .copy')) continue;
      const button = document.createElement('button');
      button.className = 'icon-btn copy';
      button.textContent = 'Copy';
      button.setAttribute('aria-label', 'Copy code');
      button.addEventListener('click', async () => {
        const ok = await copyText(pre.querySelector('code')?.textContent ?? '');
        button.textContent = ok ? 'Copied' : 'Copy failed';
        setTimeout(() => (button.textContent = 'Copy'), 1500);
      });
      pre.append(button);
    }
  }
}
customElements.define('skein-agent-message', SkeinAgentMessage);
