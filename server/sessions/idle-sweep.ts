// Loaded sessions nobody used for SKEIN_SESSION_IDLE_UNLOAD_MS are unloaded
// (their next use reads the log again), so memory follows what is in use.
import type { SessionsHost } from './host.js';

export type SweepHost = Pick<SessionsHost, 'live' | 'lastUsed' | 'idle' | 'unload' | 'options' | 'saveIndex'>;

export class IdleSweep {
  private sweepTimer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly host: SweepHost,
    private readonly idleUnloadMs: number,
  ) {}

  /** From the end of the start on (the first sweep waits half SKEIN_SESSION_IDLE_UNLOAD_MS, at most 30 s). */
  start(): void {
    this.sweepTimer ??= setInterval(() => this.sweep(), Math.max(50, Math.min(this.idleUnloadMs / 2, 30_000)));
    this.sweepTimer.unref();
  }

  /** At shutdown. */
  stop(): void {
    clearInterval(this.sweepTimer);
    this.sweepTimer = undefined;
  }

  /** Unloads the sessions unused for SKEIN_SESSION_IDLE_UNLOAD_MS. */
  private sweep(): void {
    const before = Date.now() - this.idleUnloadMs;
    let unloaded = false;
    for (const [id, live] of this.host.live) {
      if ((this.host.lastUsed.get(id) ?? 0) > before || !this.host.idle(live)) continue;
      this.host.unload(id);
      // Its events are all committed: the next open reads them again.
      this.host.options.database?.release(id);
      unloaded = true;
    }
    if (unloaded) void this.host.saveIndex();
  }
}
