// The list entries of sessions that have no summary row (a database from
// before migration 3, sessions imported by an older `skein migrate
// --from-jsonl`, a row lost): built from their event lines as the JSONL first
// scan reads logs (log-scan.ts), while the server already serves the list
// (`scanning`, as on JSONL). The lines are read a page at a time (keyset
// paging, a byte budget per page, whatever the sessions' sizes), each
// session's lines of a page as one string, and scanned in slices of the event
// loop; only the entries are kept, never the events.
import { performance } from 'node:perf_hooks';
import type { ScanProgress } from '../../shared/protocol.js';
import { lineScan, type LineScan, type ScanContext } from '../store/log-scan.js';
import type { PgStore, SessionLines } from '../store/postgres/pg-store.js';
import { USER_TEXT_CAP, type Summary, type SummaryEntry } from '../store/postgres/pg-summaries.js';

export interface BuildHost {
  readonly db: PgStore;
  context(id: string): ScanContext;
  /** Listed or loaded already (opened by a client before the build got to it: its loaded copy wrote the entry). */
  known(id: string): boolean;
  /** An entry built (its user text fed to search on the way). */
  indexed(id: string, entry: SummaryEntry): void;
  /** Opened before the build got to it: its loaded copy's summary is written (it may append nothing that would). */
  opened(id: string): Promise<void>;
  /** The session must run (it ended mid-turn, a queued compaction) or its lines are damaged: loaded as before. */
  load(id: string): Promise<void>;
  progress(progress: ScanProgress): void;
  closed(): boolean;
}

/**
 * Sessions whose lines one query reads (a page at a time). What a chunk keeps
 * until its summaries are written (headers, entries, typed text) is what the
 * heap grows by and does not give back: 400 sessions and 40,000 rows left the
 * first start over 5,000 sessions at +54 MB of RSS, 100 and 10,000 at +46 MB
 * (2 runs each, side by side), for the same time.
 */
const SESSIONS_PER_CHUNK = 100;
/** Event rows a chunk of sessions should hold about (their last seqs say how many they have). */
const ROWS_PER_CHUNK = 10_000;
/**
 * Bytes of lines one page should hold about (a 150 MB session is read in
 * pages like a small one). Small enough that a page is scanned and dropped
 * within one young-generation cycle of the heap: with 2 MB pages (10,000
 * rows) a page was often still referenced at the second collection after it
 * arrived, promoted, and the old generation grew by up to 100 MB of garbage.
 */
const PAGE_BYTES = 512 * 1024;
/** Rows of the build's first page (whatever the lines' sizes: few); later pages are sized by the bytes of the rows before, up to PAGE_ROWS. */
const FIRST_PAGE_ROWS = 64;
const PAGE_ROWS = 10_000;
/** Characters of lines scanned between two looks at the clock (about a millisecond of work). */
const PIECE_CHARS = 256 * 1024;
/** Lines are scanned back to back for at most this long, then the event loop gets a turn. */
const SLICE_MS = 8;
const PROGRESS_MS = 250;

interface Building {
  id: string;
  scan: LineScan;
  /** The typed text, lower-cased, a message a part (joined at the end: `+=` kept a tree of every piece until the chunk's summaries were written, and the heap promoted it). */
  parts: string[];
  length: number;
  complete: boolean;
}

export class SummaryBuild {
  private done = 0;
  private finished = false;
  private readonly waiting: Set<string>;
  private slice = performance.now();
  private told = 0;
  /** Rows of the next page, sized by the bytes of the rows before (kept from one chunk of sessions to the next). */
  private limit = FIRST_PAGE_ROWS;

  /**
   * `sessions`: in id order, each with its committed last seq (about how many
   * rows it has) and its run: sessions of one run follow each other in the
   * database's id order with no other between (their lines are read as one range).
   */
  constructor(
    private readonly sessions: readonly { id: string; lastSeq: number; run: number }[],
    private readonly host: BuildHost,
  ) {
    this.waiting = new Set(sessions.map((s) => s.id));
  }

  /** Still to be built: a client asking for it has it loaded at once. */
  pending(id: string): boolean {
    return this.waiting.has(id);
  }

  progress(): ScanProgress | undefined {
    return this.finished || !this.sessions.length ? undefined : { done: this.done, total: this.sessions.length };
  }

  async run(): Promise<void> {
    try {
      for (let i = 0; i < this.sessions.length && !this.host.closed(); ) {
        const chunk: string[] = [];
        let rows = 0;
        const run = this.sessions[i]!.run;
        while (i < this.sessions.length && this.sessions[i]!.run === run && chunk.length < SESSIONS_PER_CHUNK && (!chunk.length || rows + this.sessions[i]!.lastSeq <= ROWS_PER_CHUNK)) {
          rows += this.sessions[i]!.lastSeq;
          chunk.push(this.sessions[i++]!.id);
        }
        const wanted = chunk.filter((id) => !this.host.known(id));
        if (wanted.length) await this.build(wanted);
        for (const id of chunk) if (!wanted.includes(id)) await this.host.opened(id);
        for (const id of chunk) this.waiting.delete(id);
        this.done += chunk.length;
        if (Date.now() - this.told >= PROGRESS_MS) {
          this.told = Date.now();
          this.host.progress({ done: this.done, total: this.sessions.length });
        }
      }
    } finally {
      this.finished = true;
      this.waiting.clear();
      if (this.sessions.length) this.host.progress({ done: this.done, total: this.sessions.length });
    }
  }

