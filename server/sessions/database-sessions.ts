// The sessions manager's PostgreSQL side (SKEIN_DATABASE_URL): the list at
// start comes from skein_summaries, reading no event; only the sessions that
// must run at once (mid-turn, queued compactions) are loaded. A session
// whose summary is missing or stale (a database from before the summaries, an
// import) gets it built from its event lines as the JSONL first start scans a
// log (log-scan.ts), a page of lines at a time while the list is served
// (database-summary-build.ts), none started and none kept.
// Sessions changed on other instances are listed from their summary rows,
// never by reading their events.
import type { ScanProgress, SessionSnapshot } from '../../shared/protocol.js';
import type { PgStore } from '../store/postgres/pg-store.js';
import type { PgEventLog } from '../store/postgres/pg-event-log.js';
import type { IndexEntry, SessionIndex } from '../store/session-index.js';
import type { ScanContext } from '../store/log-scan.js';
import type { SummaryEntry } from '../store/postgres/pg-summaries.js';
import type { SessionSearch } from './session-search.js';
import { SummaryBuild } from './database-summary-build.js';
import { log as logger } from '../log.js';
import type { LiveSession } from '../agent/live-session.js';

export interface DatabaseHost {
  readonly db: PgStore;
  readonly index: SessionIndex;
  isLoaded(id: string): boolean;
  load(id: string, warnings: string[]): LiveSession | undefined;
  /** The session if it is loaded. */
  peek(id: string): LiveSession | undefined;
  idle(live: LiveSession): boolean;
  unload(id: string): void;
  entryOf(live: LiveSession): IndexEntry | undefined;
  /** A list entry changed on another instance: tell the list's clients. */
  entryChanged(snapshot: SessionSnapshot): void;
  listed(entry: IndexEntry): SessionSnapshot;
  /** A summary row's typed text, for search (the row keeps up to USER_TEXT_CAP of it). */
  typed(id: string, entry: SummaryEntry): void;
  /** What a scan of the session's events cannot know by itself (its meta file, the empty gauge). */
  scanContext(id: string): ScanContext;
  readonly search: SessionSearch;
  /** How far the build of missing list entries got (list clients are told). */
  progress(progress: ScanProgress): void;
  /** The server is shutting down. */
  closed(): boolean;
}

/** What a start from the database leaves: warnings, and the build of the missing list entries (run while the list is served). */
export interface DatabaseStart {
  warnings: string[];
  build: SummaryBuild;
}

/** Sessions of the list read per query at start. */
const LISTING_PAGE = 1000;

/** The list entry as kept in memory: the typed text is in the search index already. */
function listEntry(entry: SummaryEntry): IndexEntry {
  const { userText: _text, userTextComplete: _complete, ...listed } = entry;
  return listed;
}

/** Lists every session from its summary; the ones without (or with a stale one) are built after, see SummaryBuild. */
export async function loadFromDatabase(host: DatabaseHost): Promise<DatabaseStart> {
  const warnings: string[] = [];
  const stale: { id: string; lastSeq: number; run: number }[] = [];
  // Stale sessions with no fresh one between them (in id order) are one run: their lines are one range.
  let run = 0;
  for (let after = ''; ; ) {
    const page = await host.db.listing(after, LISTING_PAGE);
    const untyped = new Map<string, SummaryEntry>();
    const mustStart: string[] = [];
    for (const { id, lastSeq, fresh } of page) {
      if (!fresh) stale.push({ id, lastSeq, run });
      else {
        if (stale.at(-1)?.run === run) run++;
        host.index.set(id, listEntry(fresh), false);
        if (!host.search.covers(id, fresh.snapshot.lastSeq)) untyped.set(id, fresh);
        if (fresh.needsStart) mustStart.push(id);
      }
    }
    // The typed text only of the sessions the search file (this data folder's) lacks: as a rule none.
    if (untyped.size) for (const [id, userText] of await host.db.userTexts([...untyped.keys()])) host.typed(id, { ...untyped.get(id)!, userText });
    for (const id of mustStart) await loadOnce(host, id, warnings, false);
    if (page.length < LISTING_PAGE) break;
    after = page.at(-1)!.id;
  }
  if (stale.length) logger.info(`building the list entries of ${stale.length} sessions from their events (no summary row yet), while the list is served`);
  const build = new SummaryBuild(stale, {
    db: host.db,
    context: (id) => host.scanContext(id),
    known: (id) => host.index.has(id) || host.isLoaded(id),
    indexed: (id, entry) => {
      host.index.set(id, listEntry(entry), false);
      // Every message was fed to the search index with its seq: its mark says so (the next start adds nothing).
      host.search.marked(id, entry.snapshot.lastSeq, -1);
    },
    opened: (id) => saveLoaded(host, id),
    load: async (id) => {
      const loaded: string[] = [];
      await loadOnce(host, id, loaded, true);
      for (const warning of loaded) logger.warn(warning);
    },
    progress: (progress) => host.progress(progress),
    closed: () => host.closed(),
  });
  return { warnings, build };
}

/** Loads a session (its interrupted turn closed), writes its summary if asked, and unloads it again if it is idle. */
async function loadOnce(host: DatabaseHost, id: string, warnings: string[], summarize: boolean): Promise<void> {
  await host.db.fetch(id);
  const live = host.load(id, warnings);
  if (!live) return;
  if (summarize) await saveLoaded(host, id);
  if (host.idle(live)) {
    host.unload(id);
    host.db.release(id);
  }
}

/** Writes the summary of a loaded session as it is committed now, with its typed text (kept if a newer row is there). */
async function saveLoaded(host: DatabaseHost, id: string): Promise<void> {
  const live = host.peek(id);
  const entry = live && (live.session.log as PgEventLog).summarize?.();
  if (!live || !entry) return;
  try {
    await host.db.saveBuiltSummaries([{ id, summary: { lastSeq: live.session.log.durableSeq, entry } }]);
  } catch (err) {
    logger.warn(`could not write the list entry: ${err instanceof Error ? err.message : String(err)}`, { session: id });
  }
}

/**
 * Sessions another instance made or changed: their summary rows are read in
 * one query per burst of notifications (a session open here follows its events instead).
 */
export class SummaryFollower {
  private readonly pending = new Set<string>();
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly host: DatabaseHost) {}

  noticed(id: string): void {
    if (this.host.isLoaded(id)) return;
    this.pending.add(id);
    this.timer ??= setTimeout(() => void this.flush(), 50);
  }

  private async flush(): Promise<void> {
    this.timer = undefined;
    const ids = [...this.pending];
    this.pending.clear();
    try {
      const entries = await this.host.db.summaries(ids);
      for (const [id, entry] of entries) {
        if (this.host.isLoaded(id)) continue;
        this.host.index.set(id, listEntry(entry), false);
        this.host.typed(id, entry);
        this.host.entryChanged(this.host.listed(entry));
      }
    } catch (err) {
      logger.warn(`cluster: reading the list entries of ${ids.length} sessions failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  close(): void {
    clearTimeout(this.timer);
  }
}
