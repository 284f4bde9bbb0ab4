// <skein-tool-card>: one tool call and its result. The command, exit status
// and duration in the header; the output as plain text (never HTML),
// collapsed past a few lines, with a copy button.
import { css, html, LitElement } from 'lit';
import type { ApprovalDecisionEvent, ApprovalRequestEvent, SubagentEvent, ToolCallEvent, ToolResultEvent } from '../shared/protocol.js';
import { decisionWords } from './approval-words.js';
import './skein-approval-card.js';
import { copyText } from './copy.js';
import { formatDuration, toolStatus } from './format.js';
import { messageStyles } from './message-styles.js';
import { splitDiff } from './skein-diff.js';
import './skein-diff.js';
import './skein-task-card.js';

const PREVIEW_LINES = 8;

export class SkeinToolCard extends LitElement {
  static override properties = {
    call: { attribute: false },
    result: { attribute: false },
    approvalRequest: { attribute: false },
    approvalDecision: { attribute: false },
    subagent: { attribute: false },
    childApproval: { attribute: false },
    folded: { type: Boolean, reflect: true },
    cleared: { type: Boolean, reflect: true },
    expanded: { state: true },
    copied: { state: true },
    now: { state: true },
  };
  declare call: ToolCallEvent;
  declare result: ToolResultEvent | undefined;
  declare approvalRequest: ApprovalRequestEvent | undefined;
  declare approvalDecision: ApprovalDecisionEvent | undefined;
  /** A `task` call: its child session's latest `subagent` event (the task card follows the child). */
  declare subagent: SubagentEvent | undefined;
  /** A `task` call: its child's latest approval, answered from the task card. */
  declare childApproval: SubagentEvent | undefined;
  declare folded: boolean;
  declare cleared: boolean;
  declare expanded: boolean;
  declare copied: string;
  declare now: number;
  private ticker: ReturnType<typeof setInterval> | undefined;

  constructor() {
    super();
    this.folded = false;
    this.cleared = false;
    this.expanded = false;
    this.copied = '';
    this.now = Date.now();
  }

  static override styles = [
    messageStyles,
    css`
      .body { border: 1px solid var(--border); border-radius: 10px; background: var(--panel); overflow: hidden; }
      header { display: flex; gap: 8px; align-items: baseline; padding: 6px 10px; border-bottom: 1px solid var(--border); font-size: 13px; flex-wrap: wrap; }
      .name { font-weight: 600; }
      /* A command can be a long heredoc: bounded, scrolled in place. */
      .cmd { font-family: var(--mono); white-space: pre-wrap; overflow-wrap: anywhere; flex: 1 1 200px; min-width: 0; max-height: 10em; overflow-y: auto; }
      .status { font-size: 12px; white-space: nowrap; padding: 0 6px; border-radius: 8px; }
      .ok { color: var(--ok); } .err { color: var(--danger); background: var(--danger-bg); } .running { color: var(--warn); }
      pre { margin: 0; border-radius: 0; max-height: 60vh; overflow: auto; white-space: pre-wrap; overflow-wrap: anywhere; }
      footer { display: flex; justify-content: space-between; align-items: center; padding: 2px 4px; }
      .note { font-size: 12px; color: var(--muted); padding: 0 6px; }
      .status.asking { color: var(--warn); background: var(--warn-bg); }
      .decision { font-size: 12px; color: var(--muted); padding: 2px 10px; border-bottom: 1px solid var(--border); }
      .decision.denied { color: var(--danger); }
      :host([folded]) .body { border: 1px dashed var(--folded-bar); border-left-width: 3px; padding-left: 0; }
      :host([folded]) pre, :host([cleared]) pre { color: var(--folded-fg); }
    `,
  ];

  override connectedCallback() {
    super.connectedCallback();
    this.ticker = setInterval(() => {
      if (this.result) clearInterval(this.ticker);
      else this.now = Date.now();
    }, 1000);
  }

