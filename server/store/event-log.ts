// The durable event log: one append-only JSONL file per session. The first
// line is a header with the format version; every other line is one event.
// An event is written to the file before append() returns (a refused write
// throws at once, nothing half-written stays). Group commit: every event
// appended in the same tick shares one fdatasync, run off the event loop; the
// log says when events are durable (onDurable), and the session shows an
// event to nobody before that.
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { NewEvent, SkeinEvent } from '../../shared/protocol.js';
import type { SessionLog } from './session-log.js';
import { LoadedEvents } from './loaded-events.js';
import { KindIndex } from './kind-index.js';
import { EventLines, parseHeader } from './log-lines.js';
import { yieldToLoop, SLICE_MS, type ReadLog } from './log-reader.js';
import type { LoadReport, LogHeader } from './types.js';

export { LOG_FORMAT_VERSION, type LoadReport, type LogHeader } from './types.js';

/**
 * `group` (default): one fdatasync for all events appended in a tick, off the
 * event loop. `each`: one synchronous fdatasync per event (the benchmark's
 * baseline, and what skein did before group commit).
 */
export type SyncMode = 'group' | 'each';

export interface LogOptions {
  sync?: SyncMode;
}

export class EventLog extends LoadedEvents implements SessionLog {
  private fd: number;
  /** Size of the file after the last complete append. */
  private bytes: number;
  /** `each` mode: an fdatasync per append (else group commit). */
  private readonly syncEach: boolean;
  /** An fdatasync is in flight (its callback starts the next one if more was appended). */
  private syncing = false;
  private closed = false;
  /** Told when an fdatasync fails (the events were written, their durability is unknown). */
  onSyncError: (err: Error) => void = (err) => console.error(`[skein] ${this.file}: fdatasync failed: ${err.message}`);

  private constructor(
    readonly file: string,
    readonly header: LogHeader,
    events: SkeinEvent[],
    fd: number,
    options: LogOptions,
    kinds?: KindIndex,
  ) {
    super(events, events.at(-1)?.seq ?? 0, kinds);
    this.fd = fd;
    this.bytes = fs.fstatSync(fd).size;
    this.syncEach = options.sync === 'each';
  }

  static create(file: string, header: LogHeader, options: LogOptions = {}): EventLog {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    // Append mode: after a failed write is cut back, the next write lands at the new end (no hole).
    const fd = fs.openSync(file, 'ax');
    writeAll(fd, JSON.stringify(header) + '\n');
    fs.fdatasyncSync(fd);
    return new EventLog(file, header, [], fd, options);
  }

  /** A new log that starts with copies of existing events (a fork), seqs and times kept; durable before it returns. */
  static createWith(file: string, header: LogHeader, events: readonly SkeinEvent[], options: LogOptions = {}): EventLog {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const fd = fs.openSync(file, 'ax');
    writeAll(fd, [header, ...events].map((line) => JSON.stringify(line) + '\n').join(''));
    fs.fdatasyncSync(fd);
    return new EventLog(file, header, [...events], fd, options);
  }

  /** createWith without holding the event loop: the lines written a slice at a time (fs.promises), then one fdatasync in the thread pool. */
  static async createWithAsync(file: string, header: LogHeader, events: readonly SkeinEvent[], options: LogOptions = {}): Promise<EventLog> {
    await fs.promises.mkdir(path.dirname(file), { recursive: true });
    const handle = await fs.promises.open(file, 'ax');
    try {
      await writeLines(handle, header, events);
      await handle.datasync();
    } catch (err) {
      // Nobody knows the new file yet: a failed copy leaves nothing behind.
      await handle.close().catch(() => undefined);
      await fs.promises.rm(file, { force: true });
      throw err;
    }
    await handle.close();
    // The kind index of the copy in slices too: the fork's start asks it (kind-index.ts).
    const copy = [...events];
    const kinds = new KindIndex(copy);
    await kinds.build(SLICE_MS, yieldToLoop);
    return new EventLog(file, header, copy, fs.openSync(file, 'a'), options, kinds);
  }

