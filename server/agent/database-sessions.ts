// The sessions manager's PostgreSQL side (SKEIN_DATABASE_URL): the list at
// start comes from skein_summaries, reading no event; only the sessions that
// must run at once (mid-turn, queued compactions) or whose summary is stale
// (a database from before the summaries, see pg-summaries.ts) are read, one
// at a time, and a stale one's events are dropped again once its summary is
// written. Sessions changed on other instances are listed from their summary
// rows, never by reading their events.
import type { SessionSnapshot } from '../../shared/protocol.js';
import type { PgStore } from '../store/postgres/pg-store.js';
import type { IndexEntry, SessionIndex } from '../store/session-index.js';
import { log as logger } from '../log.js';
import type { LiveSession } from './sessions.js';

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
}

/** Lists every session from its summary; returns warnings for the server log. */
export async function loadFromDatabase(host: DatabaseHost): Promise<string[]> {
  const warnings: string[] = [];
  let rebuilt = 0;
  for (const { id, fresh } of await host.db.listing()) {
    if (fresh) host.index.set(id, fresh, false);
    if (fresh && !fresh.needsStart) continue;
    await host.db.fetch(id);
    const live = host.load(id, warnings);
    if (!live) continue;
    if (!fresh) {
      const entry = host.entryOf(live);
      // What is committed now (a session run here appends nothing before it is used).
      if (entry) await host.db.saveSummary(id, { lastSeq: live.session.log.durableSeq, entry });
      rebuilt++;
    }
    if (host.idle(live)) {
      host.unload(id);
      host.db.release(id);
    }
  }
  if (rebuilt) logger.info(`built the list entries of ${rebuilt} sessions from their events (a database from before the summaries table)`);
  return warnings;
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