  override disconnectedCallback() {
    super.disconnectedCallback();
    clearInterval(this.ticker);
  }

  private summary(): string {
    const input = this.call.input;
    if (typeof input.command === 'string') return input.command;
    // Search tools: what was searched for, and where.
    if (typeof input.pattern === 'string') return `${input.pattern}${typeof input.path === 'string' && input.path ? ` in ${input.path}` : ''}`;
    if (typeof input.path === 'string') return input.path;
    if (this.call.name === 'task' && typeof input.description === 'string') return input.description;
    if (this.call.name === 'update_plan' && Array.isArray(input.steps)) return `${input.steps.length} step${input.steps.length === 1 ? '' : 's'}`;
    return JSON.stringify(input);
  }

  override render() {
    const { call, result } = this;
    const status = result ? toolStatus(result.output) : undefined;
    // The status line moves to the header; the body is the output itself.
    const diff = result && !result.isError ? splitDiff(call.name, result.output) : undefined;
    const output = result ? (status ? result.output.slice(status.line.length + 1) : diff ? diff.summary : result.output) : '';
    const lines = output === '' ? [] : output.split('\n');
    const long = lines.length > PREVIEW_LINES;
    const shown = long && !this.expanded ? lines.slice(0, PREVIEW_LINES).join('\n') : output;
    const asking = !result && this.approvalRequest !== undefined && this.approvalDecision === undefined;
    const decision = this.approvalDecision;
    const badge = asking
      ? html`<span class="status asking" role="status">waiting for approval</span>`
      : !result
      ? html`<span class="status running" role="status">running · ${Math.max(0, Math.round((this.now - Date.parse(call.ts)) / 1000))} s</span>`
      : html`<span class="status ${result.isError ? 'err' : 'ok'}" data-testid="tool-status">
          ${status ? (status.code !== undefined ? `exit ${status.code}` : status.line) : result.isError ? 'failed' : 'ok'} · ${formatDuration(result.durationMs)}</span>`;
    return html`
      <div class="who">tool${this.folded ? html`<span class="folded-tag">folded, not seen by the model</span>` : ''}
        ${this.cleared ? html`<span class="folded-tag">output cleared for the model</span>` : ''}</div>
      <div class="body">
        <header><span class="name">${call.name}</span><span class="cmd">${this.summary()}</span>${badge}</header>
        ${call.name === 'task' ? html`<skein-task-card .call=${call} .result=${result} .subagent=${this.subagent} .childApproval=${this.childApproval}></skein-task-card>` : ''}
        ${asking ? html`<skein-approval-card .request=${this.approvalRequest}></skein-approval-card>` : ''}
        ${decision ? html`<div class="decision ${decision.decision === 'deny' ? 'denied' : ''}" data-testid="approval-decision">${decisionWords(decision)}</div>` : ''}
        ${result && output ? html`<pre aria-label="Output of ${call.name}">${shown}</pre>` : ''}
        ${diff ? html`<skein-diff .diff=${diff.diff}></skein-diff>` : ''}
        ${result
          ? html`<footer>
              ${long
                ? html`<button class="icon-btn" @click=${() => (this.expanded = !this.expanded)} aria-expanded=${this.expanded}>
                    ${this.expanded ? 'Show less' : `Show all ${lines.length} lines`}</button>`
                : html`<span class="note">${lines.length} line${lines.length === 1 ? '' : 's'}</span>`}
              <button class="icon-btn" @click=${this.copy} aria-label="Copy output of ${call.name}">${this.copied || 'Copy output'}</button>
            </footer>`
          : ''}
      </div>
    `;
  }

  private copy = async () => {
    const ok = await copyText(this.result?.output ?? '');
    this.copied = ok ? 'Copied' : 'Copy failed';
    setTimeout(() => (this.copied = ''), 1500);
  };
}
customElements.define('skein-tool-card', SkeinToolCard);
