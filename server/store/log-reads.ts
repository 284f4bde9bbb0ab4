// The reads in flight of sessions being opened (JSONL store): two opens of one
// session at once (two tabs, a post during the read) share one read, and the
// load that follows takes its result. A session loaded meanwhile by another
// path (a synchronous load) makes that read stale: it is dropped, never used.
import { EventLog, type LogOptions } from './event-log.js';
import { readLog, SLICE_MS, yieldToLoop, type ReadLog } from './log-reader.js';
import { KindIndex } from './kind-index.js';
import type { LoadReport } from './types.js';

export class LogReads {
  private readonly reading = new Map<string, Promise<void>>();
  /** Finished reads waiting for their load (kept only until the openers resumed). */
  private readonly ready = new Map<string, ReadLog | Error>();
  /** Reads begun before a load by another path: their result is old. */
  private readonly stale = new Set<string>();
  /** How many logs were read here (tests prove two opens share one). */
  count = 0;

  /** Reads the log unless a read of it is under way (then waits for that one); errors are left to the load. */
  read(id: string, file: string): Promise<void> {
    let pending = this.reading.get(id);
    if (!pending) {
      this.count++;
      this.stale.delete(id);
      const done = (read: ReadLog | Error) => {
        this.reading.delete(id);
        if (this.stale.delete(id)) return;
        this.ready.set(id, read);
        // The openers resume in this microtask checkpoint and take it; whatever is left after is dropped.
        setImmediate(() => {
          if (this.ready.get(id) === read) this.ready.delete(id);
        });
      };
      pending = readLog(file).then(withKinds).then(done, (err: unknown) => done(err instanceof Error ? err : new Error(String(err))));
      this.reading.set(id, pending);
    }
    return pending;
  }

  /**
   * The session's log for its load: from the finished read (taken once; its
   * error thrown), or read synchronously when there was none (a caller that
   * did not open(), a read dropped as stale).
   */
  open(id: string, file: string, options: LogOptions = {}): { log: EventLog; report: LoadReport } {
    const read = this.take(id);
    if (read instanceof Error) throw read;
    return read ? { log: EventLog.fromRead(file, read, options), report: read.report } : EventLog.open(file, options);
  }

  /** The finished read of the session (once); a read still in flight becomes stale. */
  private take(id: string): ReadLog | Error | undefined {
    const read = this.ready.get(id);
    this.ready.delete(id);
    if (!read && this.reading.has(id)) this.stale.add(id);
    return read;
  }
}

/** The read with its kind index taken in slices: the session's start that follows asks it instead of passing over every event. */
async function withKinds(read: ReadLog): Promise<ReadLog> {
  const kinds = new KindIndex(read.events);
  await kinds.build(SLICE_MS, yieldToLoop);
  return { ...read, kinds };
}
