// <skein-user-message>: what the user typed, shown as plain text (never as HTML).
import { css, html, LitElement } from 'lit';
import type { UserEvent } from '../shared/protocol.js';
import { parseCompactCommand } from '../shared/wire/constants.js';
import { messageStyles } from './message-styles.js';

export class SkeinUserMessage extends LitElement {
  static override properties = { event: { attribute: false }, folded: { type: Boolean, reflect: true } };
  declare event: UserEvent;
  declare folded: boolean;

  constructor() {
    super();
    this.folded = false;
  }

  static override styles = [
    messageStyles,
    css`
      .body { background: var(--user-bg); border-radius: 14px 14px 4px 14px; padding: 8px 12px; white-space: pre-wrap; overflow-wrap: anywhere;
        margin-left: auto; width: fit-content; max-width: min(85%, 640px); }
      .row { display: flex; flex-direction: column; align-items: flex-end; }
      .command { font-family: var(--mono); font-size: 13px; }
      :host([folded]) .body { background: transparent; border: 1px dashed var(--folded-bar); padding-left: 12px; }
    `,
  ];

  override render() {
    const command = parseCompactCommand(this.event.text) !== null;
    return html`<div class="row">
      <div class="who">You${command ? ' · command' : ''}${this.folded ? html`<span class="folded-tag">folded, not seen by the model</span>` : ''}</div>
      <div class="body ${command ? 'command' : ''}">${this.event.text}</div>
    </div>`;
  }
}
customElements.define('skein-user-message', SkeinUserMessage);
