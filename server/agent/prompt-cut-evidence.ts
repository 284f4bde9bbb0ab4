// The evidence that a server cut the start of a prompt without saying so:
// what it reported against what was sent, and against earlier requests on
// the same view. Pure, so the rules read (and test) apart from the window.
/**
 * Silent truncation is concluded only from evidence that holds whatever the
 * server's tokenizer: between two requests on the same view (no compaction in
 * between) that grew by at least PLATEAU_MIN_GROWTH of our tokens, the
 * reported count grew by less than PLATEAU_SHARE of that growth. Every
 * tokenizer counts added text as at least half of ours: a count that stands
 * still while the content grows was cut.
 */
export const PLATEAU_MIN_GROWTH = 256;
export const PLATEAU_SHARE = 0.25;
/**
 * No server runs a chat model in a context this small: a count that stands
 * still below it is usage the server does not really report (a proxy or a
 * stub that answers the same numbers every time), not a plateau at its context.
 */
export const MIN_PLATEAU_CONTEXT = 512;
/** What the agent tells the window about a request it sent. */
export interface SentEstimate {
  /** gpt-tokenizer's count of the whole request (uncalibrated). */
  raw: number;
  /** Increments each time the view changed other than by appending (a compaction, a new system prompt). */
  lineage: number;
  /** The smallest ratio (server / ours) seen lately: how few tokens the server can count for what we count. */
  lowerRatio: number;
  /**
   * The request's head (system prompt, tools, first message) as a key, and
   * whether the request was that head alone: what the server counted for it
   * is a floor of every later request that carries it.
   */
  head?: { key: string; only: boolean };
}

/**
 * Why the answered request must have been cut, or undefined when nothing
 * says so. `numCtx`: the context of a server known to cut; `headCount`: what
 * it counted for this request's head sent alone.
 */
export function cutEvidence(sent: SentEstimate, reported: number, earlier: readonly { raw: number; reported: number }[], numCtx: number | undefined, headCount: number | undefined): string | undefined {
  const tokens = (n: number) => Math.round(n).toLocaleString('en-US');
  if (numCtx !== undefined && reported >= numCtx) return `it read ${tokens(reported)} prompt tokens, all of its ${tokens(numCtx)}-token context (num_ctx)`;
  // Whatever its tokenizer, a server counts a request at least as high as a part of it: the same system prompt,
  // tools and first message, sent alone, were counted higher. (A server that reports no usage reports 0: not evidence.)
  if (headCount !== undefined && reported > 0 && reported < headCount) {
    return `it counted ${tokens(reported)} prompt tokens for a request whose start alone (system prompt, tools and first message) it had counted at ${tokens(headCount)}`;
  }
  // A server known to cut at a known context: the request, counted as low as its tokenizer was ever seen to count, could not fit.
  const leastWhole = sent.lowerRatio * sent.raw;
  if (numCtx !== undefined && leastWhole > numCtx && reported < leastWhole) {
    return `at least about ${tokens(leastWhole)} prompt tokens were sent to its ${tokens(numCtx)}-token context, and it read ${tokens(reported)}`;
  }
  for (const before of earlier) {
    const grown = sent.raw - before.raw;
    if (grown < PLATEAU_MIN_GROWTH) continue;
    if (reported >= MIN_PLATEAU_CONTEXT && reported - before.reported < PLATEAU_SHARE * grown) {
      return `about ${tokens(grown)} tokens were added since an earlier request, yet the count it reported went from ${tokens(before.reported)} to only ${tokens(reported)}`;
    }
    // A server known to cut, whose context is known: the added text, counted as low as its tokenizer was ever seen to count, could not fit.
    const least = before.reported + sent.lowerRatio * grown;
    if (numCtx !== undefined && least > numCtx && reported < least) {
      return `at least about ${tokens(least)} prompt tokens were sent to its ${tokens(numCtx)}-token context, and it read ${tokens(reported)}`;
    }
  }
  return undefined;
}
