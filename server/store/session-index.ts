// The sessions index: what the sessions list needs of every session, kept in
// <data dir>/sessions so that a start reads no log. It is a cache: each entry
// remembers the size and mtime of the log it was taken from, and an entry
// whose log changed since (a crash before the index was written, a log copied
// in by hand) is rebuilt from the log.
//
// On disk it is a snapshot (index.json) and an append-only journal
// (index.journal) of the entries that changed since: a change costs one
// appended line per session, never a rewrite of every entry. Each journal line
// carries a number; the snapshot records the last number it holds, so lines
// already in it are skipped. When the journal has grown past the snapshot, it
// is compacted: the journal is set aside, the snapshot written in chunks to a
// temporary file (the loop is never held for the whole index) and renamed,
// then the old journal removed. A crash at any point leaves a snapshot and the
// lines after it, or at worst entries that are stale and rebuilt from logs.
import fs from 'node:fs';
import path from 'node:path';
import type { ApprovalMode, SessionSnapshot } from '../../shared/protocol.js';
import { readJournal } from './index-journal.js';
import type { IndexEntry, JournalLine } from './types.js';

export type { IndexEntry, JournalLine } from './types.js';

/** 3: typed text left the entries for the search index (search-index.ts). */
export const INDEX_VERSION = 3;
/** The journal is compacted once it is larger than this and than the snapshot. */
const COMPACT_MIN_BYTES = 1024 * 1024;
/** Entries serialised per chunk of a snapshot write (one chunk per turn of the event loop). */
const CHUNK = 200;


interface IndexFile {
  version: typeof INDEX_VERSION;
  /** The last journal line number the snapshot includes. */
  upTo: number;
  sessions: Record<string, IndexEntry>;
}


export class SessionIndex {
  readonly file: string;
  readonly journal: string;
  private readonly entries = new Map<string, IndexEntry>();
  /** Number of the last journal line written (or read). */
  private n = 0;
  private journalBytes = 0;
  private snapshotBytes = 0;
  /** Writes, in order: a journal append never overtakes a compaction. */
  private queue: Promise<void> = Promise.resolve();
  /** Ids whose entry changed and is not yet in a write. */
  private readonly pending = new Set<string>();
  /** Told when a write fails (the next start rebuilds what it lost from the logs). */
  onError: (err: Error) => void = (err) => console.warn(`[skein] could not write the sessions index (${err.message}); the next start rebuilds it from the logs`);

  constructor(readonly sessionsDir: string) {
    this.file = path.join(sessionsDir, 'index.json');
    this.journal = path.join(sessionsDir, 'index.journal');
  }

  /** The saved entries (snapshot, then journal; `repair` cuts a torn journal line, which only the owner of the folder may); a snapshot that is missing, unreadable or of another version gives none (all rebuilt). */
  readSaved(options: { repair?: boolean } = {}): Map<string, IndexEntry> {
    const saved = new Map<string, IndexEntry>();
    let upTo = 0;
    try {
      const text = fs.readFileSync(this.file, 'utf8');
      const raw = JSON.parse(text) as IndexFile;
      if (raw.version === INDEX_VERSION && typeof raw.sessions === 'object' && raw.sessions !== null && Number.isSafeInteger(raw.upTo)) {
        for (const [id, e] of Object.entries(raw.sessions)) if (isEntry(e)) saved.set(id, e);
        upTo = raw.upTo;
        this.snapshotBytes = text.length;
      }
    } catch {
      // No snapshot: the journal alone (lines after 0) still holds what changed.
    }
    // A compaction cut short leaves its old journal: its lines come first.
    const lines = [...readJournal(`${this.journal}.old`).lines, ...readJournal(this.journal, options.repair === true).lines];
    this.journalBytes = fileSize(this.journal);
    this.n = upTo;
    for (const line of lines) {
      if (line.n <= upTo) continue;
      if (line.entry === undefined) saved.delete(line.id);
      else if (isEntry(line.entry)) saved.set(line.id, line.entry);
      this.n = Math.max(this.n, line.n);
    }
    return saved;
  }

  /** A saved entry still describes its log when the log's size and mtime, and its meta file's mtime, are the ones recorded. */
  static fresh(entry: IndexEntry | undefined, stat: { size: number; mtimeMs: number }, metaMtimeMs: number | undefined): entry is IndexEntry {
    return entry !== undefined && entry.size === stat.size && entry.mtimeMs === stat.mtimeMs && entry.metaMtimeMs === metaMtimeMs;
  }

