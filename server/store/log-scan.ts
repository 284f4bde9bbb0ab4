// Reads a session log once, streamed in chunks (never whole in memory, the
// event loop given back between chunks), and keeps only what the sessions
// index needs of it: the index entry of a session that was not running. The
// first start over a folder with no index (an upgrade, a lost index) builds
// its entries this way instead of starting every session: no agent, no
// tokenizer, memory bounded by one chunk and one line.
import fs from 'node:fs';
import { parseCompactCommand, type AgentState, type ApprovalMode, type Gauge, type ReasoningEffort, type SessionSnapshot } from '../../shared/protocol.js';
import { PLAN_TOOL, parsePlan, type Plan } from '../../shared/plan.js';
import { TitleFacts } from '../../shared/session-title.js';
import type { LogHeader } from './event-log.js';
import type { IndexEntry } from './session-index.js';

const CHUNK_BYTES = 1024 * 1024;

/** What a scan cannot know by itself: the title and archive flag set by a person, the gauge of a session that never called a model. */
export interface ScanContext {
  meta: { title?: string; archived?: boolean };
  /** Mtime of the meta file read (undefined: none). */
  metaMtimeMs: number | undefined;
  defaultEffort: ReasoningEffort;
  /** The gauge before any model call (estimated, 0 tokens) for the session's model. */
  emptyGauge: (model: string) => Gauge;
  /** Each user message read (the search index); a log that must be loaded may have given some before the scan gave up on it. */
  onUser?: (seq: number, text: string) => void;
}

/** The fields the scan reads; other kinds are only counted (seq, ts) and never parsed. */
interface ScannedEvent {
  seq: number;
  ts: string;
  kind: string;
  text?: string;
  to?: string;
  effort?: ReasoningEffort;
  gauge?: Gauge;
  phase?: string;
  trigger?: string;
  name?: string;
  callId?: string;
  input?: unknown;
  isError?: boolean;
}

const PARSED = new Set(['user', 'model', 'compaction', 'tool_call', 'tool_result']);
/** Kinds of which only the last one matters: its line is kept and parsed once, at the end (most of a log's lines are state changes). */
const LAST_ONLY = new Set(['state', 'usage', 'mode']);
/** Matched in place at each line's start (sticky): no string is made for a line that is not parsed. */
const HEAD = /\{"seq":(\d{1,15}),"ts":"([^"\n]*)","kind":"([a-z_]+)"/y;

/**
 * The entry of the log at `file`, or `undefined` when the session must be
 * started to be indexed (it ended mid-turn or with a queued compaction, or
 * its header cannot be read): the caller loads it as before.
 */
export async function scanLog(file: string, context: ScanContext): Promise<IndexEntry | undefined> {
  const handle = await fs.promises.open(file, 'r');
  try {
    const stat = await handle.stat();
    const state = new ScanState(context.onUser);
    const buf = Buffer.alloc(Math.min(CHUNK_BYTES, Math.max(1, stat.size)));
    let carry = '';
    let header: LogHeader | undefined;
    for (let pos = 0; pos < stat.size; ) {
      const { bytesRead } = await handle.read(buf, 0, buf.length, pos);
      if (bytesRead === 0) break;
      pos += bytesRead;
      // A chunk may end inside a multi-byte character: decode up to the last newline only.
      const end = buf.lastIndexOf(10, bytesRead - 1);
      const text = carry + (end >= 0 ? buf.toString('utf8', 0, end + 1) : buf.toString('utf8', 0, bytesRead));
      carry = end >= 0 ? buf.toString('utf8', end + 1, bytesRead) : '';
      if (end < 0) {
        carry = text;
        continue;
      }
      header = state.lines(text, text.length - 1, header);
    }
    // A torn last line (a crash mid-write) is not an event.
    if (!header || typeof header.skein !== 'number' || typeof header.session !== 'string') return undefined;
    return state.entry(header, stat, context);
  } finally {
    await handle.close();
  }
}

/** Logs up to this size are read in one synchronous read (a fraction of a millisecond; the caller yields between them). */
export const SMALL_LOG_BYTES = 256 * 1024;

