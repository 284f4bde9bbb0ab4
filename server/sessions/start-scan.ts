// What a JSONL start reads: the sessions index, then (in the background,
// while the list is served) the logs it does not describe, one at a time (see
// log-scan-runner.ts); and what a scan of one log cannot know by itself (its
// meta file, the empty gauge of its model), which the PostgreSQL start uses too.
import fs from 'node:fs';
import path from 'node:path';
import type { Gauge, ScanProgress } from '../../shared/protocol.js';
import { createProviderOrPlaceholder } from '../llm/providers.js';
import { metaMtime, readMeta } from '../manage/meta.js';
import type { ScanContext } from '../store/log-scan.js';
import { SessionIndex } from '../store/session-index.js';
import { estimatedGauge } from '../agent/gauge.js';
import { providerSettings } from '../agent/model-switch.js';
import { LogScan, type ScanHost } from './log-scan-runner.js';
import type { TailToRead } from './session-search.js';
import type { SessionsHost } from './host.js';

export type StartHost = Pick<SessionsHost, 'dir' | 'config' | 'reads' | 'live' | 'index' | 'search' | 'trash' | 'load' | 'idle' | 'unload' | 'changed' | 'emit' | 'indexChanged' | 'saveIndex' | 'closing'>;

export class StartScan {
  /** The first scan of logs the index did not describe (see loadAll). */
  private scan: Pick<LogScan, 'pending' | 'progress' | 'run'> | undefined;
  /** Resolves once that scan is done and its entries written. */
  scanned: Promise<void> = Promise.resolve();
  private readonly emptyGauges = new Map<string, Gauge>();
  /** The sessions with a meta file (see scanContext); undefined: not known, each is looked at. */
  private metaIds: Set<string> | undefined;

  constructor(private readonly host: StartHost) {}

  /** A meta file was written for the session: scanContext reads it from now on. */
  metaWritten(id: string): void {
    this.metaIds?.add(id);
  }

  /**
   * Reads the sessions index; only the sessions that were mid-turn are loaded
   * (their interrupted turns closed) before this returns. The logs the index
   * does not describe (missing or stale entries) are scanned after it, one at
   * a time, while the list is served (see `scanning`). Returns warnings for
   * the server log.
   */
  loadAll(): string[] {
    const warnings: string[] = this.host.trash.purge();
    const saved = this.host.index.readSaved({ repair: true });
    this.host.index.clear();
    this.host.search.load();
    const tails: TailToRead[] = [];
    const files = fs.readdirSync(this.host.dir);
    const names = files.filter((f) => f.endsWith('.jsonl')).sort();
    // Few sessions have a meta file (renamed or archived): only theirs are looked at.
    const metas = new Set(files.filter((f) => f.endsWith('.meta.json')).map((f) => f.slice(0, -'.meta.json'.length)));
    this.metaIds = metas;
    const stale: string[] = [];
    for (const name of names) {
      const id = name.slice(0, -'.jsonl'.length);
      const entry = saved.get(id);
      let stat: fs.Stats;
      try {
        stat = fs.statSync(path.join(this.host.dir, name));
      } catch {
        continue;
      }
      if (SessionIndex.fresh(entry, stat, metas.has(id) ? metaMtime(this.host.dir, id) : undefined)) {
        this.host.index.set(id, entry, false);
        if (entry.needsStart) this.host.load(id, warnings);
        else if (this.host.search.behind(id, stat.size)) tails.push({ id, file: path.join(this.host.dir, name), size: stat.size, lastSeq: entry.snapshot.lastSeq });
        continue;
      }
      stale.push(id);
    }
    this.scan = new LogScan(stale, this.scanHost());
    // Then the search index reads what logs gained past its marks (a crash before it was written).
    this.scanned = this.scan
      .run()
      .then(() => this.host.search.readTails(tails, (id) => this.host.index.has(id)))
      .then(() => this.host.saveIndex());
    void this.host.saveIndex();
    return warnings;
  }

  /** PostgreSQL: the build of the list entries the summaries table lacks runs as this start's scan. */
  adopt(build: Pick<LogScan, 'pending' | 'progress' | 'run'>): void {
    this.scan = build;
    this.scanned = build.run();
  }

  /** How far the first scan of the logs the index did not describe has got (absent once it is done). */
  get scanning(): ScanProgress | undefined {
    return this.scan?.progress();
  }

  /** What the background scan needs of this object. */
  private scanHost(): ScanHost {
    return {
      dir: this.host.dir,
      context: (id) => this.scanContext(id),
      known: (id) => this.host.index.has(id) || this.host.live.has(id),
      indexed: (id, entry) => {
        this.host.index.set(id, entry);
        this.host.search.marked(id, entry.snapshot.lastSeq, entry.size);
        this.host.indexChanged();
      },
      load: async (id) => {
        await this.host.reads.read(id, path.join(this.host.dir, `${id}.jsonl`));
        if (this.host.live.has(id)) return; // opened by a client during the read
        const warnings: string[] = [];
        const live = this.host.load(id, warnings);
        for (const warning of warnings) console.warn(`[skein] ${warning}`);
        if (live && this.host.idle(live)) this.host.unload(id);
        else if (live) this.host.changed(id);
      },
      progress: (progress) => this.host.emit({ type: 'scanning', ...progress }),
      closed: () => this.host.closing(),
    };
  }

  /** Still to be scanned: a client asking for it has it loaded at once. */
  pending(id: string): boolean | undefined {
    return this.scan?.pending(id);
  }

  /** What a scan of the session's log (or of its database rows) cannot know by itself. */
  scanContext(id: string): ScanContext {
    // Only a session with a meta file at start (or renamed since) has one to read: thousands of failed opens cost more than the scan.
    const hasMeta = this.metaIds?.has(id) ?? true;
    // The mtime before the read: a rename landing in between leaves an entry that is stale, not wrong.
    const metaMtimeMs = hasMeta ? metaMtime(this.host.dir, id) : undefined;
    return {
      meta: hasMeta ? readMeta(this.host.dir, id) : {},
      metaMtimeMs,
      defaultEffort: this.host.config.reasoningEffort ?? 'default',
      onUser: (seq, text) => this.host.search.added(id, seq, text),
      emptyGauge: (model) => {
        let gauge = this.emptyGauges.get(model);
        if (!gauge) {
          const window = createProviderOrPlaceholder(model, providerSettings(this.host.config)).info.contextWindow;
          gauge = estimatedGauge(0, undefined, model, window, this.host.config.compactThresholdRatio);
          this.emptyGauges.set(model, gauge);
        }
        return gauge;
      },
    };
  }
}
