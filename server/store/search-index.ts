// The full-text index of what users typed, for GET /api/sessions?q=: a query
// reads no log, and costs about the same with 10 sessions or 10,000, and with
// a 150 MB log. An inverted index kept small on purpose: for each word, the
// sessions that hold it and the seq of the last user message there that holds
// it (where the UI jumps). Adding a message is idempotent (the seq kept is the
// larger), so reading a stretch of log twice does no harm.
//
// Persisted in <data dir>/sessions/search.json with, per session, the seq and
// the byte length of its log indexed so far (its mark): a start reads only
// what was appended after the mark. The file is a cache, written a chunk at a
// time off the event loop; a crash between writes only costs re-reading the
// logs' tails (or whole logs, when the file is lost).
import fs from 'node:fs';
import path from 'node:path';

export const SEARCH_VERSION = 1;
/** Words longer than this are cut (a pasted blob must not make a giant term). */
const MAX_WORD = 40;
/** Terms serialised per chunk of a write (one chunk per turn of the event loop). */
const CHUNK = 2000;
const WORD = /[\p{L}\p{N}_]+/gu;

/** How much of a session's log is in the index: its last seq, and the bytes of its log file read (-1: no file). */
export interface SearchMark {
  seq: number;
  offset: number;
}

interface SearchFile {
  version: typeof SEARCH_VERSION;
  /** Session numbers (their index in this array) to ids; null: removed. */
  ids: (string | null)[];
  marks: Record<string, [number, number]>;
  /** Each term with its postings, flattened: session number, seq, session number, seq… */
  terms: [string, number[]][];
}

/** The distinct lower-cased words of `text`, in order of first appearance. */
export function words(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.toLowerCase().matchAll(WORD)) out.add(m[0].length > MAX_WORD ? m[0].slice(0, MAX_WORD) : m[0]);
  return [...out];
}

export class SearchIndex {
  readonly file: string;
  /** term -> session number -> seq of the last user message holding it. */
  private readonly terms = new Map<string, Map<number, number>>();
  private readonly ids: (string | null)[] = [];
  private readonly nums = new Map<string, number>();
  private readonly marks = new Map<string, SearchMark>();
  private queue: Promise<void> = Promise.resolve();
  /** Something changed since the last write began. */
  dirty = false;
  onError: (err: Error) => void = (err) => console.warn(`[skein] could not write the search index (${err.message}); the next start reads the logs again`);

  constructor(sessionsDir: string) {
    this.file = path.join(sessionsDir, 'search.json');
  }

  /** Reads the saved index (a missing, damaged or older file: empty, every log is read again). */
  load(): void {
    this.terms.clear();
    this.ids.length = 0;
    this.nums.clear();
    this.marks.clear();
    let raw: SearchFile;
    try {
      raw = JSON.parse(fs.readFileSync(this.file, 'utf8')) as SearchFile;
    } catch {
      return;
    }
    if (raw?.version !== SEARCH_VERSION || !Array.isArray(raw.ids) || !Array.isArray(raw.terms) || typeof raw.marks !== 'object' || raw.marks === null) return;
    raw.ids.forEach((id, n) => {
      this.ids.push(typeof id === 'string' ? id : null);
      if (typeof id === 'string') this.nums.set(id, n);
    });
    for (const [id, mark] of Object.entries(raw.marks)) {
      if (this.nums.has(id) && Array.isArray(mark) && Number.isSafeInteger(mark[0]) && Number.isSafeInteger(mark[1])) this.marks.set(id, { seq: mark[0], offset: mark[1] });
    }
    for (const item of raw.terms) {
      if (!Array.isArray(item) || typeof item[0] !== 'string' || !Array.isArray(item[1])) continue;
      const postings = new Map<number, number>();
      const flat = item[1];
      for (let i = 0; i + 1 < flat.length; i += 2) {
        const n = flat[i]!;
        // A session without a mark is read again whole: its old postings go.
        if (this.ids[n] && this.marks.has(this.ids[n]!)) postings.set(n, flat[i + 1]!);
      }
      if (postings.size) this.terms.set(item[0], postings);
    }
    // Numbers of sessions without a mark are dropped (read again from seq 0).
    for (const [id, n] of [...this.nums]) {
      if (!this.marks.has(id)) {
        this.nums.delete(id);
        this.ids[n] = null;
      }
    }
  }

  mark(id: string): SearchMark | undefined {
    return this.marks.get(id);
  }

