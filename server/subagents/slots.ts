// At most `limit` children of one parent run at once (SKEIN_SUBAGENT_PARALLEL);
// the others wait their turn, in order, or give up when cancelled.
export class Slots {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly limit: number,
    /** Nothing runs or waits any more. */
    private readonly onEmpty: () => void,
  ) {}

  /** A release function once a slot is free; undefined when `signal` fired first. */
  async take(signal: AbortSignal): Promise<(() => void) | undefined> {
    if (signal.aborted) return undefined;
    if (this.running >= this.limit) {
      const got = await new Promise<boolean>((resolve) => {
        const wake = () => {
          signal.removeEventListener('abort', giveUp);
          resolve(true);
        };
        const giveUp = () => {
          const i = this.waiting.indexOf(wake);
          if (i >= 0) this.waiting.splice(i, 1);
          resolve(false);
        };
        this.waiting.push(wake);
        signal.addEventListener('abort', giveUp, { once: true });
      });
      if (!got) {
        this.checkEmpty();
        return undefined;
      }
    } else {
      this.running++;
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      // The slot passes straight to the next in line (running stays the same).
      if (next) next();
      else {
        this.running--;
        this.checkEmpty();
      }
    };
  }

  private checkEmpty(): void {
    if (this.running === 0 && this.waiting.length === 0) this.onEmpty();
  }
}
