// Keeps the search index (store/search-index.ts) in step with the sessions:
// a loaded session gives what its log holds past the index's mark, then each
// user message as it is appended; an unloaded one whose log grew past its mark
// (a crash before the index was written, a log copied in) has the tail of its
// log read in the background after a start; the first scan gives every message
// it reads. The file is written at most every SAVE_MS, and at shutdown.
import { performance } from 'node:perf_hooks';
import { parseCompactCommand, type SkeinEvent } from '../../shared/protocol.js';
import { SearchIndex } from '../store/search-index.js';
import { feedUserMessages } from '../store/search-feed.js';
import type { Session } from '../agent/session.js';

/** How long a change may wait to reach the file (a crash before: the logs' tails are read again). */
const SAVE_MS = 30_000;
/** Small tails are read back to back for at most this long, then the event loop gets a turn. */
const SLICE_MS = 8;

export interface TailToRead {
  id: string;
  file: string;
  /** The log's size and last seq as the sessions index knows them. */
  size: number;
  lastSeq: number;
}

function typed(e: SkeinEvent): e is Extract<SkeinEvent, { kind: 'user' }> {
  return e.kind === 'user' && !parseCompactCommand(e.text);
}

export class SessionSearch {
  readonly index: SearchIndex;
  private saveTimer: ReturnType<typeof setTimeout> | undefined;
  private closed = false;

  constructor(sessionsDir: string) {
    this.index = new SearchIndex(sessionsDir);
  }

  load(): void {
    this.index.load();
  }

  /** The log holds bytes the index has not read (or fewer than it read: read it again from the start). */
  behind(id: string, size: number): boolean {
    const mark = this.index.mark(id);
    return mark === undefined || mark.offset !== size;
  }

  /**
   * A session just loaded: the messages past its mark, then each new one as
   * it is appended. The backlog (a fork of a big session, a log that grew
   * past its mark) is indexed in slices off the event loop: a fork of 150 MB
   * of typed text was 9 s of word splitting in one go. Its mark waits until
   * the backlog is in (a crash before leaves the old mark: read again).
   */
  follow(id: string, session: Session): void {
    const mark = this.index.mark(id);
    // The user messages past the mark, from the kind index (no copy of every event after it).
    const since = mark?.seq ?? 0;
    const backlog = session.log.kinds.eventsOf('user').filter((e) => e.seq > since && typed(e));
    session.observe((e) => {
      if (!typed(e)) return;
      this.index.add(id, e.seq, e.text);
      this.changed();
    });
    this.changed();
    if (!backlog.length) return;
    this.backlogs.set(id, undefined);
    void this.indexBacklog(id, backlog);
  }

  /** Sessions whose backlog is being indexed, with the mark to set once it is in. */
  private readonly backlogs = new Map<string, { seq: number; offset: number } | undefined>();

  private async indexBacklog(id: string, backlog: readonly Extract<SkeinEvent, { kind: 'user' }>[]): Promise<void> {
    let slice = performance.now();
    for (const e of backlog) {
      if (!this.backlogs.has(id)) return; // removed meanwhile
      this.index.add(id, e.seq, e.text);
      if (performance.now() - slice > SLICE_MS) {
        await new Promise((r) => setImmediate(r));
        slice = performance.now();
      }
    }
    const mark = this.backlogs.get(id);
    this.backlogs.delete(id);
    if (mark) this.marked(id, mark.seq, mark.offset);
    this.changed();
  }

  /** Everything of the session up to `seq` (and `offset` bytes of its log; -1: no file) is in the index. */
  marked(id: string, seq: number, offset: number): void {
    if (this.backlogs.has(id)) return void this.backlogs.set(id, { seq, offset });
    this.index.setMark(id, { seq, offset });
    if (this.index.dirty) this.changed();
  }

  /** The index has the session's messages up to `seq` (its mark says so). */
  covers(id: string, seq: number): boolean {
    const mark = this.index.mark(id);
    return mark !== undefined && mark.seq >= seq;
  }

  added(id: string, seq: number, text: string): void {
    this.index.add(id, seq, text);
  }

  removed(id: string): void {
    this.backlogs.delete(id);
    this.index.remove(id);
    this.changed();
  }

  /** Reads the tails of logs that grew past their marks, one at a time; `known(id)` false: the session went meanwhile. */
  async readTails(tails: readonly TailToRead[], known: (id: string) => boolean): Promise<void> {
    let slice = performance.now();
    for (const tail of tails) {
      if (this.closed) return;
      if (performance.now() - slice > SLICE_MS) {
        await new Promise((r) => setImmediate(r));
        slice = performance.now();
      }
      if (!known(tail.id)) continue;
      const mark = this.index.mark(tail.id);
      try {
        // A log shorter than the mark was replaced: read whole, the old postings dropped first.
        if (mark && mark.offset > tail.size) this.index.remove(tail.id);
        const from = mark && mark.offset <= tail.size ? mark.offset : 0;
        const result = await feedUserMessages(tail.file, Math.max(0, from), (seq, text) => this.index.add(tail.id, seq, text));
        if (!known(tail.id)) {
          this.index.remove(tail.id);
          continue;
        }
        this.marked(tail.id, result.offset === tail.size ? tail.lastSeq : Math.max(mark?.seq ?? 0, result.lastSeq), result.offset);
      } catch {
        // Unreadable now: a load of the session says why, and indexes it from memory.
      }
    }
    this.changed();
  }

  /** Session ids whose messages hold every word of `query`, each with the seq of a message to show. */
  search(query: string): Map<string, number> {
    return this.index.search(query);
  }

  private changed(): void {
    if (this.closed || this.saveTimer) return;
    this.saveTimer = setTimeout(() => {
      this.saveTimer = undefined;
      void this.index.save();
    }, SAVE_MS).unref();
  }

  /** Shutdown: no more tails are read; what changed is written. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.saveTimer);
    this.saveTimer = undefined;
    await this.index.save();
  }
}
