// <skein-timeline>: the event log, rendered as a windowed list. Only the rows
// near the viewport are in the DOM; the rest are two spacers whose heights
// come from measured row heights (or a guess until a row has been seen), so a
// session with thousands of events opens and scrolls like a short one.
// It sticks to the bottom while the user is there, stops when they scroll up
// (with a "jump to latest" button), and keeps what is on screen still when
// rows above it are measured or change height. Only the reader leaves the
// bottom: a move up counts when it follows their wheel, touch, keys or pointer,
// never when it comes from layout (content that shrank, then grew again before
// the resize observer re-pinned, reads as a move up in the scroll event).
import { html, LitElement, nothing, type PropertyValues } from 'lit';
import { repeat } from 'lit/directives/repeat.js';
import type { AgentState } from '../shared/protocol.js';
import { STATE_WORDS } from './format.js';
import { rowIndex, type Row } from './timeline-model.js';
import { estimateHeight, renderRow } from './timeline-rows.js';
import { renderRowMenu } from './row-menu.js';
import { retryTarget } from './retry.js';
import { PAD_TOP, timelineStyles } from './timeline-styles.js';
import './skein-agent-message.js';
import { styleProps } from './style-props.js';
import { ReaderIntent } from './reader-intent.js';
import { rowAt, rowOffsets } from './row-offsets.js';
import type { ExpandDetail } from './long-text.js';
import { landOn, showTopOf, type LandingHost } from './timeline-landing.js';

/** Pixels rendered beyond the viewport, above and below. */
const OVERSCAN = 900;
/** Within this many pixels of the bottom counts as "at the bottom". */
const STICK = 48;

export class SkeinTimeline extends LitElement implements LandingHost {
  static override properties = {
    rows: { attribute: false },
    version: { attribute: false },
    state: { attribute: false },
    streaming: { attribute: false },
    thinking: { attribute: false },
    model: { attribute: false },
    earlier: { attribute: false },
    matchSeq: { attribute: false },
    atBottom: { state: true },
    unseen: { state: true },
  };
  declare rows: Row[];
  /** The row a search found (kept marked until another session or search is opened). */
  declare matchSeq: number | undefined;
  declare version: number;
  declare state: AgentState;
  declare streaming: string;
  /** The readable thinking of the answer being written. */
  declare thinking: string;
  declare model: string;
  /** Earlier events exist that are not loaded yet (the tail was fetched first): scrolling near the top asks for them. */
  declare earlier: boolean;
  declare atBottom: boolean;
  declare unseen: number;

  private readonly heights = new Map<number, number>();
  private offsets = new Float64Array(1);
  private offsetsDirty = true;
  private readonly observed = new Set<Element>();
  private readonly resizeObserver = new ResizeObserver((entries) => this.onResize(entries));
  private frame = 0;
  /** scrollTop as last set by pinning to the bottom. */
  private pinnedTop = -1;
  /** scrollTop as the reader last left it (restored when the timeline is shown again). */
  private savedTop = 0;
  private lastRowCount = 0;
  /** The first row's seq at the last update: a smaller one means earlier rows were prepended. */
  private firstSeq = 0;
  /** Home was pressed while earlier pages were missing: go to the very top once they are in. */
  private homePending = false;
  /** Pixels the rows prepended in this update add above what was on screen (applied once rendered). */
  private prependShift = 0;
  private readonly reader = new ReaderIntent();
  /** The content box: when it grows or shrinks while at the bottom, pin again. */
  private inner: Element | null = null;
  /** Long messages shown whole (by seq): kept here, as their rows leave the DOM when scrolled away. */
  private readonly expanded = new Set<number>();
  /** A long message just closed: its top is brought back into view once it has shrunk. */
  private closedSeq: number | undefined;

  constructor() {
    super();
    this.rows = [];
    this.version = 0;
    this.state = 'WaitingForUserInput';
    this.streaming = '';
    this.thinking = '';
    this.model = '';
    this.earlier = false;
    this.atBottom = true;
    this.unseen = 0;
  }

  static override styles = timelineStyles;

