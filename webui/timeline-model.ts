// The session as the UI sees it, built incrementally from the event log: the
// timeline's rows (tool calls paired with results, one row per compaction
// that goes from live to divider), what is folded, the gauge, and the
// sparkline's points and compaction marks. Ingesting one event is O(1) except
// a finished compaction, which touches the rows it folds; nothing here
// re-reads the whole log, so thousands of events stay cheap.
import { FORKED_HERE, parseCompactCommand } from '../shared/wire/constants.js';
import { isWindowSource, rowIndex } from './timeline-lookup.js';
export { rowIndex } from './timeline-lookup.js';
import type { AgentEvent, AgentState, ApprovalDecisionEvent, ApprovalRequestEvent, SubagentEvent, CompactionEvent } from '../shared/protocol.js';
import type { ErrorEvent, Gauge, SkeinEvent, ToolCallEvent, ToolResultEvent, UserEvent } from '../shared/protocol.js';
import { parsePlan, PLAN_TOOL, type Plan } from '../shared/plan.js';
import { MODE_INFO } from '../shared/modes.js';

interface RowBase {
  /** Stable across updates: the seq of the event that created the row. */
  seq: number;
}
export interface UserRow extends RowBase { kind: 'user'; event: UserEvent; folded: boolean }
export interface AgentRow extends RowBase { kind: 'agent'; event: AgentEvent; folded: boolean }
export interface ToolRow extends RowBase {
  kind: 'tool';
  call: ToolCallEvent;
  result?: ToolResultEvent;
  folded: boolean;
  /** The model now sees a placeholder instead of this output. */
  cleared: boolean;
  /** SKEIN_APPROVAL: the request shown before it ran, and the decision on it; a `task` call: its child's latest `subagent` event. */
  approvalRequest?: ApprovalRequestEvent;
  approvalDecision?: ApprovalDecisionEvent;
  subagent?: SubagentEvent;
  /** A `task` call: its child's latest approval (a `subagent` event of phase `approval` or `approval_decision`). */
  childApproval?: SubagentEvent;
}
export interface CompactionRow extends RowBase {
  kind: 'compaction';
  /** The latest phase of this compaction. */
  event: CompactionEvent;
  /** When it started (the live row's clock). */
  startedAt: string;
  ledger?: LedgerView;
}
/**
 * The deterministic record of a folded span. The same shape as the server's
 * `ledger` field on a finished compaction (added by the compaction work); read
 * loosely so the UI also works with servers that do not send it.
 */
export interface LedgerView {
  userMessages: { seq: number; text: string; truncated?: boolean }[];
  filesRead: string[];
  filesWritten: string[];
  commands: { seq: number; command: string; status: string }[];
  errors: string[];
  omitted?: { commands: number; errors: number; files: number };
}
/** Fields of a finished compaction that newer servers add. */
export interface CompactionExtras {
  strategies?: string[];
  clearedThroughSeq?: number;
  keptSeqs?: number[]; // inside coversSeq, still read verbatim (the message being answered)
  ledger?: LedgerView;
}
export interface ErrorRow extends RowBase { kind: 'error'; event: ErrorEvent }
export interface NoticeRow extends RowBase { kind: 'notice'; text: string; tone: 'retry' | 'cancel' | 'info' | 'status' | 'cut' }
/** A `{"type":"delta"}` frame, read loosely (see DeltaFrame in shared/protocol.ts). */
export interface DeltaLike { text: string; afterSeq?: number; attempt?: number; index?: number; channel?: 'thinking' }
export type Row = UserRow | AgentRow | ToolRow | CompactionRow | ErrorRow | NoticeRow;

/** One LLM request's context size: a point of the sparkline. */
export interface SparkPoint { seq: number; tokens: number; window: number; threshold: number }
/** A finished compaction on the sparkline; `index` is how many points come before it. */
export interface SparkMark { seq: number; rowSeq: number; index: number; before: number; after: number; trigger: string }

