// <skein-approval-card>: a tool call waiting for the user (SKEIN_APPROVAL).
// Shows what would happen (the command, or the diff with added and removed
// lines coloured) and the three answers: Approve, Approve for this session
// (its label says what it covers: the exact command, the one file; not offered
// for a protected path), Deny (with an optional reason the model receives). Sends an `approval`
// event up; the app sends the WebSocket frame. Once decided, one line says how.
import { css, html, LitElement } from 'lit';
import type { ApprovalDecision, ApprovalRequestEvent } from '../shared/protocol.js';
import { previewLabel, sessionChoice } from './approval-words.js';
import { diffLineClass } from './diff-line-class.js';
import { messageStyles } from './message-styles.js';

export interface ApprovalDetail {
  callId: string;
  decision: ApprovalDecision;
  reason?: string;
}

export class SkeinApprovalCard extends LitElement {
  static override properties = {
    request: { attribute: false },
    denying: { state: true },
    sent: { state: true },
  };
  declare request: ApprovalRequestEvent;
  declare denying: boolean;
  /** Clicked: the buttons wait for the decision event (or come back if the server refused it). */
  declare sent: boolean;

  constructor() {
    super();
    this.denying = false;
    this.sent = false;
  }

  static override styles = [
    messageStyles,
    css`
      :host { margin: 0; }
      .ask { border-top: 1px solid var(--border); background: var(--warn-bg); padding: 8px 10px; }
      .title { font-size: 13px; font-weight: 600; margin: 0 0 6px; }
      pre { max-height: 40vh; overflow: auto; white-space: pre-wrap; overflow-wrap: anywhere; background: var(--code-bg); }
      /* Tinted lines with the page's own text colour (readable in both themes, as GitHub shows diffs). */
      .add, .del { display: inline-block; min-width: 100%; box-sizing: border-box; }
      .add { background: color-mix(in srgb, var(--ok) 18%, transparent); }
      .del { background: color-mix(in srgb, var(--danger) 16%, transparent); }
      .hunk { color: var(--muted); }
      .actions { display: flex; gap: 8px; flex-wrap: wrap; align-items: center; margin-top: 6px; }
      button { font: inherit; font-size: 13px; padding: 4px 12px; border-radius: 8px; border: 1px solid var(--border); background: var(--panel); color: var(--fg); cursor: pointer; }
      button.primary { background: var(--accent); color: var(--accent-fg); border-color: var(--accent); }
      button.danger { color: var(--danger); }
      button:disabled { opacity: 0.6; cursor: default; }
      .note { font-size: 12px; color: var(--muted); }
      input { font: inherit; font-size: 13px; flex: 1 1 220px; min-width: 0; padding: 4px 8px; border-radius: 8px; border: 1px solid var(--border); background: var(--bg); color: var(--fg); }
    `,
  ];

  private preview() {
    const { preview } = this.request;
    if (preview.kind !== 'diff') return html`<pre aria-label=${previewLabel(preview.kind)}>${preview.text}</pre>`;
    // Unified diff: one span per line, coloured by its first character (text only, never HTML).
    const lines = preview.text.split('\n');
    return html`<pre aria-label=${previewLabel('diff')}>${lines.map((line, i) => {
      return html`<span class=${diffLineClass(line)}>${line}</span>${i < lines.length - 1 ? '\n' : ''}`;
    })}</pre>`;
  }

  override render() {
    const { request } = this;
    const session = sessionChoice(request);
    return html`<div class="ask" role="group" aria-label="Approve ${request.name}?">
      <p class="title">${request.name} waits for your approval</p>
      ${this.preview()}
      <div class="actions">
        <button class="primary" ?disabled=${this.sent} @click=${() => this.decide('approve')}>Approve</button>
        ${'note' in session
          ? html`<span class="note">${session.note}</span>`
          : html`<button ?disabled=${this.sent} @click=${() => this.decide('approve_session')} title=${session.title}>${session.label}</button>`}
        ${this.denying
          ? html`<input aria-label="Reason for denying (optional, the model reads it)" placeholder="Why not? (optional, the model reads it)"
                @keydown=${(e: KeyboardEvent) => e.key === 'Enter' && this.decide('deny')} />
              <button class="danger" ?disabled=${this.sent} @click=${() => this.decide('deny')}>Deny</button>`
          : html`<button class="danger" ?disabled=${this.sent} @click=${this.startDeny}>Deny…</button>`}
      </div>
    </div>`;
  }

  private startDeny = async () => {
    this.denying = true;
    await this.updateComplete;
    this.renderRoot.querySelector('input')?.focus();
  };

  private decide(decision: ApprovalDecision) {
    const reason = decision === 'deny' ? this.renderRoot.querySelector('input')?.value.trim() : undefined;
    const detail: ApprovalDetail = { callId: this.request.callId, decision, ...(reason && { reason }) };
    this.sent = true;
    const sent = this.dispatchEvent(new CustomEvent<ApprovalDetail>('approval', { detail, bubbles: true, composed: true, cancelable: true }));
    // The app cancels the event when it could not send (offline): the buttons come back.
    if (!sent) this.sent = false;
  }
}
customElements.define('skein-approval-card', SkeinApprovalCard);

declare global {
  interface HTMLElementTagNameMap {
    'skein-approval-card': SkeinApprovalCard;
  }
}
