// <skein-user-message>: what the user typed, shown as plain text.
import { css, html, LitElement } from 'lit';
import type { UserEvent } from '../shared/protocol.js';
import { messageStyles } from './message-styles.js';

export class SkeinUserMessage extends LitElement {
  static override properties = { event: { attribute: false }, folded: { type: Boolean, reflect: true } };
  declare event: UserEvent;
  declare folded: boolean;

  static override styles = [
    messageStyles,
    css`
      .body { background: var(--user-bg); border-radius: 12px; padding: 8px 12px; white-space: pre-wrap; word-break: break-word; margin-left: auto; width: fit-content; max-width: 85%; }
      .row { display: flex; flex-direction: column; align-items: flex-end; }
    `,
  ];

  override render() {
    return html`<div class="row">
      <div class="who">You${this.folded ? html`<span class="folded-tag">· folded, not seen by the model</span>` : ''}</div>
      <div class="body">${this.event.text}</div>
    </div>`;
  }
}
customElements.define('skein-user-message', SkeinUserMessage);