export class TimelineModel {
  readonly events: SkeinEvent[] = [];
  rows: Row[] = [];
  /** Bumped on every change, so views know to re-render. */
  version = 0;
  /** The efforts the provider said the model accepts (a `limits` event's Models API capabilities). */
  efforts: { model: string; efforts: string[] } | undefined;
  gauge: Gauge | undefined;
  state: AgentState = 'WaitingForUserInput';
  points: SparkPoint[] = [];
  marks: SparkMark[] = [];
  /** Text of the answer being streamed, before its `agent` event arrives. */
  streaming = '';
  /** The readable thinking of the answer being written (shown collapsed above it). */
  streamingThinking = '';
  /** The agent's latest plan (its last successful update_plan call), pinned above the chat box. */
  plan: Plan | undefined;
  /** The streamed answer is a retry of a failed attempt. */
  retrying = false;
  private stream: { afterSeq: number; attempt: number; next: number; nextThinking: number } | undefined;
  private lastAgentSeq = 0;
  private readonly toolRows = new Map<string, number>(); // callId -> row seq
  private openCompaction: number | undefined; // row seq of a queued/started compaction

  /**
   * The seq before the first loaded event: 0 when the whole history is here,
   * more when only its tail was fetched (earlier pages come with prepend()).
   */
  base: number;
  /** The agent's state before the first loaded event (from the session snapshot). */
  private readonly initialState: AgentState;

  constructor(base = 0, initialState: AgentState = 'WaitingForUserInput') {
    this.base = base;
    this.initialState = initialState;
    this.state = initialState;
  }

  get lastSeq(): number {
    return this.base + this.events.length;
  }

