// <skein-app>: the shell. Picks the session (deep link /s/<id>, else the most
// recent, else a new one), loads its history in one request, then follows it
// live over the socket from the last seq it has. Lays out the session list,
// the header (app-header.ts), the context bar (gauge, sparkline, "what the
// model sees" and Changes toggles), the timeline and the chat box.
import { html, LitElement, nothing } from 'lit';
import type { ApprovalDetail } from './skein-approval-card.js';
import type { ConnectionStatus, SessionConnection } from './connection.js';
import type { ImageInput, ListedSession, McpServerInfo, Project, ProjectFileTrust, ProjectRequest, SessionSnapshot, SkeinEvent, TrashedSession } from '../shared/protocol.js';
import { ListConnection } from './list-connection.js';
import * as actions from './session-actions.js';
import * as trustActions from './trust-actions.js';
import './skein-changes-panel.js';
import './skein-delete-dialog.js';
import './skein-rewind-dialog.js';
import * as api from './api.js';
import { TimelineModel } from './timeline-model.js';
import type { SkeinChatInput } from './skein-chat-input.js';
import type { SkeinTimeline } from './skein-timeline.js';
import { appStyles } from './app-styles.js';
import { parseSlash } from './slash-commands.js';
import { editAndResend, runCommand, type CommandHost } from './slash-actions.js';
import { imagesOf, retryTarget } from './retry.js';
import { changesToggle } from './workspace-bar.js';
import { appHeader } from './app-header.js';
import { FIRST_PAGE } from './history-pages.js';
import { HistoryLoader, type HistoryHost } from './history-loader.js';
import { followSession, type FollowHost } from './session-follow.js';
import './skein-chat-input.js';
import './skein-mcp-servers.js';
import './skein-trust-prompt.js';
import './skein-project-requests.js';
import type { TrustDetail } from './skein-trust-prompt.js';
import './skein-model-view.js';
import './skein-plan.js';
import './skein-session-list.js';
import './skein-sparkline.js';
import './skein-timeline.js';
import './skein-token-gauge.js';
import { childrenRollup, publishSessions } from './session-directory.js';

export class SkeinApp extends LitElement implements CommandHost, FollowHost, HistoryHost {
  static override properties = {
    sessions: { state: true },
    matchSeq: { state: true },
    snapshot: { state: true },
    status: { state: true },
    notice: { state: true },
    models: { state: true },
    showView: { state: true },
    drawer: { state: true },
    missing: { state: true },
    version: { state: true },
    trash: { state: true },
    projects: { state: true },
    projectRequests: { state: true },
    showChanges: { state: true },
    changesVersion: { state: true },
    deleting: { state: true },
    mcp: { state: true },
    trust: { state: true },
    deleted: { state: true },
    info: { state: true },
    rewinding: { state: true },
  };
  /** The rewind dialog's session and event (undefined: closed). */
  declare rewinding: { id: string; seq: number } | undefined;
  /** What a slash command answers (the list of /help, the models of /model): a neutral line above the box. */
  declare info: string;
  /** The open session just went to the trash: the bar offering Undo. */
  declare deleted: { id: string; title: string } | undefined;
  declare trash: TrashedSession[];
  declare projects: Project[];
  declare projectRequests: ProjectRequest[];
  declare showChanges: boolean;
  declare changesVersion: number;
  declare deleting: SessionSnapshot | undefined;
  /** The list's search text and archived toggle (applied by the server). */
  filter: { query?: string; archived?: boolean } = {};
  private listConnection: ListConnection | undefined;
  declare sessions: ListedSession[];
  /** The message a search result pointed at in the open session (marked in the timeline). */
  declare matchSeq: number | undefined;
  declare snapshot: SessionSnapshot | undefined;
  declare status: ConnectionStatus;
  declare notice: string;
  declare models: api.ModelChoice[];
  declare showView: boolean;
  declare drawer: boolean;
  declare missing: string;
  declare version: number;
  /** GET /api/mcp, fetched at start and again on each MCP event. */
  declare mcp: McpServerInfo[];
  /** GET /api/trust: project files waiting for the user's decision are shown above the timeline. */
  declare trust: ProjectFileTrust[];
  private model = new TimelineModel();
  private connection: SessionConnection | undefined;
  private readonly history = new HistoryLoader(this);
  currentId = '';
  private flushFrame = 0;
  private firstScreenMarked = false;
  private refreshTimer: ReturnType<typeof setTimeout> | undefined;