  override connectedCallback() {
    super.connectedCallback();
    this.tabIndex = 0;
    this.setAttribute('role', 'region');
    this.setAttribute('aria-label', 'Timeline');
    this.addEventListener('scroll', this.onScroll, { passive: true });
    this.addEventListener('keydown', this.onKey);
    this.addEventListener('expand-row', this.onExpand as EventListener);
    this.reader.attach(this);
    this.resizeObserver.observe(this);
  }

  override disconnectedCallback() {
    super.disconnectedCallback();
    this.removeEventListener('scroll', this.onScroll);
    this.removeEventListener('keydown', this.onKey);
    this.removeEventListener('expand-row', this.onExpand as EventListener);
    this.reader.detach();
    this.inner = null;
    this.resizeObserver.disconnect();
    this.observed.clear();
    cancelAnimationFrame(this.frame);
  }

  /** Forget measured heights (a different session is shown). */
  reset() {
    this.heights.clear();
    this.expanded.clear();
    this.offsetsDirty = true;
    this.atBottom = true;
    this.unseen = 0;
    this.lastRowCount = 0;
    this.firstSeq = 0;
    this.homePending = false;
  }

  /** Near the top with earlier history not loaded: ask the app for the previous page. */
  private askEarlier(all = false) {
    if (!this.earlier) return;
    this.dispatchEvent(new CustomEvent('load-earlier', { detail: { all }, bubbles: true, composed: true }));
  }

  scrollToLatest() {
    this.reader.settle();
    this.atBottom = true;
    this.unseen = 0;
    this.pin();
    this.requestUpdate();
  }

  /** Brings the row with this seq into view and flashes it; a long message there is shown whole (what was searched for may be far down it). */
  async scrollToSeq(seq: number): Promise<void> {
    this.leaveBottom();
    this.expanded.add(seq);
    await landOn(this, seq);
  }

  leaveBottom() {
    this.atBottom = false;
    this.reader.settle();
  }

  rowElement(seq: number): HTMLElement | null {
    return this.renderRoot.querySelector<HTMLElement>(`.row[data-seq="${seq}"]`);
  }

  guessedTop(seq: number): number {
    this.ensureOffsets();
    return this.offsets[this.indexOf(seq)]!;
  }

  /** Seqs of the rows currently in the DOM (for tests and the bench). */
  renderedSeqs(): number[] {
    return [...this.renderRoot.querySelectorAll<HTMLElement>('.row')].map((r) => Number(r.dataset.seq));
  }

  private indexOf(seq: number): number {
    return rowIndex(this.rows, seq);
  }

  private heightOf(row: Row): number {
    return this.heights.get(row.seq) ?? estimateHeight(row);
  }

  private ensureOffsets() {
    if (!this.offsetsDirty && this.offsets.length === this.rows.length + 1) return;
    this.offsets = rowOffsets(this.rows, (row) => this.heightOf(row));
    this.offsetsDirty = false;
  }

  private rowAt(y: number): number {
    return rowAt(this.offsets, y);
  }

  private range(): [number, number] {
    const n = this.rows.length;
    const total = this.offsets[n]!;
    const view = this.clientHeight || window.innerHeight;
    const top = this.atBottom ? total - view : this.scrollTop - PAD_TOP;
    const start = this.rowAt(Math.max(0, top - OVERSCAN));
    let end = this.rowAt(top + view + OVERSCAN) + 1;
    end = Math.min(n, Math.max(end, start + 1));
    return [start, end];
  }

  private onScroll = () => {
    // Our own pin to the bottom: content may have grown since (children render
    // after the list), which must not read as the user scrolling up.
    if (this.clientHeight === 0) return; // hidden (the model view is shown)
    if (this.atBottom && this.scrollTop === this.pinnedTop) return this.schedule();
    // Only the reader's own move up leaves the bottom. Layout also fires scroll events:
    // content that shrank clamps scrollTop, and may grow back before the resize observer
    // pins again, which looks exactly like a move up.
    const movedUp = this.scrollTop < this.savedTop && this.reader.scrolling();
    this.savedTop = this.scrollTop;
    const atBottom = this.scrollHeight - this.scrollTop - this.clientHeight < STICK || (this.atBottom && !movedUp);
    if (atBottom !== this.atBottom) this.atBottom = atBottom;
    if (atBottom) this.unseen = 0;
    if (this.scrollTop < OVERSCAN) this.askEarlier();
    // Scroll events come once per frame, before its animation callbacks:
    // render the new window in this same frame.
    this.requestUpdate();
  };