  /**
   * Loads a log; a torn last line is reported and skipped, nothing before it is
   * lost. A damaged line in the middle is skipped too and everything after it
   * loads; it keeps its seq (see EventLines), so no seq is ever given twice.
   * Synchronous: a request path reads with readLog (log-reader.ts) and fromRead.
   */
  static open(file: string, options: LogOptions = {}): { log: EventLog; report: LoadReport } {
    const text = fs.readFileSync(file, 'utf8');
    const lines = text.split('\n');
    // A complete file ends with "\n", so the last element is "" unless the tail was torn.
    const tail = lines.pop() ?? '';
    const header = parseHeader(file, lines[0] ?? '');
    const read = new EventLines(header.createdAt);
    for (let i = 1; i < lines.length; i++) read.add(lines[i]!, i);
    const report = read.report;
    if (tail !== '') report.tornTail = tail;
    return { log: EventLog.fromRead(file, { header, events: read.events, report, size: Buffer.byteLength(text) - Buffer.byteLength(tail) }, options), report };
  }

  /** The log of what readLog (or open) read: a torn tail is cut so the next append starts on a clean line. */
  static fromRead(file: string, read: ReadLog, options: LogOptions = {}): EventLog {
    if (read.report.tornTail !== undefined) {
      const fd = fs.openSync(file, 'r+');
      try {
        fs.ftruncateSync(fd, read.size);
      } finally {
        fs.closeSync(fd);
      }
    }
    return new EventLog(file, read.header, read.events, fs.openSync(file, 'a'), options, read.kinds);
  }

  /**
   * Gives the event its seq and ts, writes it to the file, and returns it; it
   * is durable at once (`each`) or with the tick's group fdatasync (`group`).
   * Throws if the disk refuses the write.
   */
  append(event: NewEvent): SkeinEvent {
    if (this.closed) throw new Error(`${this.file}: the log is closed`);
    const full = { seq: this.lastSeq + 1, ts: new Date().toISOString(), ...event } as SkeinEvent;
    const line = JSON.stringify(full) + '\n';
    try {
      writeAll(this.fd, line);
      if (this.syncEach) fs.fdatasyncSync(this.fd);
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
    if (this.syncEach) this.madeDurable(full.seq);
    else if (!this.syncing) {
      this.syncing = true;
      // After the current tick: everything appended in it shares the one fdatasync.
      setImmediate(() => this.groupSync());
    }
    return full;
  }

  /** One fdatasync for every event written so far, in the thread pool; then the next group, if any. */
  private groupSync(): void {
    if (this.closed) return this.finishClose();
    const upTo = this.lastSeq;
    fs.fdatasync(this.fd, (err) => {
      if (this.closed) return this.finishClose();
      if (err) this.onSyncError(err);
      this.madeDurable(upTo);
      if (this.lastSeq > upTo) this.groupSync();
      else this.syncing = false;
    });
  }

  /** Flushes what is pending (synchronously) and closes the file. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      if (this.durable < this.lastSeq) fs.fdatasyncSync(this.fd);
    } catch (err) {
      this.onSyncError(err as Error);
    }
    this.madeDurable(this.lastSeq);
    // An fdatasync still in flight closes the file when it returns (the fd must not be reused under it).
    if (!this.syncing) this.finishClose();
  }

  private finishClose(): void {
    fs.closeSync(this.fd);
  }
}

/** Writes all of `text`; a write that makes no progress is an error, not a loop that spins for ever. */
function writeAll(fd: number, text: string): void {
  const buf = Buffer.from(text);
  let offset = 0;
  while (offset < buf.length) {
    const written = fs.writeSync(fd, buf, offset);
    if (!(written > 0)) throw Object.assign(new Error(`EIO: the event log write made no progress at byte ${offset} of ${buf.length}`), { code: 'EIO' });
    offset += written;
  }
}

/** The header and events as JSONL lines, stringified and written about 1 MB at a time, the loop free between slices. */
async function writeLines(handle: fs.promises.FileHandle, header: LogHeader, events: readonly SkeinEvent[]): Promise<void> {
  let chunk = JSON.stringify(header) + '\n';
  let slice = performance.now();
  for (const event of events) {
    chunk += JSON.stringify(event) + '\n';
    if (chunk.length < 1024 * 1024 && performance.now() - slice < SLICE_MS) continue;
    await writeAllAsync(handle, chunk);
    chunk = '';
    await yieldToLoop();
    slice = performance.now();
  }
  await writeAllAsync(handle, chunk);
}

async function writeAllAsync(handle: fs.promises.FileHandle, text: string): Promise<void> {
  const buf = Buffer.from(text);
  let offset = 0;
  while (offset < buf.length) {
    const { bytesWritten } = await handle.write(buf, offset);
    if (!(bytesWritten > 0)) throw Object.assign(new Error(`EIO: the event log write made no progress at byte ${offset} of ${buf.length}`), { code: 'EIO' });
    offset += bytesWritten;
  }
}