const smallBuffer = Buffer.allocUnsafe(SMALL_LOG_BYTES);

/** scanLog for a small log: one read, no round trip through the thread pool per chunk (thousands of them at a first start). */
export function scanSmallLog(file: string, context: ScanContext): IndexEntry | undefined {
  const fd = fs.openSync(file, 'r');
  try {
    const stat = fs.fstatSync(fd);
    // One buffer for every small log (thousands at a first start): no allocation per file.
    const buf = stat.size <= smallBuffer.length ? smallBuffer : Buffer.allocUnsafe(stat.size);
    let read = 0;
    while (read < stat.size) {
      const n = fs.readSync(fd, buf, read, stat.size - read, read);
      if (n === 0) break;
      read += n;
    }
    const text = buf.toString('utf8', 0, read);
    const end = text.lastIndexOf('\n');
    if (end < 0) return undefined;
    const state = new ScanState(context.onUser);
    const header = state.lines(text, end, undefined);
    if (!header || typeof header.skein !== 'number' || typeof header.session !== 'string') return undefined;
    return state.entry(header, stat, context);
  } finally {
    fs.closeSync(fd);
  }
}

class ScanState {
  constructor(readonly onUser: ScanContext['onUser']) {}
  lastSeq = 0;
  lastTs: string | undefined;
  lastState: AgentState | undefined;
  model: string | undefined;
  effort: ReasoningEffort | undefined;
  gauge: Gauge | undefined;
  /** The user messages as the title needs them (made once the header is known: a fork's title differs). */
  titles: TitleFacts | undefined;
  /** Queued compactions not started yet, by trigger. */
  queued: string[] = [];
  damaged = false;
  planCalls = new Map<string, unknown>();
  plan: Plan | undefined;
  /** The user's last switch of the approval mode (a session that never switched follows SKEIN_APPROVAL). */
  chosenMode: ApprovalMode | undefined;

  /** The last line of each LAST_ONLY kind. */
  private readonly lastLines = new Map<string, string>();

  /** The lines of text[from, end) (end: the index of the last newline, or the text's end); the first line of the log is its header. Returns the header. */
  lines(text: string, end: number, header: LogHeader | undefined, from = 0): LogHeader | undefined {
    if (header) this.titles ??= new TitleFacts(header.forkOf);
    for (let start = from; start < end; ) {
      let stop = text.indexOf('\n', start);
      if (stop < 0 || stop > end) stop = end;
      if (!header) {
        header = JSON.parse(text.slice(start, stop)) as LogHeader;
        this.titles ??= new TitleFacts(header.forkOf);
      } else this.add(text, start, stop);
      start = stop + 1;
    }
    return header;
  }

  /** The line text[start, stop). */
  private add(text: string, start: number, stop: number): void {
    if (start === stop) return;
    HEAD.lastIndex = start;
    const head = HEAD.exec(text);
    if (!head || HEAD.lastIndex > stop) {
      this.damaged = true;
      return;
    }
    const seq = Number(head[1]);
    if (seq <= this.lastSeq) return;
    this.lastSeq = seq;
    // Only the last one is kept, copied at the end: a match is a slice that would keep the whole log's text alive.
    this.lastTs = head[2]!;
    const kind = head[3]!;
    // A line cut short (a crash, a damaged disk) ends without its closing brace: such a log is loaded, which reports it.
    if (text.charCodeAt(stop - 1) !== 125) {
      this.damaged = true;
      return;
    }
    if (LAST_ONLY.has(kind)) {
      this.lastLines.set(kind, text.slice(start, stop));
      return;
    }
    if (!PARSED.has(kind)) return;
    this.apply(kind, text.slice(start, stop));
  }

