// The token gauge: how full the model's context is, and what the session cost.
import { contextTokensOf, type Gauge, type Usage } from '../../shared/protocol.js';

export function gaugeFromUsage(
  usage: Usage,
  previous: Gauge | undefined,
  model: string,
  contextWindow: number,
  thresholdRatio: number,
): Gauge {
  const contextTokens = contextTokensOf(usage);
  return {
    contextTokens,
    contextWindow,
    ratio: contextTokens / contextWindow,
    thresholdRatio,
    model,
    totalCostUsd: (previous?.totalCostUsd ?? 0) + usage.costUsd,
    totalTokens: (previous?.totalTokens ?? 0) + usage.input + usage.cacheRead + usage.cacheWrite + usage.output,
    input: usage.input,
    cacheRead: usage.cacheRead,
    cacheWrite: usage.cacheWrite,
  };
}

/** A gauge from skein's own estimate (after a compaction, before the next response). */
export function estimatedGauge(
  contextTokens: number,
  previous: Gauge | undefined,
  model: string,
  contextWindow: number,
  thresholdRatio: number,
  extraCostUsd = 0,
): Gauge {
  return {
    contextTokens,
    contextWindow,
    ratio: contextTokens / contextWindow,
    thresholdRatio,
    model,
    totalCostUsd: (previous?.totalCostUsd ?? 0) + extraCostUsd,
    ...(previous?.totalTokens !== undefined && { totalTokens: previous.totalTokens }),
    input: contextTokens,
    cacheRead: 0,
    cacheWrite: 0,
    estimated: true,
  };
}

/** A window learned since the last usage event moves the gauge's window, threshold and reserve at once. */
export function withWindow(gauge: Gauge, contextWindow: number, fields: Pick<Gauge, 'windowSource' | 'reserve' | 'windowGuess'>): Gauge {
  if (gauge.contextWindow === contextWindow && gauge.windowSource === fields.windowSource && gauge.reserve === fields.reserve && gauge.windowGuess === fields.windowGuess) return gauge;
  const { windowGuess: _stale, ...rest } = gauge;
  return { ...rest, contextWindow, ratio: gauge.contextTokens / contextWindow, ...fields };
}
