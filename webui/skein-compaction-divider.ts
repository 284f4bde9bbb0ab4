// <skein-compaction-divider>: where the model's view was compacted. While it
// runs: a live "Compacting…" row; then trigger, tokens before -> after and the
// summary, expandable.
import { css, html, LitElement } from 'lit';
import type { CompactionEvent } from '../shared/protocol.js';
import { formatDuration, formatTokens } from './format.js';
import { messageStyles } from './message-styles.js';

export class SkeinCompactionDivider extends LitElement {
  static override properties = { event: { attribute: false }, now: { state: true } };
  declare event: CompactionEvent;
  declare now: number;
  private ticker: ReturnType<typeof setInterval> | undefined;

  constructor() {
    super();
    this.now = Date.now();
  }

  static override styles = [
    messageStyles,
    css`
      .line { display: flex; align-items: center; gap: 10px; color: var(--muted); font-size: 13px; }
      .line::before, .line::after { content: ''; flex: 1; border-top: 1px dashed var(--accent); }
      .live { color: var(--warn); }
      .failed { color: var(--danger); }
      details { margin: 4px auto 0; max-width: 90%; font-size: 13px; }
      summary { cursor: pointer; color: var(--accent); text-align: center; }
      pre { white-space: pre-wrap; word-break: break-word; }
    `,
  ];

  override connectedCallback() {
    super.connectedCallback();
    if (this.event?.phase === 'started' || this.event?.phase === 'queued') this.ticker = setInterval(() => (this.now = Date.now()), 500);
  }

  override disconnectedCallback() {
    super.disconnectedCallback();
    clearInterval(this.ticker);
  }

  override render() {
    const e = this.event;
    if (e.phase === 'queued') return html`<div class="line live" role="status">Compaction queued (${e.trigger}) — runs at the next safe point</div>`;
    if (e.phase === 'started') {
      const elapsed = Math.max(0, Math.round((this.now - Date.parse(e.ts)) / 1000));
      return html`<div class="line live" role="status">Compacting… (${e.trigger}, ${elapsed}s)</div>`;
    }
    if (e.phase === 'failed') return html`<div class="line failed" role="status">Compaction failed (${e.trigger}): ${e.error}</div>`;
    const folded = (e.messagesBefore ?? 0) - (e.messagesAfter ?? 0);
    return html`
      <div class="line" role="separator" aria-label="Context compacted">
        Compacted (${e.trigger}${e.strategy ? `, ${e.strategy}` : ''}): ${formatTokens(e.tokensBefore ?? 0)} → ${formatTokens(e.tokensAfter ?? 0)} tokens
        · ${folded > 0 ? `${folded} messages folded` : 'nothing folded'}${e.durationMs !== undefined ? ` · ${formatDuration(e.durationMs)}` : ''}
      </div>
      <details>
        <summary>Summary the model sees now</summary>
        <pre>${e.summary}</pre>
      </details>
    `;
  }
}
customElements.define('skein-compaction-divider', SkeinCompactionDivider);
