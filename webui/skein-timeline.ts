// <skein-timeline>: the event log, rendered. Tool calls are paired with their
// results; messages folded by a compaction stay readable but are marked.
import { css, html, LitElement, nothing, type PropertyValues } from 'lit';
import { repeat } from 'lit/directives/repeat.js';
import type { AgentState, CompactionEvent, SkeinEvent, ToolResultEvent } from '../shared/protocol.js';
import './skein-agent-message.js';
import './skein-compaction-divider.js';
import './skein-error-message.js';
import './skein-tool-card.js';
import './skein-user-message.js';

const STATE_TEXT: Partial<Record<AgentState, string>> = {
  SendingToLLM: 'Waiting for the model…',
  ProcessingLLMResponse: 'Reading the answer…',
  RunningTools: 'Running tools…',
  Compacting: 'Compacting the context…',
};

export class SkeinTimeline extends LitElement {
  static override properties = {
    events: { attribute: false },
    state: { attribute: false },
    atBottom: { state: true },
  };
  declare events: SkeinEvent[];
  declare state: AgentState;
  declare atBottom: boolean;

  constructor() {
    super();
    this.events = [];
    this.state = 'WaitingForUserInput';
    this.atBottom = true;
  }

  static override styles = css`
    :host { display: block; position: relative; overflow-y: auto; overflow-anchor: none; }
    .inner { max-width: 860px; margin: 0 auto; padding: 12px 16px 24px; }
    .working { color: var(--muted); font-size: 13px; margin: 8px 0; }
    .working::before { content: ''; display: inline-block; width: 8px; height: 8px; margin-right: 6px; border-radius: 50%; background: var(--warn); animation: pulse 1s infinite alternate; }
    @keyframes pulse { from { opacity: 0.3; } to { opacity: 1; } }
    .empty { color: var(--muted); text-align: center; margin-top: 20vh; }
    .jump { position: sticky; bottom: 12px; display: block; margin: 0 auto; font: inherit; font-size: 13px; padding: 6px 14px; border-radius: 16px;
      border: 1px solid var(--border); background: var(--panel); color: var(--fg); cursor: pointer; box-shadow: 0 2px 8px rgb(0 0 0 / 0.15); }
  `;

  override connectedCallback() {
    super.connectedCallback();
    this.addEventListener('scroll', this.onScroll, { passive: true });
  }

  override disconnectedCallback() {
    super.disconnectedCallback();
    this.removeEventListener('scroll', this.onScroll);
  }

  private onScroll = () => {
    this.atBottom = this.scrollHeight - this.scrollTop - this.clientHeight < 40;
  };

  scrollToLatest() {
    this.scrollTop = this.scrollHeight;
    this.atBottom = true;
  }

  protected override updated(changed: PropertyValues<this>) {
    if (changed.has('events') && this.atBottom) this.scrollTop = this.scrollHeight;
  }

  override render() {
    const results = new Map<string, ToolResultEvent>();
    const folded: [number, number][] = [];
    const terminalAfter = new Set<number>(); // seqs of compaction rows superseded by a later phase
    let lastOpen: CompactionEvent | undefined;
    for (const e of this.events) {
      if (e.kind === 'tool_result') results.set(e.callId, e);
      if (e.kind === 'compaction') {
        if (lastOpen) terminalAfter.add(lastOpen.seq);
        lastOpen = e.phase === 'queued' || e.phase === 'started' ? e : undefined;
        if (e.phase === 'finished' && e.coversSeq) folded.push(e.coversSeq);
      }
    }
    const isFolded = (seq: number) => folded.some(([a, b]) => seq >= a && seq <= b);
    const rows = this.events.filter(
      (e) => e.kind === 'user' || e.kind === 'agent' || e.kind === 'tool_call' || e.kind === 'error' || (e.kind === 'compaction' && !terminalAfter.has(e.seq)),
    );
    const working = STATE_TEXT[this.state];
    return html`<div class="inner">
      ${rows.length === 0 ? html`<p class="empty">Say something to start. Try <code>bash: ls</code>, or just hello.</p>` : nothing}
      ${repeat(rows, (e) => e.seq, (e) => {
        switch (e.kind) {
          case 'user':
            return html`<skein-user-message .event=${e} ?folded=${isFolded(e.seq)}></skein-user-message>`;
          case 'agent':
            return e.text.trim() ? html`<skein-agent-message .event=${e} ?folded=${isFolded(e.seq)}></skein-agent-message>` : nothing;
          case 'tool_call':
            return html`<skein-tool-card .call=${e} .result=${results.get(e.callId)} ?folded=${isFolded(e.seq)}></skein-tool-card>`;
          case 'compaction':
            return html`<skein-compaction-divider id="compaction-${e.seq}" .event=${e}></skein-compaction-divider>`;
          case 'error':
            return html`<skein-error-message .event=${e}></skein-error-message>`;
          default:
            return nothing;
        }
      })}
      ${working ? html`<div class="working" role="status">${working}</div>` : nothing}
      ${this.atBottom ? nothing : html`<button class="jump" @click=${() => this.scrollToLatest()}>Jump to latest ↓</button>`}
    </div>`;
  }
}
customElements.define('skein-timeline', SkeinTimeline);