  private apply(kind: string, line: string): void {
    let e: ScannedEvent;
    try {
      e = JSON.parse(line) as ScannedEvent;
    } catch {
      this.damaged = true;
      return;
    }
    switch (kind) {
      case 'user':
        if (typeof e.text !== 'string' || parseCompactCommand(e.text)) return;
        this.titles?.user(e.seq, e.text);
        this.onUser?.(e.seq, e.text);
        return;
      case 'state':
        this.lastState = e.to as AgentState;
        return;
      case 'model':
        this.model = e.to;
        if (e.effort !== undefined) this.effort = e.effort;
        return;
      case 'usage':
        this.gauge = e.gauge;
        return;
      case 'mode':
        this.chosenMode = e.to as ApprovalMode;
        return;
      case 'compaction':
        if (e.phase === 'queued' && e.trigger) this.queued.push(e.trigger);
        else if (e.phase === 'started') {
          const i = this.queued.indexOf(e.trigger ?? '');
          if (i >= 0) this.queued.splice(i, 1);
        }
        return;
      case 'tool_call':
        if (e.name === PLAN_TOOL && e.callId) this.planCalls.set(e.callId, e.input);
        return;
      case 'tool_result':
        if (e.name !== PLAN_TOOL || e.isError || !e.callId || !this.planCalls.has(e.callId)) return;
        {
          const parsed = parsePlan(this.planCalls.get(e.callId));
          if (parsed.ok) this.plan = parsed.plan;
          this.planCalls.delete(e.callId);
        }
        return;
    }
  }

  entry(header: LogHeader, stat: fs.Stats, context: ScanContext): IndexEntry | undefined {
    for (const [kind, line] of this.lastLines) this.apply(kind, line);
    this.lastLines.clear();
    const state = this.lastState ?? 'WaitingForUserInput';
    // A damaged line becomes an error event only a real load places: such a log is loaded, as is one that must run.
    if (state !== 'WaitingForUserInput' || this.queued.length || this.damaged) return undefined;
    const model = this.model ?? header.model;
    const title = context.meta.title ?? (this.titles ?? new TitleFacts(header.forkOf)).title();
    const snapshot: SessionSnapshot = {
      id: header.session,
      state,
      model,
      effort: this.effort ?? context.defaultEffort,
      gauge: this.gauge ?? context.emptyGauge(model),
      lastSeq: this.lastSeq,
      title,
      createdAt: header.createdAt,
      lastActivity: this.lastTs === undefined ? header.createdAt : detached(this.lastTs),
      ...(context.meta.title && { customTitle: context.meta.title }),
      ...(context.meta.archived && { archived: true }),
      ...(header.workspace && { workspace: header.workspace }),
      ...(header.forkOf && { forkOf: header.forkOf }),
      ...(this.plan && { plan: this.plan }),
    };
    return { snapshot, size: stat.size, mtimeMs: stat.mtimeMs, ...(context.metaMtimeMs !== undefined && { metaMtimeMs: context.metaMtimeMs }), needsStart: false, ...(this.chosenMode && { chosenMode: this.chosenMode }) };
  }
}

/** A copy of `text` that shares no memory with the string it was cut from (V8 keeps a slice's parent alive: here, a whole log). */
function detached(text: string): string {
  return Buffer.from(text, 'utf8').toString('utf8');
}

/** A scan fed event lines in order (the PostgreSQL store's rows, read a page at a time: see database-summary-build.ts). */
export interface LineScan {
  add(line: string): void;
  /** The newline-separated event lines of text[start, end) (a whole line at each end). */
  addLines(text: string, start?: number, end?: number): void;
  /** The entry once every line is given; undefined: the session must be loaded. */
  entry(): IndexEntry | undefined;
}

export function lineScan(header: LogHeader, context: ScanContext): LineScan {
  const state = new ScanState(context.onUser);
  // The header is known: every line is an event, matched in place (no copy of the text is made).
  const addLines = (text: string, start = 0, end = text.length) => void state.lines(text, end, header, start);
  return {
    add: (line) => addLines(line),
    addLines,
    entry: () => state.entry(header, { size: -1, mtimeMs: -1 } as fs.Stats, context),
  };
}

/** The entry of a session from its event lines (the PostgreSQL store's rows hold the JSONL lines, see database-sessions.ts); undefined: it must be loaded. */
export function scanLines(header: LogHeader, lines: Iterable<string>, context: ScanContext): IndexEntry | undefined {
  const scan = lineScan(header, context);
  for (const line of lines) scan.add(line);
  return scan.entry();
}
