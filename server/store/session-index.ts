// The sessions index: what the sessions list needs of every session, kept in
// <data dir>/sessions/index.json so that a start reads no log. It is a cache:
// each entry remembers the size and mtime of the log it was taken from, and an
// entry whose log changed since (a crash before the index was saved, a log
// copied in by hand) is rebuilt from the log.
import fs from 'node:fs';
import path from 'node:path';
import { parseCompactCommand, type ApprovalMode, type SessionSnapshot, type SkeinEvent } from '../../shared/protocol.js';

export const INDEX_VERSION = 1;
/** Lower-cased user text kept per session for search; a session with more is searched in its log. */
export const USER_TEXT_CAP = 8 * 1024;

export interface IndexEntry {
  snapshot: SessionSnapshot;
  /** Size and mtime of the log file when the entry was taken. */
  size: number;
  mtimeMs: number;
  /** Its log ended mid-turn or with queued compactions: loaded at start to close or run them. */
  needsStart: boolean;
  /** The user messages, lower-cased, joined by newlines, at most USER_TEXT_CAP characters. */
  userText: string;
  /** False when userText was cut: search then reads the log. */
  userTextComplete: boolean;
  /** The mode the user last switched the session to (absent: it follows SKEIN_APPROVAL, which may differ at the next start). */
  chosenMode?: ApprovalMode;
}

interface IndexFile {
  version: typeof INDEX_VERSION;
  sessions: Record<string, IndexEntry>;
}

export class SessionIndex {
  readonly file: string;
  private readonly entries = new Map<string, IndexEntry>();

  constructor(readonly sessionsDir: string) {
    this.file = path.join(sessionsDir, 'index.json');
  }

  /** The saved entries; an index that is missing, unreadable or of another version gives none (all rebuilt). */
  readSaved(): Map<string, IndexEntry> {
    try {
      const raw = JSON.parse(fs.readFileSync(this.file, 'utf8')) as IndexFile;
      if (raw.version !== INDEX_VERSION || typeof raw.sessions !== 'object' || raw.sessions === null) return new Map();
      return new Map(Object.entries(raw.sessions).filter(([, e]) => isEntry(e)));
    } catch {
      return new Map();
    }
  }

  /** A saved entry still describes its log when the log's size and mtime are the ones recorded. */
  static fresh(entry: IndexEntry | undefined, stat: fs.Stats): entry is IndexEntry {
    return entry !== undefined && entry.size === stat.size && entry.mtimeMs === stat.mtimeMs;
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

  set(id: string, entry: IndexEntry): void {
    this.entries.set(id, entry);
  }

  delete(id: string): void {
    this.entries.delete(id);
  }

  clear(): void {
    this.entries.clear();
  }

  /** Written whole to a temporary file, then renamed: a crash leaves the old index or the new one. */
  save(): void {
    const body: IndexFile = { version: INDEX_VERSION, sessions: Object.fromEntries(this.entries) };
    const tmp = `${this.file}.tmp-${process.pid}`;
    fs.writeFileSync(tmp, JSON.stringify(body));
    fs.renameSync(tmp, this.file);
  }
}

/** The lower-cased user text of a session's events, and whether it fit under the cap. */
export function userTextOf(events: readonly SkeinEvent[]): { userText: string; userTextComplete: boolean } {
  let text = '';
  for (const e of events) {
    if (e.kind !== 'user' || parseCompactCommand(e.text)) continue;
    text += (text ? '\n' : '') + e.text.toLowerCase();
    if (text.length > USER_TEXT_CAP) return { userText: text.slice(0, USER_TEXT_CAP), userTextComplete: false };
  }
  return { userText: text, userTextComplete: true };
}

/** Whether a user message in the log file contains `query` (lower-case): the search of a session whose text was cut. */
export function logFileMentions(file: string, query: string): boolean {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return false;
  }
  for (const line of text.split('\n')) {
    if (!line.includes('"kind":"user"')) continue;
    try {
      const e = JSON.parse(line) as { kind?: string; text?: unknown };
      if (e.kind === 'user' && typeof e.text === 'string' && e.text.toLowerCase().includes(query)) return true;
    } catch {
      // A damaged line: not a match.
    }
  }
  return false;
}

function isEntry(value: unknown): value is IndexEntry {
  const e = value as IndexEntry;
  return (
    typeof e === 'object' && e !== null && typeof e.size === 'number' && typeof e.mtimeMs === 'number' &&
    typeof e.needsStart === 'boolean' && typeof e.userText === 'string' && typeof e.snapshot === 'object' &&
    e.snapshot !== null && typeof e.snapshot.id === 'string' && typeof e.snapshot.lastActivity === 'string'
  );
}
