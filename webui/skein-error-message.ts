// <skein-error-message>: a failed turn or a refused frame, in plain words.
import { css, html, LitElement } from 'lit';
import type { ErrorEvent } from '../shared/protocol.js';
import { messageStyles } from './message-styles.js';

export class SkeinErrorMessage extends LitElement {
  static override properties = { event: { attribute: false } };
  declare event: ErrorEvent;

  static override styles = [
    messageStyles,
    css`.body { border-left: 3px solid var(--danger); padding: 6px 10px; background: var(--panel); border-radius: 6px; white-space: pre-wrap; }`,
  ];

  override render() {
    return html`<div class="body" role="alert"><strong>Error${this.event.code ? ` (${this.event.code})` : ''}:</strong> ${this.event.message}</div>`;
  }
}
customElements.define('skein-error-message', SkeinErrorMessage);