  get(id: string): IndexEntry | undefined {
    return this.entries.get(id);
  }

  has(id: string): boolean {
    return this.entries.has(id);
  }

  ids(): string[] {
    return [...this.entries.keys()];
  }

  get size(): number {
    return this.entries.size;
  }

  /** Sets an entry in memory; `persist` marks it for the next write (an entry read from disk needs none). */
  set(id: string, entry: IndexEntry, persist = true): void {
    this.entries.set(id, entry);
    if (persist) this.pending.add(id);
  }

  delete(id: string): void {
    if (this.entries.delete(id)) this.pending.add(id);
  }

  clear(): void {
    this.entries.clear();
    this.pending.clear();
  }

  /**
   * Appends the changed entries to the journal, off the event loop (serialised
   * and written a chunk at a time), and compacts the journal when it has grown. With `sync`,
   * the journal is flushed to disk before the promise resolves (a rename: the
   * log did not change, so a lost line would not be rebuilt).
   */
  write(options: { sync?: boolean } = {}): Promise<void> {
    // The entries as they are now (an entry is replaced, never changed in place): serialised later, in chunks.
    const lines: JournalLine[] = [];
    for (const id of this.pending) {
      const entry = this.entries.get(id);
      lines.push({ n: ++this.n, id, ...(entry && { entry }) });
    }
    this.pending.clear();
    const run = async () => {
      if (lines.length) {
        const handle = await fs.promises.open(this.journal, 'a');
        try {
          // A few hundred entries per write: the event loop is never held for all of them.
          for (let i = 0; i < lines.length; i += CHUNK) {
            const text = lines.slice(i, i + CHUNK).map((line) => JSON.stringify(line) + '\n').join('');
            await handle.appendFile(text);
            this.journalBytes += Buffer.byteLength(text);
          }
          if (options.sync) await handle.datasync();
        } finally {
          await handle.close();
        }
      }
      if (this.journalBytes > Math.max(COMPACT_MIN_BYTES, this.snapshotBytes)) await this.compactNow();
    };
    this.queue = this.queue.then(run).catch((err: unknown) => this.onError(err instanceof Error ? err : new Error(String(err))));
    return this.queue;
  }

  /** Writes the snapshot of every entry now (chunked, off the loop) and starts an empty journal. */
  compact(): Promise<void> {
    this.queue = this.queue.then(() => this.compactNow()).catch((err: unknown) => this.onError(err instanceof Error ? err : new Error(String(err))));
    return this.queue;
  }

  /** Only from inside the queue. */
  private async compactNow(): Promise<void> {
    const upTo = this.n;
    const snapshot = [...this.entries];
    // From here on, new lines go to a new journal; the old one stays until the snapshot that holds its lines is in place.
    await fs.promises.rename(this.journal, `${this.journal}.old`).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
    });
    this.journalBytes = 0;
    const tmp = `${this.file}.tmp-${process.pid}`;
    const handle = await fs.promises.open(tmp, 'w');
    let bytes = 0;
    try {
      let chunk = `{"version":${INDEX_VERSION},"upTo":${upTo},"sessions":{`;
      for (let i = 0; i < snapshot.length; i++) {
        const [id, entry] = snapshot[i]!;
        chunk += `${i ? ',' : ''}${JSON.stringify(id)}:${JSON.stringify(entry)}`;
        if ((i + 1) % CHUNK === 0) {
          bytes += chunk.length;
          await handle.write(chunk);
          chunk = '';
        }
      }
      chunk += '}}';
      bytes += chunk.length;
      await handle.write(chunk);
      await handle.datasync();
    } finally {
      await handle.close();
    }
    await fs.promises.rename(tmp, this.file);
    await fs.promises.rm(`${this.journal}.old`, { force: true });
    this.snapshotBytes = bytes;
  }

  /** Resolves when every write asked for so far is done. */
  idle(): Promise<void> {
    return this.queue;
  }
}

function fileSize(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}

function isEntry(value: unknown): value is IndexEntry {
  const e = value as IndexEntry;
  return (
    typeof e === 'object' && e !== null && typeof e.size === 'number' && typeof e.mtimeMs === 'number' &&
    typeof e.needsStart === 'boolean' && typeof e.snapshot === 'object' &&
    e.snapshot !== null && typeof e.snapshot.id === 'string' && typeof e.snapshot.lastActivity === 'string'
  );
}
