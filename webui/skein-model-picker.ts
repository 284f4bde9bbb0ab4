// <skein-model-picker>: the session's model, switchable to any model of the
// server's model table (GET /api/models). Against a server that cannot list
// or switch models it shows the current model only. Beside it, the session's
// reasoning effort, for a model that reasons.
import { css, html, LitElement } from 'lit';
import { live } from 'lit/directives/live.js';
import type { ModelChoice } from './api.js';
import { exact } from './format.js';

export class SkeinModelPicker extends LitElement {
  static override properties = {
    models: { attribute: false },
    current: { attribute: false },
    busy: { attribute: false },
    effort: { attribute: false },
    efforts: { attribute: false },
  };
  declare models: ModelChoice[];
  declare current: string;
  declare busy: boolean;
  /** The session's reasoning effort (`default`: the provider's). */
  declare effort: string;
  /** The efforts the current model accepts as its provider said them (undefined: the model table's, from `models`). */
  declare efforts: string[] | undefined;

  constructor() {
    super();
    this.models = [];
    this.current = '';
    this.busy = false;
    this.effort = 'default';
  }

  static override styles = css`
    :host { display: inline-block; min-width: 0; }
    /* As wide as the chosen option, not the longest one (the header has other things to show); never narrower than it. */
    select { font: inherit; font-size: 13px; padding: 4px 6px; border-radius: 8px; border: 1px solid var(--border); background: var(--panel); color: var(--fg);
      field-sizing: content; }
    select:focus-visible { outline: 2px solid var(--accent); outline-offset: 1px; }
    .plain { font-size: 13px; color: var(--muted); }
    @media (max-width: 600px) { select { font-size: 12px; padding: 3px 4px; } }
  `;

  override render() {
    if (this.models.length === 0) return html`<span class="plain" title="This server does not offer other models">${this.current}</span>`;
    const names = this.models.some((m) => m.name === this.current) ? this.models : [{ name: this.current, available: true }, ...this.models];
    const windows = names.filter((m) => m.contextWindow).map((m) => `${m.name}: ${exact(m.contextWindow!)} tokens`).join('\n');
    const title = `${this.busy ? 'Switch model (applies at the next safe point)' : 'Switch model'}${windows ? `\n${windows}` : ''}`;
    const efforts = this.efforts ?? names.find((m) => m.name === this.current)?.efforts;
    return html`<select aria-label="Model" title=${title} @change=${this.onChange}>
      ${names.map((m) => html`<option value=${m.name} .selected=${live(m.name === this.current)} ?disabled=${!m.available}>
        ${m.name}${m.available ? '' : ` (${m.note ?? 'unavailable'})`}</option>`)}
    </select>${efforts?.length
      ? html` <select aria-label="Reasoning effort" title="How hard the model thinks (applies at the next safe point)" @change=${this.onEffort}>
          ${['default', ...efforts].map((e) => html`<option value=${e} .selected=${live(e === this.effort)}>${e === 'default' ? 'effort: default' : `effort: ${e}`}</option>`)}
        </select>`
      : ''}`;
  }

  private onEffort(e: Event) {
    const effort = (e.target as HTMLSelectElement).value;
    if (effort !== this.effort) this.dispatchEvent(new CustomEvent('switch-model', { detail: { model: this.current, effort }, bubbles: true, composed: true }));
  }

  private onChange(e: Event) {
    const model = (e.target as HTMLSelectElement).value;
    if (model !== this.current) this.dispatchEvent(new CustomEvent('switch-model', { detail: { model }, bubbles: true, composed: true }));
  }
}
customElements.define('skein-model-picker', SkeinModelPicker);