  constructor() {
    super();
    this.sessions = [];
    this.status = 'connecting';
    this.notice = '';
    this.models = [];
    this.showView = false;
    this.drawer = false;
    this.missing = '';
    this.version = 0;
    this.trash = [];
    this.projects = [];
    this.projectRequests = [];
    this.showChanges = false;
    this.changesVersion = 0;
    this.mcp = [];
    this.trust = [];
    this.info = '';
  }

  static override styles = appStyles;

  override connectedCallback() {
    super.connectedCallback();
    void actions.openFromUrl(this);
    window.addEventListener('popstate', () => void actions.openFromUrl(this));
    void api.listModels().then((models) => (this.models = models));
    // Every session's state, title and activity, live (a compaction that ends elsewhere shows at once).
    this.listConnection = new ListConnection((frame) => actions.applyListFrame(this, frame, () => this.refreshSoon()));
    void this.refreshMcp();
    void trustActions.refreshTrust(this);
    // Keeps "3 min ago" and other sessions' titles current.
    setInterval(() => void this.refreshSessions(), 60_000);
  }

  async refreshMcp() {
    this.mcp = await api.listMcpServers();
  }

  async refreshSessions() {
    try {
      this.sessions = await api.listSessions(this.filter);
    } catch (err) {
      this.notice = `Could not list sessions: ${err instanceof Error ? err.message : String(err)}`;
    }
  }

  /** Refreshes the session list soon (titles and last activity move as the session does). */
  refreshSoon() {
    if (this.refreshTimer !== undefined) return;
    this.refreshTimer = setTimeout(() => {
      this.refreshTimer = undefined;
      void this.refreshSessions();
    }, 800);
  }

  /** The open session was deleted (here or in another tab): the next one opens, with an Undo that brings it back. */
  currentRemoved(removed: SessionSnapshot | undefined, next: string | undefined) {
    const id = this.currentId;
    this.connection?.close();
    this.connection = undefined;
    this.status = 'connecting'; // this session's socket, not the closed one's: no send into nothing meanwhile
    this.deleted = { id, title: removed?.title ?? this.snapshot?.title ?? id };
    if (next) void this.open(next);
    else void this.newSession();
  }

  private undoDelete() {
    const id = this.deleted?.id;
    this.deleted = undefined;
    if (id) void actions.undoDelete(this, id);
  }

  /** `at`: a message a search found; its row is shown and marked once the session is open. */
  async open(id: string, at?: number) {
    this.connection?.close();
    this.connection = undefined;
    this.status = 'connecting'; // this session's socket, not the closed one's: no send into nothing meanwhile
    // What the page said (a "Rewound…", a /help) was about the session it was said in.
    if (id !== this.currentId) this.info = '';
    this.currentId = id;
    this.model = new TimelineModel();
    this.snapshot = undefined;
    this.missing = '';
    this.showChanges = false;
    this.drawer = false;
    this.version++;
    this.timeline?.reset();
    this.matchSeq = at;
    const url = `/s/${id}${at ? `?at=${at}` : ''}`;
    if (location.pathname + location.search !== url) history.pushState(null, '', url);
    let page: { events: SkeinEvent[]; more: boolean };
    try {
      // Tail first: the first screen needs only the last page; scrolling up fetches the rest.
      this.snapshot = await api.getSession(id);
      page = await api.getEventsBefore(id, this.snapshot.lastSeq + 1, FIRST_PAGE);
    } catch (err) {
      if (this.currentId !== id) return;
      if (err instanceof api.ApiError && err.status === 404) this.missing = id;
      else this.notice = `Could not open the session: ${err instanceof Error ? err.message : String(err)}`;
      return;
    }
    if (this.currentId !== id) return;
    const events = page.events;
    if (!this.firstScreenMarked) performance.mark('skein:history-loaded', { detail: { events: events.length } });
    this.model = new TimelineModel(events.length ? events[0]!.seq - 1 : this.snapshot.lastSeq, this.snapshot.state);
    for (const e of events) this.model.ingest(e);
    this.version = this.model.version;
    this.markFirstScreen();
    this.connection = followSession(this, id, this.model);
    if (at !== undefined) await this.history.showMatch(id, at);
  }

