// When to compact. Checked only at safe points (no tool call waiting for its
// result); the agent loop asks, this file decides, the pipeline does the work.
import type { CompactionTrigger } from '../../shared/protocol.js';

export interface DueCompaction {
  trigger: CompactionTrigger;
  instructions?: string;
  preserveRecentGroups?: number;
  /** Overflow recovery: how hard to fold (0 the normal pipeline; see server/agent/overflow-recovery.ts). */
  level?: number;
  /** A strategy's own trigger (`due`): only the strategies of these names run. */
  only?: string[];
}

export interface TriggerPolicy {
  thresholdRatio: number;
  /** Compact before a request whose estimate crosses the threshold or leaves less than max output free. */
  preflight: boolean;
  /** Compact every N LLM calls; 0 = off. */
  everyNCalls: number;
}

export interface TriggerInputs {
  policy: TriggerPolicy;
  contextWindow: number;
  maxOutputTokens: number;
  /** Context tokens of the last provider-reported request, if no compaction ran since. */
  lastReportedContext: number | undefined;
  /** Calibrated estimate of the next request (only asked for before a request). */
  estimateNext: () => number;
  callsSinceCompaction: number;
}

/** Share of the window kept as a margin for the pre-flight estimate's error (see the estimator benchmark). */
export const PREFLIGHT_MARGIN = 0.01;

export function crossesThreshold(contextTokens: number, contextWindow: number, thresholdRatio: number): boolean {
  return contextTokens >= thresholdRatio * contextWindow;
}

/** A request of `estimate` tokens would leave less than the model's max output free: the provider would refuse it. */
export function wouldNotFit(estimate: number, contextWindow: number, maxOutputTokens: number): boolean {
  return contextWindow - estimate < maxOutputTokens;
}

/** Before a request: threshold (provider's report), then pre-flight (estimate), then cadence. */
export function dueBeforeRequest(inputs: TriggerInputs): DueCompaction | undefined {
  const { policy, contextWindow } = inputs;
  if (inputs.lastReportedContext !== undefined && crossesThreshold(inputs.lastReportedContext, contextWindow, policy.thresholdRatio)) {
    return { trigger: 'threshold' };
  }
  if (policy.preflight) {
    // An estimate is an estimate: keep a margin of 1% of the window for its error.
    const estimate = inputs.estimateNext() + Math.ceil(PREFLIGHT_MARGIN * contextWindow);
    if (crossesThreshold(estimate, contextWindow, policy.thresholdRatio) || wouldNotFit(estimate, contextWindow, inputs.maxOutputTokens)) {
      return { trigger: 'preflight' };
    }
  }
  return cadence(inputs);
}

/** After an answer that asks for no tool: threshold, then cadence. */
export function dueAfterResponse(inputs: Omit<TriggerInputs, 'estimateNext'>): DueCompaction | undefined {
  const { policy, contextWindow } = inputs;
  if (inputs.lastReportedContext !== undefined && crossesThreshold(inputs.lastReportedContext, contextWindow, policy.thresholdRatio)) {
    return { trigger: 'threshold' };
  }
  return cadence(inputs);
}

function cadence(inputs: Pick<TriggerInputs, 'policy' | 'callsSinceCompaction'>): DueCompaction | undefined {
  const n = inputs.policy.everyNCalls;
  return n > 0 && inputs.callsSinceCompaction >= n ? { trigger: 'cadence' } : undefined;
}

/** After this many consecutive summariser failures, compaction stops calling it and folds deterministically. */
export const BREAKER_LIMIT = 3;

export class CircuitBreaker {
  private failures = 0;

  get open(): boolean {
    return this.failures >= BREAKER_LIMIT;
  }

  /**
   * Records one compaction that tried the summariser: a success closes the
   * breaker, a failure counts. Returns true when this failure is the one that
   * opens it (a compaction you ask for tries even when open; its failure keeps it open).
   */
  record(summariserFailed: boolean): boolean {
    if (!summariserFailed) {
      this.failures = 0;
      return false;
    }
    this.failures++;
    return this.failures === BREAKER_LIMIT;
  }
}
