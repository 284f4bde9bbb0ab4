// The durable event log: one append-only JSONL file per session. The first
// line is a header with the format version; every other line is one event.
// An event is written and flushed to the OS before append() returns, so it is
// on disk before anyone can see it.
import fs from 'node:fs';
import path from 'node:path';
import type { NewEvent, SkeinEvent } from '../../shared/protocol.js';

export const LOG_FORMAT_VERSION = 1;

export interface LogHeader {
  skein: typeof LOG_FORMAT_VERSION;
  session: string;
  createdAt: string;
  model: string;
}

export interface LoadReport {
  /** A torn final line (crash mid-write) that was skipped. */
  tornTail?: string;
  /** Lines that could not be parsed and were skipped, 1-based. */
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

  /** Loads a log; a torn last line is reported and skipped, nothing before it is lost. */
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
    const events: SkeinEvent[] = [];
    for (let i = 1; i < lines.length; i++) {
      const event = parseEvent(lines[i]!);
      if (event && event.seq === events.length + 1) events.push(event);
      else report.badLines.push(i + 1);
    }
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

  get lastSeq(): number {
    return this.events.length;
  }

  /** All events with seq > since, in order. */
  since(since: number): SkeinEvent[] {
    return this.events.slice(Math.max(0, since));
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
    const full = { seq: this.events.length + 1, ts: new Date().toISOString(), ...event } as SkeinEvent;
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

function parseEvent(line: string): SkeinEvent | undefined {
  try {
    const event = JSON.parse(line) as SkeinEvent;
    return typeof event.seq === 'number' && typeof event.kind === 'string' ? event : undefined;
  } catch {
    return undefined;
  }
}
