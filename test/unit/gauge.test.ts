import { describe, expect, it } from 'vitest';
import { estimatedGauge, gaugeFromUsage } from '../../server/agent/gauge.js';

describe('the gauge', () => {
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
});
