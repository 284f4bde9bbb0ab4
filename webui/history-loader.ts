// Earlier history of the open session, fetched as the reader scrolls up (or
// all of it, Home), and the way to a message a search found: pages are
// fetched until it is loaded, then its row is shown.
import type { TimelineModel } from './timeline-model.js';
import { earlierEvents } from './history-pages.js';

/** What paging needs of <skein-app>. */
export interface HistoryHost {
  readonly currentId: string;
  /** The events this page holds (replaced when another session opens). */
  held(): TimelineModel;
  /** Bumped to render the model's new version. */
  version: number;
  notice: string;
  showSeq(seq: number): Promise<void>;
}

export class HistoryLoader {
  /** A page is being fetched (tests wait for it to end). */
  loading = false;
  /** A page that reached no further back (a faulty server): not asked again for this model and base. */
  private stuck: { model: TimelineModel; base: number } | undefined;

  constructor(private readonly host: HistoryHost) {}

  /** Fetches earlier pages until the message `seq` is loaded, then brings its row into view, marked. */
  async showMatch(id: string, seq: number) {
    for (let base = this.host.held().base; this.host.currentId === id && this.host.held().base >= seq && this.host.held().base > 0; base = this.host.held().base) {
      // The timeline may be fetching a page already (the reader scrolled up): this one waits for it.
      for (let i = 0; this.loading && i < 100; i++) await new Promise((r) => setTimeout(r, 50));
      await this.loadEarlier(false);
      if (this.host.held().base === base) break; // no progress (an error, told in the notice)
    }
    if (this.host.currentId !== id) return;
    await this.host.showSeq(seq);
  }

  /**
   * Fetches history before the first loaded event: a page that doubles each
   * time (few requests to reach the start of a long session), or all of it
   * (Home). The socket keeps adding new events meanwhile.
   */
  async loadEarlier(all: boolean) {
    const model = this.host.held();
    const id = this.host.currentId;
    if (this.loading || !id || model.base === 0) return;
    if (this.stuck?.model === model && this.stuck.base === model.base) return;
    this.loading = true;
    try {
      const events = await earlierEvents(id, model, all, (m) => this.host.held() === m);
      if (!events && this.host.held() === model) this.stuck = { model, base: model.base };
      if (!events || !model.prepend(events)) return;
      this.host.version = model.version;
    } catch (err) {
      this.host.notice = `Could not load earlier events: ${err instanceof Error ? err.message : String(err)}`;
    } finally {
      this.loading = false;
    }
  }
}
