// <skein-agent-message>: the model's answer, markdown rendered and sanitised.
import { html, LitElement } from 'lit';
import { unsafeHTML } from 'lit/directives/unsafe-html.js';
import type { AgentEvent } from '../shared/protocol.js';
import { renderMarkdown } from './markdown.js';
import { messageStyles } from './message-styles.js';

export class SkeinAgentMessage extends LitElement {
  static override properties = { event: { attribute: false }, folded: { type: Boolean, reflect: true } };
  declare event: AgentEvent;
  declare folded: boolean;

  static override styles = [messageStyles];

  override render() {
    const e = this.event;
    const usage = e.usage ? ` · ${(e.usage.input + e.usage.cacheRead + e.usage.cacheWrite).toLocaleString('en-US')} in / ${e.usage.output.toLocaleString('en-US')} out` : '';
    return html`
      <div class="who">${e.model}${usage}${this.folded ? html`<span class="folded-tag">· folded, not seen by the model</span>` : ''}</div>
      <div class="body markdown">${unsafeHTML(renderMarkdown(e.text))}</div>
    `;
  }
}
customElements.define('skein-agent-message', SkeinAgentMessage);
