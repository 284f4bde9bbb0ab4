// <skein-compaction-divider>: where the model's view was compacted. While it
// runs: a live "Compacting…" row with the trigger and a clock. Then a divider
// with trigger, strategies, tokens before -> after and duration, and the
// summary and the ledger, each expandable.
import { css, html, LitElement, nothing } from 'lit';
import { unsafeHTML } from 'lit/directives/unsafe-html.js';
import type { CompactionEvent } from '../shared/protocol.js';
import { exact, formatDuration, triggerWords } from './format.js';
import { renderMarkdown } from './markdown.js';
import { messageStyles } from './message-styles.js';
import type { CompactionExtras, LedgerView } from './timeline-model.js';

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

export class SkeinCompactionDivider extends LitElement {
  static override properties = {
    event: { attribute: false },
    startedAt: { attribute: false },
    ledger: { attribute: false },
    now: { state: true },
  };
  declare event: CompactionEvent;
  declare startedAt: string;
  declare ledger: LedgerView | undefined;
  declare now: number;
  private ticker: ReturnType<typeof setInterval> | undefined;

  constructor() {
    super();
    this.now = Date.now();
    this.startedAt = '';
  }

  static override styles = [
    messageStyles,
    css`
      :host { margin: 16px 0; }
      .line { display: flex; align-items: center; gap: 10px; color: var(--muted); font-size: 13px; text-align: center; }
      .line::before, .line::after { content: ''; flex: 1 1 24px; border-top: 2px dashed var(--accent); opacity: 0.6; }
      .title { color: var(--fg); font-weight: 600; }
      .live { color: var(--warn); }
      .live::before, .live::after { border-color: var(--warn); }
      .live .spin { display: inline-block; width: 10px; height: 10px; border: 2px solid var(--warn); border-right-color: transparent; border-radius: 50%;
        animation: spin 0.9s linear infinite; vertical-align: -1px; margin-right: 4px; }
      @keyframes spin { to { transform: rotate(360deg); } }
      @media (prefers-reduced-motion: reduce) { .live .spin { animation: none; } }
      .failed { color: var(--danger); }
      .failed::before, .failed::after { border-color: var(--danger); }
      .facts { display: flex; flex-wrap: wrap; justify-content: center; gap: 4px 14px; font-size: 12px; color: var(--muted); margin-top: 4px; }
      .facts b { color: var(--fg); font-weight: 600; }
      .more { display: flex; flex-wrap: wrap; justify-content: center; gap: 4px 16px; margin-top: 2px; }
      details { font-size: 13px; }
      details[open] { flex-basis: 100%; background: var(--panel); border: 1px solid var(--border); border-radius: 10px; padding: 6px 12px; margin-top: 4px; }
      summary { cursor: pointer; color: var(--accent); text-align: center; list-style-position: inside; }
      details[open] summary { text-align: left; margin-bottom: 4px; }
      h4 { margin: 8px 0 2px; font-size: 12px; text-transform: uppercase; letter-spacing: 0.04em; color: var(--muted); }
      ul { margin: 0; padding-left: 18px; }
      li { overflow-wrap: anywhere; }
      .mono { font-family: var(--mono); font-size: 12px; }
    `,
  ];

  override connectedCallback() {
    super.connectedCallback();
    this.ticker = setInterval(() => {
      if (this.event?.phase === 'started' || this.event?.phase === 'queued') this.now = Date.now();
    }, 500);
  }

  override disconnectedCallback() {
    super.disconnectedCallback();
    clearInterval(this.ticker);
  }

  override render() {
    const e = this.event;
    const focus = e.instructions ? html` · focus: “${e.instructions}”` : nothing;
    if (e.phase === 'queued') {
      return html`<div class="line live" role="status"><span>Compaction queued — ${triggerWords(e.trigger)}; it runs at the next safe point${focus}</span></div>`;
    }
    if (e.phase === 'started') {
      const elapsed = Math.max(0, Math.floor((this.now - Date.parse(this.startedAt || e.ts)) / 1000));
      return html`<div class="line live" role="status" data-testid="compacting">
        <span><span class="spin" aria-hidden="true"></span><span class="title">Compacting…</span> ${elapsed} s · ${triggerWords(e.trigger)} (${e.trigger})${focus}</span>
      </div>`;
    }
    if (e.phase === 'failed') {
      return html`<div class="line failed" role="status"><span>Compaction failed (${e.trigger}): ${e.error}${e.fallback && e.fallback !== 'none' ? ` — used ${e.fallback}` : ''}</span></div>`;
    }
    return this.renderFinished(e);
  }