  /** Many events can arrive in one frame (a reconnect replay): render once per frame. */
  scheduleFlush() {
    if (this.flushFrame) return;
    const flush = () => {
      cancelAnimationFrame(this.flushFrame);
      clearTimeout(fallback);
      this.flushFrame = 0;
      this.version = this.model.version;
    };
    // A background tab gets no animation frames; the timeout keeps it current anyway.
    const fallback = setTimeout(flush, 250);
    this.flushFrame = requestAnimationFrame(flush);
  }

  /** A performance mark when the history is first on screen (read by the UI bench). */
  private markFirstScreen() {
    if (this.firstScreenMarked) return;
    this.firstScreenMarked = true;
    void this.updateComplete
      .then(() => this.timeline?.updateComplete)
      .then(() => requestAnimationFrame(() => performance.mark('skein:first-screen', { detail: { events: this.model.lastSeq } })));
  }

  private get timeline(): SkeinTimeline | null {
    return this.renderRoot.querySelector<SkeinTimeline>('skein-timeline');
  }

  /** What the provider said the current model's efforts are: a live `limits` event, else the snapshot (tail-first pages may not reach it). */
  private discoveredEfforts(): string[] | undefined {
    const model = this.snapshot?.model;
    const live = this.model.efforts;
    return live && live.model === model ? live.efforts : this.snapshot?.efforts;
  }

  override willUpdate() {
    // The task cards and the gauge's subtask totals read the live list from there.
    publishSessions(this.sessions);
  }

