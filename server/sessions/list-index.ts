// The sessions list: what GET /api/sessions and the list socket show of every
// session, loaded or not, from the sessions index (no log is read); renames
// and archiving; the live list frames (coalesced per session) and the index
// written to disk behind the changes.
import fs from 'node:fs';
import type { ListedSession, SessionListFrame, SessionSnapshot } from '../../shared/protocol.js';
import { metaMtime, writeMeta, type SessionMeta } from '../manage/meta.js';
import type { IndexEntry } from '../store/session-index.js';
import { maskSecrets } from '../tools/env.js';
import { log as logger } from '../log.js';
import type { LiveSession } from '../agent/live-session.js';
import type { SessionsHost } from './host.js';

export type ListListener = (frame: SessionListFrame) => void;

/** GET /api/sessions filters. */
export interface ListFilter {
  /** Archived sessions are listed too (marked `archived`). */
  archived?: boolean;
  /** Case-insensitive text that the title or a user message must contain. */
  query?: string;
}

export type ListHost = Pick<SessionsHost, 'dir' | 'config' | 'options' | 'live' | 'lastUsed' | 'dirty' | 'indexDirty' | 'index' | 'search' | 'get' | 'metaWritten'>;

export class SessionList {
  private readonly listeners = new Set<ListListener>();
  private flushTimer: ReturnType<typeof setTimeout> | undefined;
  private saveTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly host: ListHost) {}

  /** At shutdown: no frame is sent and no index write is scheduled any more (close() writes the last). */
  stop(): void {
    clearTimeout(this.flushTimer);
    clearTimeout(this.saveTimer);
    this.saveTimer = undefined;
    this.listeners.clear();
  }

  /**
   * Most recent activity first; archived sessions only when asked. From the
   * index: no log is read. With a query, the sessions whose title contains it
   * or whose messages hold its words (the search index), each saying where.
   */
  list(filter: ListFilter = {}): ListedSession[] {
    const query = filter.query?.trim().toLowerCase();
    const hits = query ? this.host.search.search(query) : undefined;
    const rows: ListedSession[] = [];
    for (const id of this.host.index.ids()) {
      const entry = this.host.index.get(id)!;
      const seq = hits?.get(id);
      if (query && seq === undefined && !entry.snapshot.title.toLowerCase().includes(query)) continue;
      const live = this.host.live.get(id);
      // A session that never switched follows this server's SKEIN_APPROVAL, whatever it was when the entry was taken.
      const snapshot: ListedSession = live ? live.session.snapshot() : this.listed(entry);
      if (!filter.archived && snapshot.archived) continue;
      if (query) snapshot.match = seq === undefined ? {} : { seq };
      rows.push(snapshot);
    }
    // ISO times compare as strings (localeCompare costs ten times more at thousands of rows).
    return rows.sort((a, b) => (a.lastActivity < b.lastActivity ? 1 : a.lastActivity > b.lastActivity ? -1 : 0));
  }

  /** Renames (an empty title goes back to the first user message) and archives or unarchives. */
  update(id: string, change: SessionMeta & { title?: string }): SessionSnapshot | undefined {
    const live = this.host.get(id);
    if (!live) return undefined;
    const meta: SessionMeta = { ...live.session.meta };
    if (change.title !== undefined) {
      // Kept in <id>.meta.json and the index: masked as the log is.
      if (change.title.trim()) meta.title = maskSecrets(change.title.trim(), live.session.secrets());
      else delete meta.title;
    }
    if (change.archived !== undefined) {
      if (change.archived) meta.archived = true;
      else delete meta.archived;
    }
    writeMeta(this.host.dir, id, meta);
    this.host.metaWritten(id);
    live.session.meta = meta;
    // At once, flushed to disk: the index must not show the old title after a crash (the log did not change).
    this.capture(id, live);
    void this.saveIndex({ sync: true });
    const entry = this.host.options.database && this.entryOf(live);
    if (entry) void this.host.options.database!.saveSummary(id, { lastSeq: live.session.log.durableSeq, entry }).catch((err: unknown) => logger.warn(`could not write the list entry: ${err instanceof Error ? err.message : String(err)}`, { session: id }));
    this.changed(id);
    return live.session.snapshot();
  }

  /** Live list updates: every change of a session's state, title, activity or flags, and removals. */
  onListChange(listener: ListListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  changed(id: string): void {
    this.host.lastUsed.set(id, Date.now());
    this.host.indexDirty.add(id);
    this.indexChanged();
    if (!this.listeners.size) return;
    this.host.dirty.add(id);
    // Many events in a row (a tool run, a replay) make one frame per session.
    this.flushTimer ??= setTimeout(() => {
      this.flushTimer = undefined;
      for (const changed of this.host.dirty) {
        const live = this.host.live.get(changed);
        if (live && this.host.index.has(changed)) this.emit({ type: 'session', session: live.session.snapshot() });
      }
      this.host.dirty.clear();
    }, 50);
  }

  /** The index on disk follows within a second (a crash before: the entry is stale and rebuilt). */
  indexChanged(): void {
    this.saveTimer ??= setTimeout(() => {
      this.saveTimer = undefined;
      void this.saveIndex();
    }, 1000).unref();
  }

  emit(frame: SessionListFrame): void {
    for (const listener of this.listeners) {
      try {
        listener(frame);
      } catch {
        // A broken listener (closed socket) must not harm the sessions.
      }
    }
  }

  /** What the list shows of an entry (a session that never switched follows this server's SKEIN_APPROVAL). */
  listed(entry: IndexEntry): ListedSession {
    return { ...entry.snapshot, mode: entry.chosenMode ?? this.host.config.approval };
  }

  /** Records what the list needs of a loaded session, with the size and mtime of its log now. */
  capture(id: string, live: LiveSession): void {
    const entry = this.entryOf(live);
    if (!entry) return;
    this.host.index.set(id, entry);
    // A loaded session is followed (see SessionSearch.follow): the index has all of it.
    this.host.search.marked(id, entry.snapshot.lastSeq, entry.size);
  }

  /** The list entry of a loaded session now. */
  entryOf({ session }: LiveSession): IndexEntry | undefined {
    let stat: { size: number; mtimeMs: number };
    try {
      // A database-backed session has no file: its entry's freshness is its last_seq (see pg-summaries.ts).
      stat = this.host.options.database ? { size: -1, mtimeMs: -1 } : fs.statSync(session.log.file);
    } catch {
      return undefined;
    }
    const chosen = session.log.last('mode');
    const metaMtimeMs = this.host.options.database ? undefined : metaMtime(this.host.dir, session.id);
    return {
      // Everything in the file counts (a closed log is durable whole; a crash leaves a stale entry, rebuilt).
      snapshot: { ...session.snapshot(), state: session.state, lastSeq: session.log.lastSeq },
      size: stat.size,
      mtimeMs: stat.mtimeMs,
      ...(metaMtimeMs !== undefined && { metaMtimeMs }),
      needsStart: session.state !== 'WaitingForUserInput' || session.compactions.size > 0,
      ...(chosen && { chosenMode: chosen.to }),
    };
  }

  /**
   * The entries of the loaded sessions that changed since the last write are
   * taken again, and only they are appended to the index's journal, off the
   * event loop (see SessionIndex). A failure only costs a rebuild at the next start.
   */
  saveIndex(options: { sync?: boolean } = {}): Promise<void> {
    for (const id of this.host.indexDirty) {
      const live = this.host.live.get(id);
      if (live) this.capture(id, live);
    }
    this.host.indexDirty.clear();
    // PostgreSQL: the summaries table is the index (no index.json beside it).
    if (this.host.options.database) return Promise.resolve();
    return this.host.index.write(options);
  }
}
