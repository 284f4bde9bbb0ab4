import { describe, expect, it } from 'vitest';
import { crossesThreshold, estimatedGauge, gaugeFromUsage, preflightDue } from '../../server/agent/gauge.js';

describe('threshold maths', () => {
  it('context tokens are input + cache read + cache write, never output', () => {
    const g = gaugeFromUsage({ input: 100, cacheRead: 700, cacheWrite: 50, output: 999, costUsd: 0.5 }, undefined, 'm', 1000, 0.85);
    expect(g.contextTokens).toBe(850);
    expect(g.ratio).toBeCloseTo(0.85);
    expect(g.totalCostUsd).toBe(0.5);
  });

  it('accumulates cost across responses and estimates', () => {
    const a = gaugeFromUsage({ input: 1, cacheRead: 0, cacheWrite: 0, output: 1, costUsd: 0.25 }, undefined, 'm', 1000, 0.85);
    const b = gaugeFromUsage({ input: 1, cacheRead: 0, cacheWrite: 0, output: 1, costUsd: 0.5 }, a, 'm', 1000, 0.85);
    expect(b.totalCostUsd).toBe(0.75);
    expect(estimatedGauge(10, b, 'm', 1000, 0.85, 0.25)).toMatchObject({ totalCostUsd: 1, estimated: true, contextTokens: 10 });
  });

  it('threshold fires at ratio x window, not below', () => {
    expect(crossesThreshold(849, 1000, 0.85)).toBe(false);
    expect(crossesThreshold(850, 1000, 0.85)).toBe(true);
    expect(crossesThreshold(1000, 1000, 1)).toBe(true);
    expect(crossesThreshold(999, 1000, 1)).toBe(false);
  });

  it('preflight fires when less than max output would stay free', () => {
    expect(preflightDue(8000 - 1024, 8000, 1024)).toBe(false);
    expect(preflightDue(8000 - 1023, 8000, 1024)).toBe(true);
  });
});
