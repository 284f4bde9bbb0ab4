// <skein-plan>: the agent's latest plan (update_plan), pinned above the chat
// box: each step with its status, the one in progress highlighted, a count of
// the steps done; collapsible to a single line.
import { css, html, LitElement, nothing } from 'lit';
import type { Plan, PlanStatus } from '../shared/plan.js';

const MARK: Record<PlanStatus, string> = { done: '✓', in_progress: '▸', pending: '○' };
const WORD: Record<PlanStatus, string> = { done: 'done', in_progress: 'in progress', pending: 'pending' };

export class SkeinPlan extends LitElement {
  static override properties = { plan: { attribute: false }, collapsed: { state: true } };
  declare plan: Plan | undefined;
  declare collapsed: boolean;

  constructor() {
    super();
    this.collapsed = false;
  }

  static override styles = css`
    :host { display: block; }
    section { border: 1px solid var(--border); border-radius: 10px; background: var(--panel); margin: 0 0 8px; font-size: 13px; }
    header { display: flex; gap: 8px; align-items: center; padding: 4px 10px; }
    h2 { font-size: 13px; margin: 0; font-weight: 600; }
    .count, .current { color: var(--muted); }
    .current { flex: 1; min-width: 0; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
    button { margin-left: auto; background: none; border: none; color: var(--muted); cursor: pointer; font: inherit; }
    ol { list-style: none; margin: 0; padding: 0 10px 6px; max-height: 30vh; overflow: auto; }
    li { display: flex; gap: 6px; padding: 1px 0; }
    .mark { width: 1em; text-align: center; }
    li.done { color: var(--muted); text-decoration: line-through; }
    li.in_progress { font-weight: 600; }
    li.in_progress .mark { color: var(--warn); }
    li.done .mark { color: var(--ok); text-decoration: none; }
    .why { color: var(--muted); padding: 0 10px 4px; margin: 0; }
  `;

  override render() {
    const plan = this.plan;
    if (!plan || !plan.steps.length) return nothing;
    const done = plan.steps.filter((s) => s.status === 'done').length;
    const current = plan.steps.find((s) => s.status === 'in_progress');
    return html`<section aria-label="Plan" data-testid="plan">
      <header>
        <h2>Plan</h2><span class="count">${done} of ${plan.steps.length} done</span>
        ${this.collapsed && current ? html`<span class="current">▸ ${current.step}</span>` : nothing}
        <button @click=${() => (this.collapsed = !this.collapsed)} aria-expanded=${!this.collapsed}>${this.collapsed ? 'Show' : 'Hide'}</button>
      </header>
      ${this.collapsed
        ? nothing
        : html`${plan.explanation ? html`<p class="why">${plan.explanation}</p>` : nothing}
            <ol>
              ${plan.steps.map(
                (s) => html`<li class=${s.status} data-status=${s.status}><span class="mark" aria-label=${WORD[s.status]}>${MARK[s.status]}</span><span>${s.step}</span></li>`,
              )}
            </ol>`}
    </section>`;
  }
}
customElements.define('skein-plan', SkeinPlan);
