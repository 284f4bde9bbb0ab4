// The durable event log: one append-only JSONL file per session. The first
// line is a header with the format version; every other line is one event.
// An event is written and flushed to the OS before append() returns, so it is
// on disk before anyone can see it.
import fs from 'node:fs';
import path from 'node:path';
import type { NewEvent, SkeinEvent, Workspace } from '../../shared/protocol.js';

export const LOG_FORMAT_VERSION = 1;

export interface LogHeader {
  skein: typeof LOG_FORMAT_VERSION;
  session: string;
  createdAt: string;
  model: string;
  /** Where the session works (its folder, branch and starting commit); absent in logs from before workspaces. */
  workspace?: Workspace;
  /** A fork: the session it was copied from and the last event copied. */
  forkOf?: { session: string; seq: number };
}

export interface LoadReport {
  /** A torn final line (crash mid-write) that was skipped. */
  tornTail?: string;
  /** Lines that could not be parsed, or repeated an earlier seq, and were skipped (1-based). */
  badLines: number[];
}

export class EventLog {
  private readonly events: SkeinEvent[] = [];
  private fd: number;
  /** Size of the file after the last complete append. */
  private bytes: number;

  private constructor(
    readonly file: string,
    readonly header: LogHeader,
    events: SkeinEvent[],
    fd: number,
  ) {
    this.events = events;
    this.fd = fd;
    this.bytes = fs.fstatSync(fd).size;
  }

  static create(file: string, header: LogHeader): EventLog {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    // Append mode: after a failed write is cut back, the next write lands at the new end (no hole).
    const fd = fs.openSync(file, 'ax');
    writeAll(fd, JSON.stringify(header) + '\n');
    return new EventLog(file, header, [], fd);
  }

  /** A new log that starts with copies of existing events (a fork), seqs and times kept; durable before it returns. */
  static createWith(file: string, header: LogHeader, events: readonly SkeinEvent[]): EventLog {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const fd = fs.openSync(file, 'ax');
    writeAll(fd, [header, ...events].map((line) => JSON.stringify(line) + '\n').join(''));
    fs.fdatasyncSync(fd);
    return new EventLog(file, header, [...events], fd);
  }

  /**
   * Loads a log; a torn last line is reported and skipped, nothing before it is
   * lost. A damaged line in the middle is skipped too and everything after it
   * loads; it keeps its seq (see readEvents), so no seq is ever given twice.
   */
  static open(file: string): { log: EventLog; report: LoadReport } {
    const text = fs.readFileSync(file, 'utf8');
    const lines = text.split('\n');
    const report: LoadReport = { badLines: [] };
    // A complete file ends with "\n", so the last element is "" unless the tail was torn.
    const tail = lines.pop() ?? '';
    const header = JSON.parse(lines[0] ?? '') as LogHeader;
    if (typeof header.skein !== 'number' || header.skein > LOG_FORMAT_VERSION) {
      throw new Error(`${file}: unsupported log format ${JSON.stringify(header.skein)}`);
    }
    const events = readEvents(lines, header.createdAt, report);
    let fd = fs.openSync(file, 'r+');
    if (tail !== '') {
      report.tornTail = tail;
      // Cut the torn tail so the next append starts on a clean line.
      fs.ftruncateSync(fd, Buffer.byteLength(text) - Buffer.byteLength(tail));
    }
    fs.closeSync(fd);
    fd = fs.openSync(file, 'a');
    return { log: new EventLog(file, header, events, fd), report };
  }

  /** The highest seq in the log (seqs only grow; a skipped damaged line may leave a gap). */
  get lastSeq(): number {
    return this.events.at(-1)?.seq ?? 0;
  }

  /** All events with seq > since, in order (a binary search: seqs are increasing, not always index + 1). */
  since(since: number): SkeinEvent[] {
    let lo = 0;
    let hi = this.events.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.events[mid]!.seq <= since) lo = mid + 1;
      else hi = mid;
    }
    return this.events.slice(lo);
  }

  all(): readonly SkeinEvent[] {
    return this.events;
  }

  last<K extends SkeinEvent['kind']>(kind: K): Extract<SkeinEvent, { kind: K }> | undefined {
    for (let i = this.events.length - 1; i >= 0; i--) {
      const e = this.events[i]!;
      if (e.kind === kind) return e as Extract<SkeinEvent, { kind: K }>;
    }
    return undefined;
  }

  /** Gives the event its seq and ts, writes it durably, and returns it. Throws if the disk refuses. */
  append(event: NewEvent): SkeinEvent {
    const full = { seq: this.lastSeq + 1, ts: new Date().toISOString(), ...event } as SkeinEvent;
    const line = JSON.stringify(full) + '\n';
    try {
      writeAll(this.fd, line);
      fs.fdatasyncSync(this.fd);
    } catch (err) {
      // Disk full or similar: cut any partial line so the file stays valid.
      try {
        fs.ftruncateSync(this.fd, this.bytes);
      } catch {
        /* the next load reports a torn tail instead */
      }
      throw err;
    }
    this.bytes += Buffer.byteLength(line);
    this.events.push(full);
    return full;
  }

  close(): void {
    fs.closeSync(this.fd);
  }
}

function writeAll(fd: number, text: string): void {
  const buf = Buffer.from(text);
  let offset = 0;
  while (offset < buf.length) offset += fs.writeSync(fd, buf, offset);
}

/**
 * The events of a log's lines (after the header). An unreadable line stands
 * as an `error` event (code `damaged_log_line`) at the seq it held (read from
 * its start, or the next one): clients keep gap-free seqs and that seq is never
 * given to a new event. A readable event at or below the last seq is skipped.
 */
function readEvents(lines: readonly string[], createdAt: string, report: LoadReport): SkeinEvent[] {
  const events: SkeinEvent[] = [];
  /** Seq of the last event actually read (placeholders after it may still be replaced). */
  let lastRead = 0;
  for (let i = 1; i < lines.length; i++) {
    const event = parseEvent(lines[i]!);
    if (event && event.seq > lastRead) {
      // A placeholder that guessed this seq gives way to the real event.
      while (events.length && events.at(-1)!.seq >= event.seq) events.pop();
      events.push(event);
      lastRead = event.seq;
      continue;
    }
    report.badLines.push(i + 1);
    if (event) continue;
    const last = events.at(-1);
    const claimed = Number(/^\{"seq":(\d{1,15}),/.exec(lines[i]!)?.[1] ?? NaN);
    const seq = claimed > (last?.seq ?? 0) ? claimed : (last?.seq ?? 0) + 1;
    const message = `Line ${i + 1} of the session log could not be read and was skipped (event ${seq}).`;
    events.push({ seq, ts: last?.ts ?? createdAt, kind: 'error', code: 'damaged_log_line', message });
  }
  return events;
}

function parseEvent(line: string): SkeinEvent | undefined {
  try {
    const event = JSON.parse(line) as SkeinEvent;
    return Number.isSafeInteger(event.seq) && event.seq > 0 && typeof event.kind === 'string' ? event : undefined;
  } catch {
    return undefined;
  }
}