  /** Adds the next event. Anything but lastSeq + 1 is refused (false): no duplicates, no gaps. */
  ingest(e: SkeinEvent): boolean {
    if (e.seq !== this.lastSeq + 1) return false;
    this.events.push(e);
    this.version++;
    switch (e.kind) {
      case 'user':
        this.rows.push({ kind: 'user', seq: e.seq, event: e, folded: false });
        break;
      case 'agent':
        this.endStream();
        this.lastAgentSeq = e.seq;
        // An answer with only tool calls still shows its thinking.
        if (e.text.trim() || e.reasoning?.text || e.reasoning?.redacted) this.rows.push({ kind: 'agent', seq: e.seq, event: e, folded: false });
        break;
      case 'tool_call':
        this.toolRows.set(e.callId, e.seq);
        this.rows.push({ kind: 'tool', seq: e.seq, call: e, folded: false, cleared: false });
        break;
      case 'tool_result': {
        const seq = this.toolRows.get(e.callId);
        if (seq !== undefined) this.update<ToolRow>(seq, (r) => ({ ...r, result: e }));
        if (e.name === PLAN_TOOL && !e.isError && seq !== undefined) this.takePlan(seq);
        break;
      }
      case 'instructions': {
        // Read at session start (in the system prompt) or changed since (sent as a note): a muted line either way.
        const names = e.files.map((f) => f.path).join(', ') || 'none any more';
        const read = e.phase === 'start' && !e.files.length ? 'No project instructions in the system prompt' : e.phase === 'start' ? `Project instructions in the system prompt: ${names}` : `Project instructions changed (${names}): sent to the agent`;
        const text = [read, e.notice, ...(e.skipped ?? []).map((s) => `Not read: ${s.path}, ${s.reason}`)].filter(Boolean).join('. ');
        this.rows.push({ kind: 'notice', seq: e.seq, text, tone: 'info' });
        break;
      }
      case 'approval_request':
      case 'approval_decision':
      case 'subagent': {
        const seq = this.toolRows.get(e.callId);
        if (seq !== undefined) this.update<ToolRow>(seq, (r) => (e.kind === 'subagent' ? { ...r, subagent: e, ...(e.phase.startsWith('approval') && { childApproval: e }) } : e.kind === 'approval_request' ? { ...r, approvalRequest: e } : { ...r, approvalDecision: e }));
        break;
      }
      case 'state':
        this.state = e.to;
        if (e.to === 'WaitingForUserInput' || e.to === 'Cancelled' || e.to === 'Error') this.endStream();
        // A fork's copy ends the turn its point cut: a plain note, nothing failed.
        if (e.to === 'Cancelled' && e.reason === FORKED_HERE) this.rows.push({ kind: 'notice', seq: e.seq, text: 'Forked here: the turn this point cut ends here.', tone: 'info' });
        else if (e.to === 'Cancelled') this.rows.push({ kind: 'notice', seq: e.seq, text: `Cancelled: ${e.reason}`, tone: 'cancel' });
        else if (/retr(y|ying)/i.test(e.reason)) this.rows.push({ kind: 'notice', seq: e.seq, text: e.reason, tone: 'retry' });
        break;
      case 'usage':
        this.gauge = e.gauge;
        if (!e.gauge.estimated) {
          this.points.push({ seq: e.seq, tokens: e.gauge.contextTokens, window: e.gauge.contextWindow, threshold: e.gauge.thresholdRatio });
        }
        break;
      case 'compaction':
        this.compaction(e);
        break;
      case 'status': {
        // A note skein sent the agent: a small muted row, not a message of the conversation.
        const percent = Math.round((100 * e.contextTokens) / Math.max(1, e.contextWindow));
        const text = `Status note to the agent: ${e.contextTokens.toLocaleString('en-US')} of ${e.contextWindow.toLocaleString('en-US')} tokens (${percent}%), $${e.costUsd.toFixed(2)}, ${e.calls} LLM calls`;
        this.rows.push({ kind: 'notice', seq: e.seq, text, tone: 'status' });
        break;
      }
      case 'mcp':
        // An MCP server failed (it is retried) or is back: a line, not a message.
        this.rows.push({ kind: 'notice', seq: e.seq, text: `MCP server ${e.server}: ${e.message}${e.retryInMs !== undefined ? ` (next try in ${Math.ceil(e.retryInMs / 1000)} s)` : ''}`, tone: e.state === 'failed' ? 'retry' : 'info' });
        break;
      case 'tools_changed': {
        const parts = [e.added.length ? `now available: ${e.added.join(', ')}` : '', e.removed.length ? `gone: ${e.removed.join(', ')}` : ''].filter(Boolean);
        this.rows.push({ kind: 'notice', seq: e.seq, text: `Tools changed (the agent is told): ${parts.join('; ')}`, tone: 'status' });
        break;
      }
      case 'mode': {
        const name = (id: string) => MODE_INFO.find((m) => m.id === id)?.name ?? id;
        this.rows.push({ kind: 'notice', seq: e.seq, text: `Approval mode switched from ${name(e.from)} to ${name(e.to)} (${MODE_INFO.find((m) => m.id === e.to)?.gist ?? 'unknown'}).${e.to === 'plan' ? ' Writes and MCP tools are refused, and bash runs only in a read-only sandbox, until you switch again.' : ''}`, tone: 'info' });
        break;
      }
      case 'worktree':
        // The user's own action on the session's worktree (Changes panel): what was done, the commit.
        this.rows.push({ kind: 'notice', seq: e.seq, text: e.message, tone: e.outcome === 'stopped' ? 'retry' : 'info' });
        break;
      case 'toolset':
      case 'answer_cut':
        // A small window made the system prompt and tools lean (or a larger one brought them back); an answer was cut (once).
        if (e.kind === 'toolset' || !e.again) this.rows.push({ kind: 'notice', seq: e.seq, text: e.message, tone: e.kind === 'answer_cut' ? 'cut' : 'info' });
        break;
      case 'error':
        // A retry the server is about to make is news, not a failure.
        if (e.code === 'retrying') this.rows.push({ kind: 'notice', seq: e.seq, text: e.message, tone: 'retry' });
        else this.rows.push({ kind: 'error', seq: e.seq, event: e });
        break;
      default: {
        // Kinds newer than this UI; a model switch is worth a line.
        const m = e as { kind: string; from?: unknown; to?: unknown; contextWindow?: unknown };
        if (m.kind === 'model' && typeof m.to === 'string') {
          const window = typeof m.contextWindow === 'number' ? ` (window ${m.contextWindow.toLocaleString('en-US')} tokens)` : '';
          this.rows.push({ kind: 'notice', seq: e.seq, text: `Model switched from ${String(m.from)} to ${m.to}${window}`, tone: 'info' });
        }
        // A window learned from a refusal, or a server seen cutting the prompt: worth a line.
        const limits = e as { kind: string; message?: unknown; contextWindow?: unknown; model?: unknown; source?: unknown; thinking?: { mode?: unknown; efforts?: unknown } };
        // The provider said how the model thinks: the effort picker offers what it said.
        if (limits.kind === 'limits' && typeof limits.model === 'string' && limits.thinking && Array.isArray(limits.thinking.efforts)) {
          this.efforts = { model: limits.model, efforts: limits.thinking.mode === 'off' ? [] : (limits.thinking.efforts as string[]) };
        }
        if (limits.kind === 'limits' && typeof limits.message === 'string') {
          this.rows.push({ kind: 'notice', seq: e.seq, text: limits.message, tone: 'info' });
          if (this.gauge && typeof limits.contextWindow === 'number') {
            // The gauge's window and threshold tick move at once, before the next answer.
            // (A window the server said at last, after not answering, is no longer a guess.)
            const contextWindow = limits.contextWindow;
            const windowSource = isWindowSource(limits.source) ? limits.source : 'refusal';
            const { windowGuess, ...gauge } = this.gauge;
            this.gauge = { ...gauge, contextWindow, ratio: gauge.contextTokens / contextWindow, windowSource };
          }
        }
      }
    }
    return true;
  }

