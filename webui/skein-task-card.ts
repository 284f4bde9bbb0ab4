// <skein-task-card>: inside the card of a `task` tool call, the child session
// it started, live: its agent and state, its context gauge (tokens of its
// window), its last step, the time it has taken, its tokens and cost, and a
// link that opens it. The live numbers come from the list socket's copy of
// the child (session-directory.ts); once it has finished, from the parent's
// `subagent` event when the child is not listed (deleted, archived). A call
// of the child's waiting for approval is shown and answered here too (the
// approval card's frame, with the child's callId, goes through this parent's
// socket and the server passes it down); once decided, how it was.
import { css, html, LitElement, nothing } from 'lit';
import type { ListedSession, SubagentEvent, ToolCallEvent, ToolResultEvent } from '../shared/protocol.js';
import { decisionWords } from './approval-words.js';
import { childDecision, waitingRequest } from './child-approval.js';
import { exact, formatCost, formatDuration, formatTokens, STATE_WORDS } from './format.js';
import { gaugeFill } from './gauge-fill.js';
import { onSessions, sessionById } from './session-directory.js';
import './skein-approval-card.js';
import { styleProps } from './style-props.js';

const OUTCOME_WORDS: Record<NonNullable<SubagentEvent['outcome']>, string> = {
  answered: 'answered',
  error: 'failed',
  cancelled: 'cancelled',
  interrupted: 'interrupted by a restart',
};

export class SkeinTaskCard extends LitElement {
  static override properties = {
    call: { attribute: false },
    result: { attribute: false },
    subagent: { attribute: false },
    childApproval: { attribute: false },
    child: { state: true },
    now: { state: true },
  };
  declare call: ToolCallEvent;
  declare result: ToolResultEvent | undefined;
  /** The latest `subagent` event of this call (absent until the child exists). */
  declare subagent: SubagentEvent | undefined;
  /** The child's latest approval (phase `approval` or `approval_decision`), kept while later events come. */
  declare childApproval: SubagentEvent | undefined;
  declare child: ListedSession | undefined;
  declare now: number;
  private ticker: ReturnType<typeof setInterval> | undefined;
  private unsubscribe: (() => void) | undefined;

  constructor() {
    super();
    this.now = Date.now();
  }

  static override styles = css`
    :host { display: block; padding: 6px 10px; border-bottom: 1px solid var(--border); font-size: 13px; }
    .line { display: flex; flex-wrap: wrap; gap: 4px 10px; align-items: baseline; }
    .agent { font-weight: 600; }
    .desc { flex: 1 1 160px; min-width: 0; overflow-wrap: anywhere; }
    .state { color: var(--muted); font-size: 12px; }
    .state.busy { color: var(--warn); }
    .meter { height: 6px; border-radius: 3px; background: var(--code-bg); border: 1px solid var(--border); margin: 6px 0 2px; overflow: hidden; }
    .fill { height: 100%; background: var(--seg-input); }
    .muted { color: var(--muted); font-size: 12px; }
    .step { font-family: var(--mono); font-size: 12px; overflow-wrap: anywhere; margin: 2px 0; }
    a { color: var(--accent); font-size: 12px; }
    skein-approval-card { display: block; margin: 6px -10px 0; }
    .decision { font-size: 12px; color: var(--muted); margin: 4px 0 2px; }
    .decision.denied { color: var(--danger); }
  `;

  override connectedCallback() {
    super.connectedCallback();
    this.unsubscribe = onSessions(() => this.follow());
    this.follow();
    this.ticker = setInterval(() => {
      if (this.result) clearInterval(this.ticker);
      else this.now = Date.now();
    }, 1000);
  }

  override disconnectedCallback() {
    super.disconnectedCallback();
    this.unsubscribe?.();
    clearInterval(this.ticker);
  }

  override willUpdate(changed: Map<string, unknown>) {
    if (changed.has('subagent')) this.follow();
  }

  private follow() {
    const id = this.subagent?.child;
    this.child = id ? sessionById(id) : undefined;
  }

  override render() {
    const { call, result, subagent, child } = this;
    const description = typeof call.input.description === 'string' ? call.input.description : '';
    const agent = subagent?.agent ?? (typeof call.input.agent === 'string' && call.input.agent ? call.input.agent : 'general');
    const finished = subagent?.phase === 'finished' ? subagent : undefined;
    const busy = !finished && !result;
    const state = finished?.outcome ? OUTCOME_WORDS[finished.outcome] : !subagent ? (result ? 'did not start' : 'starting…') : child ? STATE_WORDS[child.state] : 'running';
    const startedAt = Date.parse(call.ts); // (the latest subagent event may be the finished one)
    const endedAt = finished ? Date.parse(finished.ts) : result ? Date.parse(result.ts) : this.now;
    const tokens = child?.gauge.totalTokens ?? finished?.tokens ?? 0;
    const cost = child?.gauge.totalCostUsd ?? finished?.costUsd ?? 0;
    const gauge = child?.gauge;
    // Only while the child can still wait: a finished child's call was decided (by the cancel, at least).
    const waiting = busy ? waitingRequest(this.childApproval) : undefined;
    const decided = childDecision(this.childApproval);
    return html`<section data-testid="task-card" data-child=${subagent?.child ?? ''} aria-label="Subtask: ${description}">
      <div class="line">
        <span class="agent">${agent} agent</span><span class="desc">${description}</span>
        <span class="state ${busy ? 'busy' : ''}" data-testid="task-state" role="status">${state}</span>
      </div>
      ${gauge
        ? html`<div class="meter" role="meter" aria-label="Context window of the subtask" aria-valuemin="0" aria-valuemax=${gauge.contextWindow} aria-valuenow=${gauge.contextTokens}
              aria-valuetext="${exact(gauge.contextTokens)} of ${exact(gauge.contextWindow)} tokens in context"><div class="fill" style=${styleProps({ width: `${Math.min(100, gauge.ratio * 100)}%` })}></div></div>
            <div class="muted" data-testid="task-gauge">${formatTokens(gauge.contextTokens)} / ${formatTokens(gauge.contextWindow)} tokens in its context (${gaugeFill(gauge).share})</div>`
        : nothing}
      ${child?.step ? html`<div class="step" data-testid="task-step" title="Its last step">${child.step}</div>` : nothing}
      <div class="line muted">
        <span data-testid="task-numbers">${formatDuration(Math.max(0, endedAt - startedAt))} · ${formatTokens(tokens)} tokens · ${formatCost(cost)}</span>
        ${subagent ? html`<a href="/s/${subagent.child}" data-testid="task-open" @click=${this.open}>Open the subtask’s session</a>` : nothing}
      </div>
      ${waiting ? html`<skein-approval-card data-testid="task-approval" .request=${waiting}></skein-approval-card>` : nothing}
      ${decided
        ? html`<div class="decision ${decided.decision === 'deny' ? 'denied' : ''}" data-testid="task-approval-decision" role="status">${decided.name} in the subtask: ${decisionWords(decided)}</div>`
        : nothing}
    </section>`;
  }

  private open = (e: MouseEvent) => {
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey || !this.subagent) return; // a new tab: the browser's
    e.preventDefault();
    this.dispatchEvent(new CustomEvent('open-session', { detail: { id: this.subagent.child }, bubbles: true, composed: true }));
  };
}
customElements.define('skein-task-card', SkeinTaskCard);
