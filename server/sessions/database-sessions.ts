// The sessions manager's PostgreSQL side (SKEIN_DATABASE_URL): the list at
// start comes from skein_summaries, reading no event; only the sessions that
// must run at once (mid-turn, queued compactions) are loaded. A session
// whose summary is missing or stale (a database from before the summaries, an
// import) gets it built from its event lines as the JSONL first start scans a
// log (log-scan.ts), a few sessions per query, none started and none kept.
// Sessions changed on other instances are listed from their summary rows,
// never by reading their events.
import type { SessionSnapshot } from '../../shared/protocol.js';
import type { PgStore } from '../store/postgres/pg-store.js';
import type { IndexEntry, SessionIndex } from '../store/session-index.js';
import { scanLines, type ScanContext } from '../store/log-scan.js';
import type { Summary, SummaryEntry } from '../store/postgres/pg-summaries.js';
import { log as logger } from '../log.js';
import type { LiveSession } from '../agent/live-session.js';

export interface DatabaseHost {
  readonly db: PgStore;
  readonly index: SessionIndex;
  isLoaded(id: string): boolean;
  load(id: string, warnings: string[]): LiveSession | undefined;
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
}

/** Stale summaries rebuilt per query (their events read together, then dropped). */
const REBUILD_CHUNK = 50;

/** Lists every session from its summary; returns warnings for the server log. */
export async function loadFromDatabase(host: DatabaseHost): Promise<string[]> {
  const warnings: string[] = [];
  const stale: string[] = [];
  for (const { id, fresh } of await host.db.listing()) {
    if (!fresh) stale.push(id);
    else {
      host.index.set(id, fresh, false);
      host.typed(id, fresh);
      if (fresh.needsStart) await loadOnce(host, id, warnings, false);
    }
  }
  // No summary (a database from before the table, an import): built from the event lines as the
  // JSONL first start scans logs, no session started; one that must run (or is damaged) is loaded.
  for (let i = 0; i < stale.length; i += REBUILD_CHUNK) {
    const chunk = stale.slice(i, i + REBUILD_CHUNK);
    const read = await host.db.linesOf(chunk);
    const built: { id: string; summary: Summary }[] = [];
    for (const id of chunk) {
      const found = read.get(id);
      const entry = found && scanLines(found.header, found.lines, host.scanContext(id));
      if (entry) {
        host.index.set(id, entry, false);
        built.push({ id, summary: { lastSeq: entry.snapshot.lastSeq, entry } });
      } else if (found) await loadOnce(host, id, warnings, true);
    }
    await host.db.saveSummaries(built);
  }
  if (stale.length) logger.info(`built the list entries of ${stale.length} sessions from their events (a database from before the summaries table)`);
  return warnings;
}

/** Loads a session (its interrupted turn closed), writes its summary if asked, and unloads it again if it is idle. */
async function loadOnce(host: DatabaseHost, id: string, warnings: string[], summarize: boolean): Promise<void> {
  await host.db.fetch(id);
  const live = host.load(id, warnings);
  if (!live) return;
  const entry = summarize && host.entryOf(live);
  // What is committed now (a session run here appends nothing before it is used).
  if (entry) await host.db.saveSummary(id, { lastSeq: live.session.log.durableSeq, entry });
  if (host.idle(live)) {
    host.unload(id);
    host.db.release(id);
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
        this.host.index.set(id, entry, false);
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