  private renderFinished(e: CompactionEvent) {
    const before = e.tokensBefore ?? 0;
    const after = e.tokensAfter ?? 0;
    const folded = (e.messagesBefore ?? 0) - (e.messagesAfter ?? 0);
    const extras = e as CompactionEvent & CompactionExtras;
    const strategies = extras.strategies?.length ? extras.strategies : e.strategy ? [e.strategy] : [];
    const saved = before > 0 ? Math.round((1 - after / before) * 100) : 0;
    const label = `Context compacted (${e.trigger}): ${exact(before)} → ${exact(after)} tokens`;
    return html`
      <div class="line" role="separator" aria-label=${label}>
        <span><span class="title">Compacted</span> (${e.trigger}${strategies.length ? `, ${strategies.join(' + ')}` : ''}): ${exact(before)} → ${exact(after)} tokens</span>
      </div>
      <div class="facts">
        <span>why: <b>${triggerWords(e.trigger)}</b></span>
        ${before > 0 ? html`<span>saved <b>${saved}%</b></span>` : nothing}
        <span>${folded > 0 ? html`<b>${folded}</b> messages folded` : 'nothing folded'}</span>
        ${e.durationMs !== undefined ? html`<span>took <b>${formatDuration(e.durationMs)}</b></span>` : nothing}
        ${e.coversSeq ? html`<span>covers events ${e.coversSeq[0]}–${e.coversSeq[1]}</span>` : nothing}
        ${extras.keptSeqs?.length ? html`<span class="kept">kept as written: event${extras.keptSeqs.length === 1 ? '' : 's'} ${extras.keptSeqs.join(', ')} (the message being answered)</span>` : nothing}
        ${e.instructions ? html`<span>focus: <b>${e.instructions}</b></span>` : nothing}
      </div>
      <div class="more">
        <details>
          <summary>Summary the model sees now</summary>
          <div class="markdown">${unsafeHTML(renderMarkdown(e.summary ?? ''))}</div>
        </details>
        ${this.ledger ? this.renderLedger(this.ledger) : nothing}
      </div>
    `;
  }

  private renderLedger(l: LedgerView) {
    const list = (items: unknown[], item: (x: never) => unknown) => (items.length ? html`<ul>${items.map((x) => html`<li>${item(x as never)}</li>`)}</ul>` : html`<p>none</p>`);
    const omitted = l.omitted && l.omitted.commands + l.omitted.errors + l.omitted.files > 0
      ? html`<p>${l.omitted.commands} earlier commands, ${l.omitted.errors} errors and ${l.omitted.files} files not listed.</p>`
      : nothing;
    return html`<details>
      <summary>Ledger: ${plural(l.userMessages.length, 'message')}, ${plural(l.commands.length, 'command')}, ${plural(l.errors.length, 'error')}</summary>
      <h4>Your messages</h4>${list(l.userMessages, (m: { seq: number; text: string }) => m.text)}
      <h4>Commands</h4>${list(l.commands, (c: { command: string; status: string }) => html`<span class="mono">${c.command}</span> → ${c.status}`)}
      ${l.filesRead.length ? html`<h4>Files read</h4>${list(l.filesRead, (f: string) => html`<span class="mono">${f}</span>`)}` : nothing}
      ${l.filesWritten.length ? html`<h4>Files written</h4>${list(l.filesWritten, (f: string) => html`<span class="mono">${f}</span>`)}` : nothing}
      ${l.errors.length ? html`<h4>Errors</h4>${list(l.errors, (x: string) => x)}` : nothing}
      ${omitted}
    </details>`;
  }
}
customElements.define('skein-compaction-divider', SkeinCompactionDivider);
