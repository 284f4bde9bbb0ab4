// <skein-app>: the shell. Picks the session (deep link /s/<id>, else the most
// recent, else a new one), keeps its socket, and lays out header, timeline
// and chat box.
import { css, html, LitElement } from 'lit';
import type { AgentState, Gauge, SessionSnapshot, SkeinEvent } from '../shared/protocol.js';
import { SessionConnection, type ConnectionStatus } from './connection.js';
import './skein-chat-input.js';
import './skein-timeline.js';
import './skein-token-gauge.js';
import { timeAgo } from './format.js';

export class SkeinApp extends LitElement {
  static override properties = {
    sessions: { state: true },
    snapshot: { state: true },
    events: { state: true },
    status: { state: true },
    notice: { state: true },
  };
  declare sessions: SessionSnapshot[];
  declare snapshot: SessionSnapshot | undefined;
  declare events: SkeinEvent[];
  declare status: ConnectionStatus;
  declare notice: string;
  private connection: SessionConnection | undefined;

  constructor() {
    super();
    this.sessions = [];
    this.events = [];
    this.status = 'connecting';
    this.notice = '';
  }

  static override styles = css`
    :host { display: flex; flex-direction: column; height: 100%; }
    header { display: flex; flex-wrap: wrap; align-items: center; gap: 10px 16px; padding: 8px 16px; border-bottom: 1px solid var(--border); background: var(--panel); }
    h1 { font-size: 16px; margin: 0; letter-spacing: 0.02em; }
    select, button { font: inherit; font-size: 13px; padding: 4px 8px; border-radius: 8px; border: 1px solid var(--border); background: var(--panel); color: var(--fg); max-width: 40vw; }
    button { cursor: pointer; }
    .meta { font-size: 12px; color: var(--muted); display: flex; gap: 10px; align-items: center; }
    .dot { width: 8px; height: 8px; border-radius: 50%; display: inline-block; margin-right: 4px; }
    .open { background: var(--ok); } .connecting { background: var(--warn); } .closed { background: var(--danger); }
    skein-token-gauge { flex: 1; min-width: 220px; max-width: 420px; margin-left: auto; }
    skein-timeline { flex: 1; min-height: 0; }
    footer { padding: 8px 16px 10px; border-top: 1px solid var(--border); background: var(--bg); }
    footer > * { max-width: 860px; margin: 0 auto; }
    .notice { font-size: 13px; color: var(--danger); max-width: 860px; margin: 0 auto 6px; }
  `;

  override connectedCallback() {
    super.connectedCallback();
    void this.boot();
    window.addEventListener('popstate', () => void this.boot());
  }

  private async boot() {
    const deepLink = /^\/s\/([\w-]+)$/.exec(location.pathname)?.[1];
    await this.refreshSessions();
    const id = deepLink ?? this.sessions[0]?.id ?? (await this.createSession());
    this.open(id);
  }

  private async refreshSessions() {
    const res = await fetch('/api/sessions');
    this.sessions = ((await res.json()) as { sessions: SessionSnapshot[] }).sessions;
  }

  private async createSession(): Promise<string> {
    const res = await fetch('/api/sessions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    const { id } = (await res.json()) as { id: string };
    await this.refreshSessions();
    return id;
  }

  private open(id: string) {
    this.connection?.close();
    this.events = [];
    this.snapshot = undefined;
    if (location.pathname !== `/s/${id}`) history.pushState(null, '', `/s/${id}`);
    this.connection = new SessionConnection(id, 0, {
      hello: (session) => (this.snapshot = session),
      event: (event) => this.onEvent(event),
      status: (status) => (this.status = status),
      error: (message) => (this.notice = message),
    });
  }

  private onEvent(event: SkeinEvent) {
    this.events = [...this.events, event];
    if (!this.snapshot) return;
    if (event.kind === 'state') this.snapshot = { ...this.snapshot, state: event.to, lastSeq: event.seq };
    else if (event.kind === 'usage') this.snapshot = { ...this.snapshot, gauge: event.gauge, lastSeq: event.seq };
  }

  private get state(): AgentState {
    return this.snapshot?.state ?? 'WaitingForUserInput';
  }

  override render() {
    const gauge: Gauge | undefined = this.snapshot?.gauge;
    const busy = this.state !== 'WaitingForUserInput';
    const statusText = this.status === 'open' ? 'connected' : this.status === 'connecting' ? 'connecting…' : 'disconnected, retrying…';
    return html`
      <header>
        <h1>skein</h1>
        <select aria-label="Session" @change=${(e: Event) => this.open((e.target as HTMLSelectElement).value)}>
          ${this.sessions.map((s) => html`<option value=${s.id} ?selected=${s.id === this.connection?.sessionId}>${s.title} · ${timeAgo(s.lastActivity)}</option>`)}
        </select>
        <button @click=${async () => this.open(await this.createSession())}>New session</button>
        <span class="meta">
          <span><span class="dot ${this.status}"></span>${statusText}</span>
          <span>${this.snapshot?.model ?? ''}</span>
          <span data-testid="agent-state">${this.state}</span>
        </span>
        <skein-token-gauge .gauge=${gauge}></skein-token-gauge>
      </header>
      <skein-timeline .events=${this.events} .state=${this.state}></skein-timeline>
      <footer>
        ${this.notice ? html`<div class="notice" role="alert">${this.notice}</div>` : ''}
        <skein-chat-input ?busy=${busy} .disabledReason=${this.status === 'open' ? '' : 'Disconnected from the server; reconnecting…'}
          @send=${(e: CustomEvent<{ text: string }>) => this.send(e.detail.text)}
          @cancel=${() => this.connection?.send({ type: 'cancel' })}></skein-chat-input>
      </footer>
    `;
  }

  private send(text: string) {
    this.notice = '';
    if (!this.connection?.send({ type: 'user_message', text })) this.notice = 'Not sent: the connection is down. It will reconnect by itself.';
    else if (this.sessions.find((s) => s.id === this.connection?.sessionId)?.title === 'New session') void this.refreshSessions();
  }

  /** For tests: drop the socket as a network failure would. */
  dropConnection() {
    this.connection?.drop();
  }
}
customElements.define('skein-app', SkeinApp);
