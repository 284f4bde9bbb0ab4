// When a model-info request that failed for a passing reason (the server is
// down, starting, overloaded) may be sent again. The first retry goes with the
// next request (a server started a moment after skein is learned at once);
// later ones wait 1 s, doubling to a minute, so a server that stays down is
// asked at most once a minute whatever the request rate.
export const RETRY_FIRST_MS = 1000;
export const RETRY_MAX_MS = 60_000;

/** The wait after `failures` failures in a row: none after the first, then 1 s, 2 s, ... up to a minute. */
export function retryDelayMs(failures: number): number {
  if (failures <= 1) return 0;
  return Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** (failures - 2));
}

export class RetryBackoff {
  private failures = 0;
  private notBefore = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** Asking again now is allowed. */
  get due(): boolean {
    return this.now() >= this.notBefore;
  }

  /** Failures in a row so far. */
  get failed(): number {
    return this.failures;
  }

  /** One more failure: returns the wait before the next try. */
  fail(): number {
    this.failures++;
    const wait = retryDelayMs(this.failures);
    this.notBefore = this.now() + wait;
    return wait;
  }

  /** Answered (or a new model): the next failure starts over. */
  reset(): void {
    this.failures = 0;
    this.notBefore = 0;
  }
}
