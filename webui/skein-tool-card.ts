// <skein-tool-card>: one tool call and its result; long output collapsed.
import { css, html, LitElement } from 'lit';
import type { ToolCallEvent, ToolResultEvent } from '../shared/protocol.js';
import { formatDuration } from './format.js';
import { messageStyles } from './message-styles.js';

const PREVIEW_LINES = 8;

export class SkeinToolCard extends LitElement {
  static override properties = {
    call: { attribute: false },
    result: { attribute: false },
    folded: { type: Boolean, reflect: true },
    expanded: { state: true },
  };
  declare call: ToolCallEvent;
  declare result: ToolResultEvent | undefined;
  declare folded: boolean;
  declare expanded: boolean;

  constructor() {
    super();
    this.expanded = false;
  }

  static override styles = [
    messageStyles,
    css`
      .body { border: 1px solid var(--border); border-radius: 10px; background: var(--panel); overflow: hidden; }
      header { display: flex; gap: 8px; align-items: baseline; padding: 6px 10px; border-bottom: 1px solid var(--border); font-size: 13px; }
      .name { font-weight: 600; }
      .cmd { font-family: var(--mono); white-space: pre-wrap; word-break: break-all; flex: 1; }
      .status { font-size: 12px; white-space: nowrap; }
      .ok { color: var(--ok); } .err { color: var(--danger); } .running { color: var(--warn); }
      pre { margin: 0; border-radius: 0; max-height: 60vh; overflow: auto; white-space: pre-wrap; word-break: break-word; }
      button { font: inherit; font-size: 12px; background: none; border: none; color: var(--accent); cursor: pointer; padding: 4px 10px; }
    `,
  ];

  override render() {
    const { call, result } = this;
    const summary = typeof call.input.command === 'string' ? call.input.command : typeof call.input.path === 'string' ? call.input.path : JSON.stringify(call.input);
    const lines = result?.output.split('\n') ?? [];
    const long = lines.length > PREVIEW_LINES;
    const shown = long && !this.expanded ? lines.slice(0, PREVIEW_LINES).join('\n') : (result?.output ?? '');
    const status = !result
      ? html`<span class="status running">running…</span>`
      : html`<span class="status ${result.isError ? 'err' : 'ok'}">${result.isError ? 'failed' : 'ok'} · ${formatDuration(result.durationMs)}</span>`;
    return html`
      <div class="who">tool${this.folded ? html`<span class="folded-tag">· folded, not seen by the model</span>` : ''}</div>
      <div class="body">
        <header><span class="name">${call.name}</span><span class="cmd">${summary}</span>${status}</header>
        ${result ? html`<pre>${shown}</pre>` : ''}
        ${long ? html`<button @click=${() => (this.expanded = !this.expanded)} aria-expanded=${this.expanded}>
              ${this.expanded ? 'Show less' : `Show all ${lines.length} lines`}</button>` : ''}
      </div>
    `;
  }
}
customElements.define('skein-tool-card', SkeinToolCard);
