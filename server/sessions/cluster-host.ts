// The sessions manager's side that other instances and the database see: the
// host the cluster roles drive (ClusterHost: sessions made, changed, moved or
// deleted elsewhere) and the one the PostgreSQL list reads through
// (DatabaseHost, see database-sessions.ts).
import type { SkeinEvent } from '../../shared/protocol.js';
import type { ClusterHost } from '../cluster/cluster-roles.js';
import type { PageQuery, Page } from '../http/event-page.js';
import type { SessionsHost } from './host.js';
import { SummaryFollower, type DatabaseHost } from './database-sessions.js';

export type ClusterSideHost = Pick<SessionsHost, 'get' | 'open' | 'options' | 'index' | 'live' | 'load' | 'idle' | 'unload' | 'entryOf' | 'emit' | 'listed' | 'scanContext' | 'search' | 'lastUsed' | 'dirty' | 'indexDirty' | 'saveIndex' | 'changed' | 'closing' | 'pending'>;

export class ClusterSide implements Pick<ClusterHost, 'reload' | 'discovered' | 'noticed' | 'vanished'> {
  private dbHost: DatabaseHost | undefined;
  private follower: SummaryFollower | undefined;

  constructor(private readonly host: ClusterSideHost) {}

  /** At shutdown: no summary row is read any more. */
  close(): void {
    this.follower?.close();
  }

  /** What the PostgreSQL list needs of the manager (made once). */
  databaseHost(): DatabaseHost {
    const db = this.host.options.database!;
    this.dbHost ??= {
      db,
      index: this.host.index,
      isLoaded: (id) => this.host.live.has(id),
      load: (id, warnings) => this.host.load(id, warnings),
      peek: (id) => this.host.live.get(id),
      idle: (live) => this.host.idle(live),
      unload: (id) => this.host.unload(id),
      entryOf: (live) => this.host.entryOf(live),
      entryChanged: (snapshot) => this.host.emit({ type: 'session', session: snapshot }),
      listed: (entry) => this.host.listed(entry),
      scanContext: (id) => this.host.scanContext(id),
      search: this.host.search,
      progress: (progress) => this.host.emit({ type: 'scanning', ...progress }),
      closed: () => this.host.closing(),
      // What the search file (this data folder's, from the last run) lacks comes from the row; its words
      // point at the last message (the row does not say which held them) until the session is opened.
      typed: (id, entry) => {
        if (entry.userText && !this.host.search.covers(id, entry.snapshot.lastSeq)) this.host.search.added(id, entry.snapshot.lastSeq, entry.userText);
      },
    };
    return this.dbHost;
  }

  /** A session made or changed on another instance: its list entry is read from its summary row. */
  noticed(id: string): void {
    if (!this.host.options.database || this.host.closing()) return;
    this.follower ??= new SummaryFollower(this.databaseHost());
    this.follower.noticed(id);
  }

  /** A session another instance made: listed from now on. */
  discovered(id: string): void {
    if (this.host.index.has(id) || this.host.live.has(id)) return;
    // Listed from its summary row: its events are read only when it is opened here.
    this.noticed(id);
  }

  /** A session another instance deleted: its copy closes (clients are told it is gone) and it leaves the list. */
  vanished(id: string): void {
    if (!this.host.index.has(id) && !this.host.live.has(id)) return;
    const live = this.host.live.get(id);
    if (live) {
      this.host.live.delete(id);
      live.agent.close();
      live.session.log.close();
    }
    this.host.index.delete(id);
    this.host.search.removed(id);
    this.host.lastUsed.delete(id);
    this.host.dirty.delete(id);
    this.host.indexDirty.delete(id);
    void this.host.saveIndex();
    this.host.emit({ type: 'session_removed', id });
  }

  /** A fresh copy of a loaded session, its role decided again (it moved between instances); its clients reconnect. */
  reload(id: string): void {
    const live = this.host.live.get(id);
    if (live) {
      live.session.evict();
      this.host.unload(id);
    }
    this.host.load(id);
    this.host.changed(id);
  }

  /** GET /events: on PostgreSQL the page is cut in SQL (the session need not be loaded); undefined: no such session. */
  async page(id: string, query: PageQuery, pageOf: (events: readonly SkeinEvent[], query: PageQuery) => Page): Promise<Page | undefined> {
    const db = this.host.options.database;
    if (db) return this.host.index.has(id) || this.host.live.has(id) || this.host.pending(id) ? db.page(id, query) : undefined;
    const live = await this.host.open(id);
    return live && pageOf(live.session.events(), query);
  }
}
