// The message box's ↑/↓ history of sent messages, kept per session across
// reloads in localStorage (key skein:history:<session id>). Bounded: the last
// MAX_ENTRIES messages, at most MAX_CHARS characters in all (the oldest go
// first); a message longer than MAX_ENTRY_CHARS (a big paste) is recalled in
// this page but not stored. Storage that is full or off only loses the
// reload: the page's own history works the same.

export const MAX_ENTRIES = 50;
export const MAX_CHARS = 100_000;
export const MAX_ENTRY_CHARS = 20_000;
const PREFIX = 'skein:history:';

/** What the history needs of localStorage (tests give a map). */
export type HistoryStorage = Pick<Storage, 'getItem' | 'setItem'>;

function storage(): HistoryStorage | undefined {
  try {
    return globalThis.localStorage;
  } catch {
    return undefined; // storage refused (a sandboxed frame, privacy settings)
  }
}

export class InputHistory {
  /** Oldest first. */
  private entries: string[] = [];
  private key = '';

  constructor(private readonly store: HistoryStorage | undefined = storage()) {}

  /** The session's saved history (a damaged or missing record: none). */
  load(sessionId: string): void {
    this.key = sessionId ? PREFIX + sessionId : '';
    this.entries = [];
    if (!this.key) return;
    try {
      const saved: unknown = JSON.parse(this.store?.getItem(this.key) ?? '[]');
      if (Array.isArray(saved)) this.entries = saved.filter((e): e is string => typeof e === 'string');
    } catch {
      // not JSON: start empty
    }
  }

  get length(): number {
    return this.entries.length;
  }

  /** The message `back` places from the newest (0: the last sent). */
  at(back: number): string | undefined {
    return this.entries[this.entries.length - 1 - back];
  }

  /** A message was sent: newest, unless it repeats the last one; saved within the bounds. */
  push(text: string): void {
    if (!text.trim() || this.entries.at(-1) === text) return;
    this.entries.push(text);
    if (this.entries.length > MAX_ENTRIES) this.entries.splice(0, this.entries.length - MAX_ENTRIES);
    this.save();
  }

  private save(): void {
    if (!this.key || !this.store) return;
    const kept: string[] = [];
    let chars = 0;
    for (let i = this.entries.length - 1; i >= 0; i--) {
      const entry = this.entries[i]!;
      if (entry.length > MAX_ENTRY_CHARS) continue;
      if (chars + entry.length > MAX_CHARS) break;
      chars += entry.length;
      kept.unshift(entry);
    }
    try {
      this.store.setItem(this.key, JSON.stringify(kept));
    } catch {
      // full or refused: this page still recalls them
    }
  }
}
