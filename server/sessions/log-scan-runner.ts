// The first scan of the logs the sessions index does not describe (a first
// start over an old folder, a lost index, logs copied in): one log at a time,
// streamed (see store/log-scan.ts), while the server already serves the list.
// A session that must run (it ended mid-turn) is loaded as before; the others
// only leave their index entry behind, so memory ends where an indexed start
// would be.
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { ScanProgress } from '../../shared/protocol.js';
import { SMALL_LOG_BYTES, scanLog, scanSmallLog, type ScanContext } from '../store/log-scan.js';
import type { IndexEntry } from '../store/session-index.js';

export interface ScanHost {
  dir: string;
  context(id: string): ScanContext;
  /** Already indexed or loaded (opened by a client before the scan got to it). */
  known(id: string): boolean;
  indexed(id: string, entry: IndexEntry): void;
  /** Loads the session (and unloads it again when nothing runs in it); its log read off the event loop first. */
  load(id: string): Promise<void>;
  progress(progress: ScanProgress): void;
  /** The server is shutting down: the scan stops (the next start goes on from the index it wrote). */
  closed(): boolean;
}

/** How often list clients hear how far the scan got. */
const PROGRESS_MS = 250;
/** Small logs are read synchronously for at most this long, then the event loop gets a turn. */
const SLICE_MS = 8;

export class LogScan {
  private done = 0;
  private readonly waiting: Set<string>;
  private finished = false;

  constructor(
    private readonly ids: readonly string[],
    private readonly host: ScanHost,
  ) {
    this.waiting = new Set(ids);
  }

  /** Still to be scanned: a client asking for it has it loaded at once. */
  pending(id: string): boolean {
    return this.waiting.has(id);
  }

  progress(): ScanProgress | undefined {
    return this.finished || !this.ids.length ? undefined : { done: this.done, total: this.ids.length };
  }

  async run(): Promise<void> {
    let told = 0;
    let slice = performance.now();
    for (const id of this.ids) {
      if (this.host.closed()) break;
      if (performance.now() - slice > SLICE_MS) {
        await new Promise((r) => setImmediate(r));
        slice = performance.now();
      }
      if (!this.host.known(id)) {
        let entry: IndexEntry | undefined;
        try {
          const file = path.join(this.host.dir, `${id}.jsonl`);
          // Most logs are small: one synchronous read in a time slice; a big one is streamed in chunks, the loop free between them.
          entry = fs.statSync(file).size <= SMALL_LOG_BYTES ? scanSmallLog(file, this.host.context(id)) : await scanLog(file, this.host.context(id));
        } catch {
          // Unreadable here: the full load says why (or skips it with a warning).
        }
        if (this.host.known(id)) {
          // Opened meanwhile: its loaded copy wrote the entry.
        } else if (entry) this.host.indexed(id, entry);
        else await this.host.load(id);
      }
      this.waiting.delete(id);
      this.done++;
      if (Date.now() - told >= PROGRESS_MS) {
        told = Date.now();
        this.host.progress({ done: this.done, total: this.ids.length });
      }
    }
    this.finished = true;
    this.waiting.clear();
    if (this.ids.length) this.host.progress({ done: this.done, total: this.ids.length });
  }
}
