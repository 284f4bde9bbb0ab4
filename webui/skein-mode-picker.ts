// <skein-mode-picker>: the session's approval mode (shared/modes.ts), beside
// the message box. Only the user switches it (PUT /api/sessions/:id/mode);
// a switch while a call waits decides that call again under the new mode.
// Each option's selectedness is set as a property checked against the DOM
// (live): a `selected` attribute does not move an option the user has picked
// before, so a switch made in another tab back to it would not show.
import { css, html, LitElement } from 'lit';
import { live } from 'lit/directives/live.js';
import { MODE_INFO, modeLabel } from '../shared/modes.js';
import { modePickerTitle } from './mode-words.js';

export class SkeinModePicker extends LitElement {
  static override properties = { mode: { attribute: false } };
  /** The session's mode (empty: not known yet). */
  declare mode: string;

  constructor() {
    super();
    this.mode = '';
  }

  static override styles = css`
    :host { display: inline-flex; align-items: center; gap: 4px; min-width: 0; font-size: 12px; color: var(--muted); }
    select { font: inherit; font-size: 12px; padding: 2px 4px; border-radius: 6px; border: 1px solid var(--border); background: var(--panel); color: var(--fg); max-width: 100%; }
    select.plan { border-color: var(--accent); font-weight: 600; }
    select:focus-visible { outline: 2px solid var(--accent); outline-offset: 1px; }
  `;

  override render() {
    if (!this.mode) return html``;
    return html`<select aria-label="Approval mode" class=${this.mode} title=${modePickerTitle(this.mode)} @change=${this.onChange}>
      ${MODE_INFO.map((m) => html`<option value=${m.id} .selected=${live(m.id === this.mode)}>${modeLabel(m)}</option>`)}
    </select>`;
  }

  private onChange(e: Event) {
    const mode = (e.target as HTMLSelectElement).value;
    if (mode !== this.mode) this.dispatchEvent(new CustomEvent('switch-mode', { detail: { mode }, bubbles: true, composed: true }));
  }
}
customElements.define('skein-mode-picker', SkeinModePicker);
