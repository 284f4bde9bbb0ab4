// <skein-error-message>: a failed turn, in plain words with its code; on the
// latest failed turn a Retry button (the app sends the turn's message again:
// retry.ts).
import { css, html, LitElement, nothing } from 'lit';
import type { ErrorEvent } from '../shared/protocol.js';
import { messageStyles } from './message-styles.js';

const HINTS: Record<string, string> = {
  context_overflow: 'The request did not fit the model\'s window even after compacting. Try /compact, or a shorter message.',
  interrupted: 'The server restarted during this turn. Send your message again to carry on.',
  turn_limit: 'The turn reached its limit; nothing is lost. Say "continue" to go on.',
  log_write_failed: 'The session log could not be written (disk full?). Once there is space, send your message again.',
  damaged_log_line: 'A line of the session log was damaged; the rest of the session loaded.',
};

export class SkeinErrorMessage extends LitElement {
  static override properties = { event: { attribute: false }, retryable: { type: Boolean }, sent: { state: true } };
  declare event: ErrorEvent;
  /** The latest failed turn: Retry sends its message again. */
  declare retryable: boolean;
  /** Retry was pressed: not twice for one failure. */
  declare sent: boolean;

  constructor() {
    super();
    this.retryable = false;
    this.sent = false;
  }

  static override styles = [
    messageStyles,
    css`
      .body { border-left: 3px solid var(--danger); padding: 6px 10px; background: var(--danger-bg); border-radius: 6px; overflow-wrap: anywhere; }
      /* Only the provider's own text keeps its line breaks; the template's indentation is not shown. */
      .message { white-space: pre-wrap; }
      .hint { color: var(--muted); font-size: 13px; margin-top: 2px; }
      .actions { margin-top: 6px; }
      .retry { font: inherit; font-size: 13px; padding: 2px 12px; border-radius: 6px; border: 1px solid var(--danger); background: var(--panel); color: var(--fg); cursor: pointer; }
      .retry:disabled { opacity: 0.6; cursor: default; }
      code { font-size: 12px; }
    `,
  ];

  private retry() {
    this.sent = true;
    this.dispatchEvent(new CustomEvent('retry', { detail: { seq: this.event.seq }, bubbles: true, composed: true }));
  }

  override render() {
    const { code } = this.event;
    const message = this.event.message.trim();
    const hint = code ? (HINTS[code] ?? (code.startsWith('provider_') ? `The provider failed; the turn stopped.${this.retryable ? '' : ' Send again to retry.'}` : '')) : '';
    // No whitespace between the tags: every character of this template would show.
    return html`<div class="body" role="alert"><div><strong>Error</strong>${code ? html` <code>${code}</code>` : nothing}: <span class="message">${message}</span></div>${hint
      ? html`<div class="hint">${hint}</div>`
      : nothing}${this.retryable
      ? html`<div class="actions"><button class="retry" ?disabled=${this.sent} @click=${() => this.retry()} title="Send this turn's message again">${this.sent ? 'Sending…' : 'Retry'}</button></div>`
      : nothing}</div>`;
  }
}
customElements.define('skein-error-message', SkeinErrorMessage);