  /**
   * Adds the page of events just before the loaded ones (it must end at seq
   * `base`) and derives everything again, so later compactions fold and clear
   * the rows they cover. An answer being streamed is kept.
   */
  prepend(older: readonly SkeinEvent[]): boolean {
    if (!older.length || older.at(-1)!.seq !== this.base || older[0]!.seq < 1) return false;
    const loaded = this.events.splice(0);
    const { streaming, streamingThinking, retrying, stream } = this;
    this.rows = [];
    this.points = [];
    this.marks = [];
    this.gauge = undefined;
    this.efforts = undefined;
    this.state = this.initialState;
    this.toolRows.clear();
    this.openCompaction = undefined;
    this.lastAgentSeq = 0;
    this.base = older[0]!.seq - 1;
    for (const e of [...older, ...loaded]) if (!this.ingest(e)) return false;
    Object.assign(this, { streaming, streamingThinking, retrying, stream });
    this.version++;
    return true;
  }

  private takePlan(callSeq: number): void {
    const row = this.rows[this.indexOf(callSeq)];
    if (row?.kind !== 'tool') return;
    const parsed = parsePlan(row.call.input);
    if (parsed.ok) this.plan = parsed.plan;
  }

  /** Drops a half-streamed answer (the socket was reconnected: its deltas are gone). */
  endStream(): void {
    this.streaming = '';
    this.streamingThinking = '';
    this.retrying = false;
    this.stream = undefined;
  }

  /**
   * A streamed piece of the answer being written. Pieces of one model call
   * share `afterSeq` and `attempt`; a new attempt (a retry) replaces the text
   * so far; a piece seen twice, or one for an answer already logged, is dropped.
   */
  delta(frame: DeltaLike): void {
    const afterSeq = frame.afterSeq ?? this.lastSeq;
    const attempt = frame.attempt ?? 0;
    if (afterSeq < this.lastAgentSeq) return; // its answer has already arrived
    const same = this.stream && this.stream.afterSeq === afterSeq && this.stream.attempt === attempt;
    if (!same) {
      this.stream = { afterSeq, attempt, next: 0, nextThinking: 0 };
      this.streaming = '';
      this.streamingThinking = '';
    }
    const s = this.stream!;
    // Thinking pieces are counted apart from the answer's.
    const key = frame.channel === 'thinking' ? 'nextThinking' : 'next';
    if (frame.index !== undefined && frame.index < s[key]) return;
    s[key] = (frame.index ?? s[key]) + 1;
    if (frame.channel === 'thinking') this.streamingThinking += frame.text;
    else this.streaming += frame.text;
    this.retrying = attempt > 0;
    this.version++;
  }

  /** Index of the row with this seq, or of the first row after it. */
  indexOf(seq: number): number {
    return rowIndex(this.rows, seq);
  }

  private update<R extends Row>(seq: number, change: (row: R) => R): void {
    const i = this.indexOf(seq);
    const row = this.rows[i];
    if (row?.seq === seq) this.rows[i] = change(row as R);
  }