  /** Everything of the session up to `mark` is in the index. */
  setMark(id: string, mark: SearchMark): void {
    const old = this.marks.get(id);
    if (old && old.seq === mark.seq && old.offset === mark.offset) return;
    this.numOf(id);
    this.marks.set(id, mark);
    this.dirty = true;
  }

  /** A user message of session `id`. */
  add(id: string, seq: number, text: string): void {
    const n = this.numOf(id);
    for (const word of words(text)) {
      let postings = this.terms.get(word);
      if (!postings) this.terms.set(word, (postings = new Map()));
      if ((postings.get(n) ?? 0) < seq) postings.set(n, seq);
    }
    this.dirty = true;
  }

  /** The session is gone (deleted, or its log is read again from the start). */
  remove(id: string): void {
    const n = this.nums.get(id);
    this.marks.delete(id);
    if (n === undefined) return;
    this.nums.delete(id);
    this.ids[n] = null;
    for (const [term, postings] of this.terms) {
      if (postings.delete(n) && postings.size === 0) this.terms.delete(term);
    }
    this.dirty = true;
  }

  /**
   * The sessions whose user messages hold every word of `query` (the last
   * letters of a word may be missing: "zanz" finds "zanzibar"), each with the
   * seq of a message to show: the last one holding the word found least late.
   */
  search(query: string): Map<string, number> {
    const wanted = words(query);
    const found = new Map<string, number>();
    if (!wanted.length) return found;
    const perWord = wanted.map((w) => this.postingsOf(w));
    perWord.sort((a, b) => a.size - b.size);
    const [first, ...rest] = perWord;
    for (const [n, seq] of first!) {
      let at = seq;
      let all = true;
      for (const other of rest) {
        const s = other.get(n);
        if (s === undefined) {
          all = false;
          break;
        }
        at = Math.min(at, s);
      }
      const id = this.ids[n];
      if (all && id) found.set(id, at);
    }
    return found;
  }

  /** Session number -> last seq, over every term that starts with `word`. */
  private postingsOf(word: string): Map<number, number> {
    const exact = this.terms.get(word);
    let merged: Map<number, number> | undefined;
    // A scan of the terms (not of sessions or logs): a few ms at 100,000 distinct words.
    for (const [term, postings] of this.terms) {
      if (term === word || !term.startsWith(word)) continue;
      merged ??= new Map(exact);
      for (const [n, seq] of postings) if ((merged.get(n) ?? 0) < seq) merged.set(n, seq);
    }
    return merged ?? exact ?? new Map();
  }

  private numOf(id: string): number {
    let n = this.nums.get(id);
    if (n === undefined) {
      n = this.ids.length;
      this.ids.push(id);
      this.nums.set(id, n);
    }
    return n;
  }

  /**
   * Writes the index to a temporary file a chunk of terms at a time (the event
   * loop is free between chunks), then renames it into place. The marks are
   * taken first: a message added while the terms are written is in them or
   * after a mark, so read again at the next start, never lost.
   */
  save(): Promise<void> {
    const run = async () => {
      if (!this.dirty) return;
      this.dirty = false;
      const marks: Record<string, [number, number]> = {};
      for (const [id, m] of this.marks) marks[id] = [m.seq, m.offset];
      const head = `{"version":${SEARCH_VERSION},"ids":${JSON.stringify(this.ids)},"marks":${JSON.stringify(marks)},"terms":[`;
      const terms = [...this.terms.keys()];
      const tmp = `${this.file}.tmp-${process.pid}`;
      const handle = await fs.promises.open(tmp, 'w');
      try {
        await handle.write(head);
        let wrote = false;
        for (let i = 0; i < terms.length; i += CHUNK) {
          let chunk = '';
          for (let j = i; j < Math.min(i + CHUNK, terms.length); j++) {
            const postings = this.terms.get(terms[j]!);
            if (!postings) continue; // removed meanwhile
            const flat: number[] = [];
            for (const [n, seq] of postings) flat.push(n, seq);
            chunk += `${wrote ? ',' : ''}[${JSON.stringify(terms[j])},[${flat.join(',')}]]`;
            wrote = true;
          }
          await handle.write(chunk);
        }
        await handle.write(']}');
      } finally {
        await handle.close();
      }
      await fs.promises.rename(tmp, this.file);
    };
    this.queue = this.queue.then(run).catch((err: unknown) => {
      this.dirty = true;
      this.onError(err instanceof Error ? err : new Error(String(err)));
    });
    return this.queue;
  }
}
