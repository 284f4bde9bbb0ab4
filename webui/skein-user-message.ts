// <skein-user-message>: what the user typed, shown as plain text (never as
// HTML); a long one (a paste) collapsed to a bounded height until opened.
import { css, html, LitElement } from 'lit';
import type { UserEvent } from '../shared/protocol.js';
import { parseCompactCommand } from '../shared/wire/constants.js';
import { messageStyles } from './message-styles.js';
import { collapseStyles, expandButton, isLong } from './long-text.js';

export class SkeinUserMessage extends LitElement {
  static override properties = { event: { attribute: false }, folded: { type: Boolean, reflect: true }, expanded: { type: Boolean } };
  declare event: UserEvent;
  declare folded: boolean;
  /** A long message is shown whole (the timeline keeps which are). */
  declare expanded: boolean;

  constructor() {
    super();
    this.folded = false;
    this.expanded = false;
  }

  static override styles = [
    messageStyles,
    collapseStyles,
    css`
      .body { background: var(--user-bg); border-radius: 14px 14px 4px 14px; padding: 8px 12px; white-space: pre-wrap; overflow-wrap: anywhere;
        margin-left: auto; width: fit-content; max-width: min(85%, 640px); }
      .row { display: flex; flex-direction: column; align-items: flex-end; }
      .command { font-family: var(--mono); font-size: 13px; }
      .images { display: flex; flex-wrap: wrap; gap: 6px; justify-content: flex-end; margin-top: 4px; }
      .images img { display: block; max-height: 180px; max-width: min(85%, 320px); border-radius: 10px; border: 1px solid var(--border); }
      :host([folded]) .body { background: transparent; border: 1px dashed var(--folded-bar); padding-left: 12px; }
    `,
  ];

  override render() {
    const command = parseCompactCommand(this.event.text) !== null;
    const long = isLong(this.event.text);
    return html`<div class="row">
      <div class="who">You${command ? ' · command' : ''}${this.folded ? html`<span class="folded-tag">folded, not seen by the model</span>` : ''}</div>
      ${this.event.text ? html`<div class="body ${command ? 'command' : ''} ${long && !this.expanded ? 'clipped' : ''}">${this.event.text}</div>` : ''}
      ${long ? expandButton(this, this.event.seq, this.event.text, this.expanded) : ''}
      ${this.event.images?.length
        ? html`<div class="images">${this.event.images.map((image, i) => html`<a href=${imageUrl(image.file)} target="_blank" rel="noopener"><img src=${imageUrl(image.file)} alt=${`Image ${i + 1}: ${image.mediaType.slice(6).toUpperCase()}, ${image.width}x${image.height}`} data-testid="message-image" loading="lazy" /></a>`)}</div>`
        : ''}
    </div>`;
  }
}
customElements.define('skein-user-message', SkeinUserMessage);

/**
 * GET /api/sessions/:id/images/:name (the page's cookie carries the access).
 * An image's file is `<sessions>/<id>/images/<name>`: the session that owns it is in its path (a fork's are its own copies).
 */
export function imageUrl(file: string): string {
  const parts = file.split(/[\\/]/);
  return `/api/sessions/${encodeURIComponent(parts.at(-3)!)}/images/${encodeURIComponent(parts.at(-1)!)}`;
}