  private compaction(e: CompactionEvent): void {
    const open = this.openCompaction;
    if (e.phase === 'queued' || e.phase === 'started') {
      // A queued request is shown where it was asked; once it starts, the row moves to where it runs.
      if (open !== undefined) this.rows.splice(this.indexOf(open), 1);
      this.rows.push({ kind: 'compaction', seq: e.seq, event: e, startedAt: e.ts });
      this.openCompaction = e.seq;
      return;
    }
    this.openCompaction = undefined;
    const rowSeq = open ?? e.seq;
    if (open === undefined) this.rows.push({ kind: 'compaction', seq: e.seq, event: e, startedAt: e.ts });
    if (e.phase === 'failed') {
      this.update<CompactionRow>(rowSeq, (r) => ({ ...r, event: e }));
      return;
    }
    const extras = e as CompactionExtras;
    if (!e.coversSeq && typeof extras.clearedThroughSeq !== 'number' && (e.strategy === 'none' || e.tokensBefore === e.tokensAfter)) {
      // Nothing was folded or cleared: a plain line saying so, not a divider claiming a saving.
      const i = this.indexOf(rowSeq);
      if (this.rows[i]?.seq === rowSeq) this.rows.splice(i, 1);
      this.rows.push({ kind: 'notice', seq: e.seq, text: `Nothing to compact: ${e.summary ?? 'the context is already as small as it can be'}`, tone: 'info' });
      return;
    }
    if (e.coversSeq) this.fold(e.coversSeq, extras.keptSeqs ?? []);
    if (typeof extras.clearedThroughSeq === 'number') this.clear(extras.clearedThroughSeq);
    const ledger = extras.ledger ?? (e.coversSeq ? this.ledgerOf(e.coversSeq) : undefined);
    this.update<CompactionRow>(rowSeq, (r) => ({ ...r, event: e, ...(ledger && { ledger }) }));
    const last = this.points.at(-1);
    this.marks.push({
      seq: e.seq,
      rowSeq,
      index: this.points.length,
      before: e.tokensBefore ?? last?.tokens ?? 0,
      after: e.tokensAfter ?? 0,
      trigger: e.trigger,
    });
  }

  private fold([first, last]: [number, number], kept: readonly number[]): void {
    for (let i = this.indexOf(first); i < this.rows.length && this.rows[i]!.seq <= last; i++) {
      const r = this.rows[i]!;
      if ((r.kind === 'user' || r.kind === 'agent' || r.kind === 'tool') && !r.folded && !kept.includes(r.kind === 'tool' ? (r.result?.seq ?? r.seq) : r.seq)) this.rows[i] = { ...r, folded: true };
    }
  }

  private clear(throughSeq: number): void {
    for (let i = 0; i < this.rows.length && this.rows[i]!.seq <= throughSeq; i++) {
      const r = this.rows[i]!;
      if (r.kind === 'tool' && !r.cleared && !r.folded && r.result && r.result.seq <= throughSeq) this.rows[i] = { ...r, cleared: true };
    }
  }

  /** The deterministic record of a folded span, for servers that do not send one. */
  private ledgerOf([first, last]: [number, number]): LedgerView {
    const ledger: LedgerView = { userMessages: [], filesRead: [], filesWritten: [], commands: [], errors: [], omitted: { commands: 0, errors: 0, files: 0 } };
    const results = new Map<string, ToolResultEvent>();
    const span = this.events.slice(Math.max(0, first - 1 - this.base), Math.max(0, last - this.base));
    for (const e of span) if (e.kind === 'tool_result') results.set(e.callId, e);
    for (const e of span) {
      if (e.kind === 'user' && !parseCompactCommand(e.text)) ledger.userMessages.push({ seq: e.seq, text: e.text });
      else if (e.kind === 'error') ledger.errors.push(e.message);
      else if (e.kind === 'tool_call') {
        const path = typeof e.input.path === 'string' ? e.input.path : undefined;
        const result = results.get(e.callId);
        if (e.name === 'read_file' && path) ledger.filesRead.push(path);
        else if ((e.name === 'write_file' || e.name === 'edit_file') && path) ledger.filesWritten.push(path);
        else {
          const command = typeof e.input.command === 'string' ? e.input.command : `${e.name} ${JSON.stringify(e.input)}`;
          const status = result ? (result.output.split('\n', 1)[0] ?? '').slice(0, 200) : 'no result';
          ledger.commands.push({ seq: e.seq, command, status });
        }
        if (result?.isError) ledger.errors.push(`${e.name}: ${(result.output.split('\n', 1)[0] ?? '').slice(0, 200)}`);
      }
    }
    return ledger;
  }
}