  override render() {
    const m = this.model;
    const state = m.lastSeq ? m.state : (this.snapshot?.state ?? 'WaitingForUserInput');
    const gauge = m.gauge ?? this.snapshot?.gauge;
    const busy = state !== 'WaitingForUserInput';
    const title = this.sessions.find((s) => s.id === this.currentId)?.title ?? this.snapshot?.title ?? '';
    return html`
      ${appHeader(this, { title, state, efforts: this.discoveredEfforts() })}
      <div class="body">
        <div class="scrim ${this.drawer ? 'open' : ''}" @click=${() => (this.drawer = false)}></div>
        <nav class="drawer ${this.drawer ? 'open' : ''}" aria-label="Sessions" @keydown=${(e: KeyboardEvent) => e.key === 'Escape' && (this.drawer = false)}>
          <skein-session-list .sessions=${this.sessions} .current=${this.currentId} .trash=${this.trash} .projects=${this.projects}
            @list-filter=${(e: CustomEvent<{ query: string; archived: boolean }>) => {
              this.filter = e.detail;
              void this.refreshSessions();
            }}
            @rename-session=${(e: CustomEvent<{ id: string; title: string }>) => void actions.rename(this, e.detail.id, e.detail.title)}
            @archive-session=${(e: CustomEvent<{ id: string; archived: boolean }>) => void actions.archive(this, e.detail.id, e.detail.archived)}
            @delete-session=${(e: CustomEvent<{ id: string }>) => (this.deleting = this.sessions.find((s) => s.id === e.detail.id))}
            @show-trash=${() => void actions.showTrash(this)}
            @restore-session=${(e: CustomEvent<{ id: string }>) => void actions.restore(this, e.detail.id)}
            @open-session=${(e: CustomEvent<{ id: string; seq?: number }>) => void this.open(e.detail.id, e.detail.seq)}
            @new-session=${(e: CustomEvent<api.NewSessionOptions>) => void this.newSession(e.detail)}></skein-session-list>
          <skein-mcp-servers .servers=${this.mcp}></skein-mcp-servers>
        </nav>
        <skein-delete-dialog .session=${this.deleting} @closed=${(e: CustomEvent<{ id: string; deleted: boolean }>) => actions.afterDelete(this, e.detail)}></skein-delete-dialog>
        <skein-rewind-dialog .target=${this.rewinding} @closed=${(e: CustomEvent<actions.Rewound | undefined>) => actions.afterRewind(this, e.detail)}></skein-rewind-dialog>
        <main>
          <skein-project-requests .requests=${this.projectRequests}></skein-project-requests>
          <skein-trust-prompt .files=${this.trust} @trust-decision=${(e: CustomEvent<TrustDetail>) => void trustActions.decideTrust(this, e.detail)}></skein-trust-prompt>
          <div class="context">
            <skein-token-gauge .gauge=${gauge} .mcp=${this.mcp} .rollup=${childrenRollup(this.sessions.find((s) => s.id === this.currentId))}></skein-token-gauge>
            <skein-sparkline .points=${m.points} .marks=${m.marks} .version=${this.version}
              @show-seq=${(e: CustomEvent<{ seq: number }>) => void this.showSeq(e.detail.seq)}></skein-sparkline>
            <button class="toggle" aria-pressed=${this.showView} @click=${() => (this.showView = !this.showView)}
              title="Show exactly what the next request sends the model"><span class="long">${this.showView ? 'Back to timeline' : 'What the model sees'}</span><span class="short">${this.showView ? 'Timeline' : 'Model view'}</span></button>
            ${changesToggle(this)}
          </div>
          ${this.missing ? html`<p class="missing" role="alert">There is no session <code>${this.missing}</code> on this server. Pick one from the list or start a new one.</p>` : nothing}
          ${this.showChanges && !this.showView ? html`<skein-changes-panel .sessionId=${this.currentId} .version=${this.changesVersion}></skein-changes-panel>` : nothing}
          <skein-timeline ?hidden=${this.showView || this.showChanges} @open-session=${(e: CustomEvent<{ id: string }>) => void this.open(e.detail.id)} @fork=${(e: CustomEvent<{ seq: number }>) => void actions.fork(this, e.detail.seq)}
            @rewind=${(e: CustomEvent<{ seq: number }>) => (this.rewinding = { id: this.currentId, seq: e.detail.seq })}
            @edit-resend=${(e: CustomEvent<{ seq: number; text: string }>) => void editAndResend(this, e.detail.seq, e.detail.text)} @retry=${(e: CustomEvent<{ seq: number }>) => void this.retry(e.detail.seq)} .rows=${m.rows} .version=${this.version} .state=${state} .streaming=${m.streaming} .thinking=${m.streamingThinking}
            .model=${this.snapshot?.model ?? ''} .earlier=${m.base > 0} .matchSeq=${this.matchSeq}
            @load-earlier=${(e: CustomEvent<{ all: boolean }>) => void this.history.loadEarlier(e.detail.all)} @suggest=${(e: CustomEvent<{ text: string }>) => this.input?.fill(e.detail.text)}
            @approval=${(e: CustomEvent<ApprovalDetail>) => this.approve(e)}></skein-timeline>
          ${this.showView ? html`<skein-model-view .sessionId=${this.currentId} .version=${this.version}></skein-model-view>` : nothing}
          <footer>
            ${this.deleted ? html`<div class="undo" role="status">Deleted “${this.deleted.title}”: it is in the Trash.
              <button @click=${() => this.undoDelete()}>Undo</button>
              <button class="close" @click=${() => (this.deleted = undefined)} aria-label="Dismiss">×</button></div>` : nothing}
            ${this.info ? html`<div class="info" role="status" data-testid="command-info">${this.info}
              <button class="close" @click=${() => (this.info = '')} aria-label="Dismiss">×</button></div>` : nothing}
            ${this.notice ? html`<div class="notice" role="alert">${this.notice} <button @click=${() => (this.notice = '')} aria-label="Dismiss">×</button></div>` : nothing}
            <skein-plan .plan=${m.plan ?? this.snapshot?.plan}></skein-plan>
            <skein-chat-input .gauge=${gauge} .sessionId=${this.currentId} .mode=${this.snapshot?.mode ?? ''} @switch-mode=${(e: CustomEvent<{ mode: string }>) => void actions.setMode(this, e.detail.mode)} ?busy=${busy} ?asking=${state === 'WaitingForApproval'} .disabledReason=${this.missing ? 'No session here: pick one from the list or start a new one.' : this.snapshot?.readOnly ? `Read-only here: ${this.snapshot.readOnly}` : this.status === 'open' ? '' : 'Offline: reconnecting to the server… your text stays here.'}
              @send=${(e: CustomEvent<{ text: string; images?: ImageInput[]; notSent?: boolean }>) => (e.detail.notSent = !this.send(e.detail.text, e.detail.images))}
              @cancel=${() => this.connection?.send({ type: 'cancel' })}></skein-chat-input>
          </footer>
        </main>
      </div>
    `;
  }

