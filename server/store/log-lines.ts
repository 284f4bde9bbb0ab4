// The lines of a JSONL session log turned into events, one line at a time:
// shared by the synchronous open (EventLog.open) and the read in slices
// (log-reader.ts), so both give the same events and the same load report.
import type { SkeinEvent } from '../../shared/protocol.js';
import { LOG_FORMAT_VERSION, type LoadReport, type LogHeader } from './types.js';

/** The header line (the file's first); throws on a format this server does not know. */
export function parseHeader(file: string, line: string): LogHeader {
  const header = JSON.parse(line) as LogHeader;
  if (typeof header?.skein !== 'number' || header.skein > LOG_FORMAT_VERSION) {
    throw new Error(`${file}: unsupported log format ${JSON.stringify(header?.skein)}`);
  }
  return header;
}

/**
 * The events of a log's lines (after the header). An unreadable line stands
 * as an `error` event (code `damaged_log_line`) at the seq it held (read from
 * its start, or the next one): clients keep gap-free seqs and that seq is never
 * given to a new event. A readable event at or below the last seq is skipped.
 */
export class EventLines {
  readonly events: SkeinEvent[] = [];
  readonly report: LoadReport = { badLines: [] };
  /** Seq of the last event actually read (placeholders after it may still be replaced). */
  private lastRead = 0;

  constructor(private readonly createdAt: string) {}

  /** The line at 0-based `index` in the file (the header is index 0). */
  add(line: string, index: number): void {
    const events = this.events;
    const event = parseEvent(line);
    if (event && event.seq > this.lastRead) {
      // A placeholder that guessed this seq gives way to the real event.
      while (events.length && events.at(-1)!.seq >= event.seq) events.pop();
      events.push(event);
      this.lastRead = event.seq;
      return;
    }
    this.report.badLines.push(index + 1);
    if (event) return;
    const last = events.at(-1);
    const claimed = Number(/^\{"seq":(\d{1,15}),/.exec(line)?.[1] ?? NaN);
    const seq = claimed > (last?.seq ?? 0) ? claimed : (last?.seq ?? 0) + 1;
    const message = `Line ${index + 1} of the session log could not be read and was skipped (event ${seq}).`;
    events.push({ seq, ts: last?.ts ?? this.createdAt, kind: 'error', code: 'damaged_log_line', message });
  }
}

function parseEvent(line: string): SkeinEvent | undefined {
  try {
    const event = JSON.parse(line) as SkeinEvent;
    return Number.isSafeInteger(event.seq) && event.seq > 0 && typeof event.kind === 'string' ? event : undefined;
  } catch {
    return undefined;
  }
}