  /** "Show all" / "Show less" on a long message. */
  private onExpand = (e: CustomEvent<ExpandDetail>) => {
    const { seq, expanded } = e.detail;
    if (expanded) this.expanded.add(seq);
    else {
      this.expanded.delete(seq);
      this.closedSeq = seq;
    }
    this.requestUpdate();
  };

  private onKey = (e: KeyboardEvent) => {
    if (e.target !== this) return;
    // Home/End jump the whole log even though most of it is not in the DOM.
    if (e.key === 'Home') {
      e.preventDefault();
      this.atBottom = false;
      this.scrollTop = 0;
      if (this.earlier) {
        this.homePending = true;
        this.askEarlier(true);
      }
    } else if (e.key === 'End') {
      e.preventDefault();
      this.scrollToLatest();
    }
  };

  private schedule() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.requestUpdate();
    });
  }

  private onResize(entries: ResizeObserverEntry[]) {
    if (this.clientHeight === 0) return; // hidden: sizes are meaningless
    if (entries.some((e) => e.target === this)) {
      // Shown again after being hidden (or resized): back to where the reader was.
      if (this.atBottom) this.pin();
      else this.scrollTop = this.savedTop;
      this.schedule();
      entries = entries.filter((e) => e.target !== this);
    }
    if (entries.some((e) => e.target === this.inner)) {
      // Something grew or shrank that is not a row (the answer being streamed, a row's late render).
      if (this.atBottom) this.pin();
      entries = entries.filter((e) => e.target !== this.inner);
    }
    const viewTop = this.getBoundingClientRect().top;
    let shift = 0;
    let changed = false;
    for (const entry of entries) {
      const el = entry.target as HTMLElement;
      if (!el.isConnected) continue;
      const seq = Number(el.dataset.seq);
      const height = entry.borderBoxSize[0]?.blockSize ?? el.offsetHeight;
      const row = this.rows[this.indexOf(seq)];
      const before = this.heights.get(seq) ?? (row?.seq === seq ? estimateHeight(row) : height);
      this.heights.set(seq, height);
      if (Math.abs(height - before) < 0.5) continue;
      changed = true;
      // A row that starts above the viewport pushes what is on screen: take it back.
      if (el.getBoundingClientRect().top < viewTop) shift += height - before;
    }
    if (!changed) return;
    this.offsetsDirty = true;
    if (this.atBottom) this.pin();
    else if (shift) this.scrollTop += shift;
    if (this.closedSeq !== undefined) showTopOf(this, this.closedSeq);
    this.closedSeq = undefined;
    this.schedule();
  }

  protected override willUpdate(changed: PropertyValues<this>) {
    if (changed.has('rows') || changed.has('version')) {
      this.offsetsDirty = true;
      const first = this.rows[0]?.seq ?? 0;
      if (this.firstSeq && first && first < this.firstSeq) this.keepPlaceAfterPrepend(this.firstSeq);
      else {
        const added = this.rows.length - this.lastRowCount;
        if (added > 0 && !this.atBottom && this.lastRowCount > 0) this.unseen += added;
      }
      this.firstSeq = first;
      this.lastRowCount = this.rows.length;
    }
  }

  /** Earlier rows came in above: what was on screen stays put (or, after Home, the very top is shown). */
  private keepPlaceAfterPrepend(oldFirstSeq: number) {
    if (this.atBottom) return;
    this.ensureOffsets();
    this.prependShift = this.homePending ? 0 : this.offsets[this.indexOf(oldFirstSeq)]!;
  }

  protected override updated() {
    const inner = this.renderRoot.querySelector('.inner');
    if (inner !== this.inner) {
      if (this.inner) this.resizeObserver.unobserve(this.inner);
      this.inner = inner;
      if (inner) this.resizeObserver.observe(inner);
    }
    for (const el of this.observed) {
      if (!el.isConnected) {
        this.resizeObserver.unobserve(el);
        this.observed.delete(el);
      }
    }
    for (const el of this.renderRoot.querySelectorAll('.row')) {
      if (!this.observed.has(el)) {
        this.observed.add(el);
        this.resizeObserver.observe(el);
      }
    }
    if (this.prependShift || this.homePending) {
      // After render, so the taller content can take the new scroll position.
      if (this.homePending) this.scrollTop = 0;
      else this.scrollTop += this.prependShift;
      this.prependShift = 0;
      if (!this.earlier) this.homePending = false;
    }
    if (this.atBottom) this.pin();
    // A tail page shorter than the screen cannot be scrolled up: fetch more at once.
    else if (this.earlier && this.scrollTop < OVERSCAN) this.askEarlier(this.homePending);
    if (this.earlier && this.atBottom && this.offsets[this.rows.length]! < 2 * (this.clientHeight || window.innerHeight)) this.askEarlier();
  }

  private pin() {
    this.scrollTop = this.scrollHeight;
    this.pinnedTop = this.scrollTop;
    this.savedTop = this.scrollTop;
  }

  /** A row's "Fork from here": the app makes the fork. */
  private readonly fork = (seq: number) => this.dispatchEvent(new CustomEvent('fork', { detail: { seq }, bubbles: true, composed: true }));
  private readonly edit = (seq: number, text: string) => this.dispatchEvent(new CustomEvent('edit-resend', { detail: { seq, text }, bubbles: true, composed: true }));
  private readonly rewind = (seq: number) => this.dispatchEvent(new CustomEvent('rewind', { detail: { seq }, bubbles: true, composed: true }));

  override render() {
    this.ensureOffsets();
    // Notices alone (e.g. the MCP servers' state a new session starts with) still leave the conversation empty.
    const n = this.rows.length;
    const [start, end] = n ? this.range() : [0, 0];
    const top = this.offsets[start]!;
    const bottom = this.offsets[n]! - this.offsets[end]!;
    // While compacting, the compaction's own live row says so.
    const busy = this.state !== 'WaitingForUserInput' && this.state !== 'Compacting';
    const retrySeq = retryTarget(this.rows)?.errorSeq;
    return html`<div class="inner">
      ${this.rows.every((r) => r.kind === 'notice') && !this.streaming && !this.thinking ? this.renderEmpty() : nothing}
      <div style=${styleProps({ height: `${top}px` })}></div>
      ${repeat(this.rows.slice(start, end), (r) => r.seq, (r) => html`<div class="row" data-seq=${r.seq} data-kind=${r.kind} ?data-match=${r.seq === this.matchSeq}>${renderRow(r, this.expanded.has(r.seq), retrySeq)}${renderRowMenu(r, this.fork, this.rewind, this.edit)}</div>`)}
      <div style=${styleProps({ height: `${bottom}px` })}></div>
      ${this.streaming || this.thinking
        ? html`<div class="streaming"><skein-agent-message streaming .thinking=${this.thinking} .event=${{ kind: 'agent', seq: 0, ts: '', text: this.streaming, model: this.model, endOfTurn: false }}></skein-agent-message></div>`
        : nothing}
      <div class="working ${busy ? '' : 'idle'}" role="status">${busy ? STATE_WORDS[this.state] : ''}</div>
    </div>
    ${this.atBottom ? nothing : html`<button class="jump" @click=${() => this.scrollToLatest()}>
      ${this.unseen > 0 ? `${this.unseen} new · ` : ''}Jump to latest ↓</button>`}`;
  }

  private renderEmpty() {
    const suggest = (text: string) => this.dispatchEvent(new CustomEvent('suggest', { detail: { text }, bubbles: true, composed: true }));
    // The offline model only understands its commands: offer them.
    const offline = this.model === 'predictable' || this.model === '';
    return html`<div class="empty">
      <h2>Start a conversation</h2>
      <p>Say something to start: ask a question or for a change in your project.${offline ? ' The offline model answers these:' : ''}</p>
      ${offline ? ['bash: ls -la', 'echo: **hello** `skein`', 'big: 2000', 'delay: 3000'].map((t) => html`<button @click=${() => suggest(t)}>${t}</button>`) : nothing}
    </div>`;
  }
}
customElements.define('skein-timeline', SkeinTimeline);