  /** An answer from an approval card: sent as a WebSocket frame (offline: the card's buttons come back). */
  private approve(e: CustomEvent<ApprovalDetail>) {
    if (this.connection?.send({ type: 'approval', ...e.detail })) return;
    e.preventDefault();
    this.notice = 'Not sent: the connection is down. It will reconnect by itself; answer again then.';
  }

  private get input(): SkeinChatInput | null {
    return this.renderRoot.querySelector<SkeinChatInput>('skein-chat-input');
  }

  async showSeq(seq: number) {
    this.showView = false;
    await this.updateComplete;
    await this.timeline?.scrollToSeq(seq);
  }

  async newSession(options: api.NewSessionOptions = {}) {
    try {
      const id = await api.createSession(options);
      await this.refreshSessions();
      await this.open(id);
      this.input?.focus();
    } catch (err) {
      this.notice = `Could not start a session: ${err instanceof Error ? err.message : String(err)}`;
    }
  }

  switchModel(model: string, effort?: string): Promise<void> {
    return actions.switchModel(this, model, effort);
  }

  /** Whether the message went out: one that did not stays in the composer (skein-chat-input.ts). */
  private send(text: string, images?: ImageInput[]): boolean {
    this.notice = '';
    this.info = '';
    const slash = images?.length ? undefined : parseSlash(text);
    if (slash && slash.command.name !== '/compact') return void runCommand(this, slash.command.name, slash.arg), true;
    const sent = this.connection?.send({ type: 'user_message', text, ...(images?.length && { images }) });
    if (!sent) return !(this.notice = 'Not sent: the connection is down. Your message stays in the box to send again.');
    // What was just sent is where the conversation goes on: the reader follows it, wherever they had scrolled.
    this.timeline?.scrollToLatest();
    return true;
  }

  /** Retry on a failed turn: its message sent again, images too (retry.ts). */
  private async retry(errorSeq: number) {
    const target = retryTarget(this.model.rows);
    if (target?.errorSeq !== errorSeq) return;
    const images = await imagesOf(target.message).catch((err: unknown) => (this.notice = `Not retried: ${err instanceof Error ? err.message : String(err)}`));
    if (typeof images !== 'string') this.send(target.message.text, images);
  }

  /** The events this page holds (for the slash commands). */
  held(): TimelineModel {
    return this.model;
  }

  fillInput(text: string) {
    this.input?.fill(text);
  }

  /** For tests: drop the socket as a network failure would. */
  dropConnection() {
    this.connection?.drop();
  }

  /** For tests: a page of earlier history is being fetched. */
  get loadingEarlier(): boolean {
    return this.history.loading;
  }

  /** For tests: the seqs this page holds, in order. */
  eventSeqs(): number[] {
    return this.model.events.map((e) => e.seq);
  }
}
customElements.define('skein-app', SkeinApp);