  /** The current slice is used up: the event loop gets a turn (checked inline: an await per line costs more than the line). */
  private spent(): boolean {
    return performance.now() - this.slice >= SLICE_MS;
  }

  private async breathe(): Promise<void> {
    await new Promise((r) => setImmediate(r));
    this.slice = performance.now();
  }

  /** Scans a session's lines of one page, PIECE_CHARS at a time (a page of a huge session is one string): the event loop gets a turn between pieces. */
  private async scanText(scan: LineScan, text: string): Promise<void> {
    for (let start = 0; start < text.length; ) {
      let end = start + PIECE_CHARS >= text.length ? text.length : text.indexOf('\n', start + PIECE_CHARS);
      if (end < 0) end = text.length;
      scan.addLines(text, start, end);
      start = end + 1;
      if (this.spent()) await this.breathe();
    }
  }

  private async build(ids: string[]): Promise<void> {
    const headers = await this.host.db.headersOf(ids);
    const built: { id: string; summary: Summary }[] = [];
    const toLoad: string[] = [];
    const opened: string[] = [];
    const seen = new Set<string>();
    let current: Building | undefined;
    const begin = (id: string): Building => {
      seen.add(id);
      const context = this.host.context(id);
      const building: Building = { id, scan: undefined!, parts: [], length: 0, complete: true };
      // The summary row keeps the typed text as UserTextTracker does (the scan gives no compact command).
      const fed = context.onUser;
      building.scan = lineScan(headers.get(id)!, {
        ...context,
        onUser: (seq, text) => {
          fed?.(seq, text);
          if (!building.complete) return;
          const lower = text.toLowerCase();
          building.length += (building.parts.length ? 1 : 0) + lower.length;
          building.parts.push(lower);
          if (building.length > USER_TEXT_CAP) building.complete = false;
        },
      });
      return building;
    };
    const finish = (building: Building) => {
      // Opened meanwhile: its loaded copy wrote the entry.
      if (this.host.known(building.id)) return void opened.push(building.id);
      const scanned = building.scan.entry();
      if (!scanned) return void toLoad.push(building.id);
      const joined = building.parts.join('\n');
      const userText = joined.length > USER_TEXT_CAP ? joined.slice(0, USER_TEXT_CAP) : joined;
      const entry: SummaryEntry = { ...scanned, userText, userTextComplete: building.complete };
      this.host.indexed(building.id, entry);
      built.push({ id: building.id, summary: { lastSeq: entry.snapshot.lastSeq, entry } });
    };
    // The range from the first to the last (a session made meanwhile in it is not among the headers: skipped).
    const read = (after: { session: string; seq: number } | undefined, limit: number) => this.host.db.linesInRange(ids[0]!, ids.at(-1)!, after, limit, PAGE_BYTES);
    let limit = this.limit;
    let next: Promise<SessionLines[]> | undefined = read(undefined, limit);
    while (next) {
      const page = await next;
      next = undefined;
      let bytes = 0;
      let rows = 0;
      for (const part of page) {
        bytes += part.bytes;
        rows += part.count;
      }
      if (rows) this.limit = Math.max(16, Math.min(PAGE_ROWS, Math.floor(PAGE_BYTES / Math.max(1, bytes / rows))));
      // A page cut neither by rows nor by bytes was the range's last. The next is asked for before this one is
      // scanned: the database reads it meanwhile (one page ahead, no more).
      if ((rows === limit || bytes >= PAGE_BYTES) && !this.host.closed()) {
        const last = page.at(-1)!;
        limit = this.limit;
        next = read({ session: last.session, seq: last.lastSeq }, limit);
        // Awaited at the next turn of the loop; a shutdown before must not leave its failure unhandled.
        next.catch(() => undefined);
      }
      for (const part of page) {
        if (current?.id !== part.session) {
          if (current) finish(current);
          current = headers.has(part.session) ? begin(part.session) : undefined;
        }
        if (current) await this.scanText(current.scan, part.lines);
      }
      if (this.host.closed()) break;
    }
    if (this.host.closed()) return;
    if (current) finish(current);
    // Sessions with no event yet: the entry of the header alone.
    for (const id of headers.keys()) if (!seen.has(id)) finish(begin(id));
    await this.host.db.saveBuiltSummaries(built);
    for (const id of toLoad) if (!this.host.known(id)) await this.host.load(id);
    for (const id of opened) await this.host.opened(id);
  }
}
