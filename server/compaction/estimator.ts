// The pre-flight estimate of the next request: the provider's last real
// context + its output + gpt-tokenizer's count of what was appended since,
// calibrated per session (per model: a switch invalidates it) by how far the
// tokenizer was off on real requests. The server's tokenizer is not ours: on
// code, logs or repeated text its count differs from ours by 0.5x-2x, so the
// ratio of each request, and of what each request added, is kept: the upper
// estimate uses the largest one seen (the margin covers the spread), the
// lowest tells how few tokens the server can count.
import { messageTokens, requestTokens } from '../llm/tokens.js';
import type { LlmRequest } from '../llm/types.js';
import { plain, type SourcedMessage } from './view.js';

interface LastRequest {
  /** The log's last seq when the request was built. */
  seenSeq: number;
  contextTokens: number;
  output: number;
  /** Our count of the request's system prompt and tools (undefined: not known): another head is another request. */
  head?: number;
}

/** Ratios outside this range are not a tokenizer's (a cut prompt, a changed system prompt): not learned from. */
const PLAUSIBLE = { min: 0.3, max: 3 };
/** What a request added must be at least this many of our tokens for its own ratio to mean something. */
const MIN_GROWTH = 200;
/** The spread is learned from the last this many ratios (the content's mix changes over a session). */
const SPREAD_WINDOW = 24;

export class ContextEstimator {
  /** real / estimated, smoothed; 1 (or the ratio learned before, see reset) until the first real number arrives. */
  private calibration = 1;
  private last: LastRequest | undefined;
  /** The previous request's own estimate and reported count, while no compaction changed the view since. */
  private previous: { estimated: number; reported: number } | undefined;
  /** Recent ratios of whole requests (the spread the margin covers). */
  private ratios: number[] = [];
  /** Recent ratios of what each request added to the one before (a new kind of text shows here first). */
  private increments: number[] = [];
  /** At least one real number has calibrated the tokenizer. */
  calibrated = false;

  /**
   * Called with each response: what gpt-tokenizer estimated for the request and what the provider reported.
   * `trusted` false: the server may have cut the request (a server known to cut, a request that may pass its
   * context): its count is not the request's, so neither the ratios nor the next estimate's base learn from it.
   */
  observe(estimatedRequest: number, contextTokens: number, output: number, seenSeq: number, trusted = true, head?: number): void {
    if (!trusted) {
      this.invalidate();
      return;
    }
    if (estimatedRequest > 0 && contextTokens > 0) {
      const ratio = contextTokens / estimatedRequest;
      this.calibration = this.calibrated ? 0.7 * this.calibration + 0.3 * ratio : ratio;
      this.calibrated = true;
      this.remember(ratio);
      const grown = this.previous && estimatedRequest - this.previous.estimated;
      if (this.previous && grown !== undefined && grown >= MIN_GROWTH) this.remember((contextTokens - this.previous.reported) / grown, this.increments);
      this.previous = { estimated: estimatedRequest, reported: contextTokens };
    }
    this.last = { seenSeq, contextTokens, output, ...(head !== undefined && { head }) };
  }

  /** A refusal named the prompt tokens the server counted for a request we estimated: as good as a report. */
  observeRefusal(estimatedRequest: number, promptTokens: number): void {
    if (estimatedRequest <= 0 || promptTokens <= 0) return;
    const ratio = promptTokens / estimatedRequest;
    if (ratio < PLAUSIBLE.min || ratio > PLAUSIBLE.max) return;
    // The server's own count beats the smoothed guess: the next estimate must not repeat the refused error.
    this.calibration = this.calibrated ? Math.max(this.calibration, ratio) : ratio;
    this.calibrated = true;
    this.remember(ratio);
  }

  /** A compaction changed the view: the last real number no longer describes it. */
  invalidate(): void {
    this.last = undefined;
    this.previous = undefined;
  }

  /**
   * A new model: its tokenizer is another one. `learned`: the ratio this data
   * folder learned for it before (learned-limits.json), the start until the
   * first real number replaces it; the spread (lowerRatio) is not assumed.
   */
  reset(learned?: number): void {
    this.invalidate();
    this.calibration = learned !== undefined && learned >= PLAUSIBLE.min && learned <= PLAUSIBLE.max ? learned : 1;
    this.calibrated = false;
    this.ratios = [];
    this.increments = [];
  }

  get ratio(): number {
    return this.calibration;
  }

  /** The largest ratio seen lately (at least the smoothed one): what the margin must cover. */
  get upperRatio(): number {
    return Math.max(this.calibration, ...this.ratios, ...this.increments);
  }

  /** The smallest ratio seen lately (at most the smoothed one; 0.5 before any, the least a tokenizer differs by). */
  get lowerRatio(): number {
    const seen = [...this.ratios, ...this.increments];
    return seen.length ? Math.min(this.calibration, ...seen) : Math.min(0.5, this.calibration);
  }

  /** `upper`: with the largest ratio seen for what was not counted by the provider (the margin covering the spread). */
  estimate(messages: readonly SourcedMessage[], base: Pick<LlmRequest, 'system' | 'tools'>, upper = false): number {
    const ratio = upper ? this.upperRatio : this.calibration;
    // A changed system prompt or toolset (a small window made them lean) makes the last real count another request's.
    const changedHead = this.last?.head !== undefined && this.last.head !== requestTokens({ ...base, messages: [] });
    if (!this.last || changedHead) return Math.ceil(ratio * requestTokens({ ...base, messages: plain(messages) }));
    const seen = this.last.seenSeq;
    // The response comes back as an assistant message: the larger of its output count and our
    // count of it as input (which includes its framing); then everything appended after it.
    let answer = 0;
    let appended = 0;
    for (const m of messages) {
      if (m.seq <= seen) continue;
      if (m.role === 'assistant') answer += messageTokens(m);
      else appended += messageTokens(m);
    }
    return this.last.contextTokens + Math.max(this.last.output, Math.ceil(ratio * answer)) + Math.ceil(ratio * appended);
  }

  private remember(ratio: number, into = this.ratios): void {
    if (!Number.isFinite(ratio) || ratio < PLAUSIBLE.min || ratio > PLAUSIBLE.max) return;
    into.push(ratio);
    if (into.length > SPREAD_WINDOW) into.shift();
  }
}
