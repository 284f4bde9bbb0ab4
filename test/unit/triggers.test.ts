import { describe, expect, it } from 'vitest';
import { crossesThreshold, dueAfterResponse, dueBeforeRequest, PREFLIGHT_MARGIN, wouldNotFit, type TriggerInputs } from '../../server/compaction/triggers.js';

const inputs = (over: Partial<TriggerInputs> = {}): TriggerInputs => ({
  policy: { thresholdRatio: 0.85, preflight: true, everyNCalls: 0 },
  contextWindow: 10_000,
  maxOutputTokens: 1000,
  lastReportedContext: 1000,
  estimateNext: () => 1000,
  callsSinceCompaction: 0,
  ...over,
});

describe('threshold maths', () => {
  it('fires at ratio x window, not below', () => {
    expect(crossesThreshold(849, 1000, 0.85)).toBe(false);
    expect(crossesThreshold(850, 1000, 0.85)).toBe(true);
    expect(crossesThreshold(1000, 1000, 1)).toBe(true);
    expect(crossesThreshold(999, 1000, 1)).toBe(false);
  });

  it('a request does not fit when less than max output stays free', () => {
    expect(wouldNotFit(8000 - 1024, 8000, 1024)).toBe(false);
    expect(wouldNotFit(8000 - 1023, 8000, 1024)).toBe(true);
  });
});

describe('which trigger is due', () => {
  it('nothing when the context is small', () => {
    expect(dueBeforeRequest(inputs())).toBeUndefined();
    expect(dueAfterResponse(inputs())).toBeUndefined();
  });

  it('threshold (the provider\'s report) comes before pre-flight', () => {
    expect(dueBeforeRequest(inputs({ lastReportedContext: 8500, estimateNext: () => 9500 }))).toEqual({ trigger: 'threshold' });
    expect(dueAfterResponse(inputs({ lastReportedContext: 8500 }))).toEqual({ trigger: 'threshold' });
  });

  it('pre-flight fires on the estimate, with its margin, and can be turned off', () => {
    const margin = PREFLIGHT_MARGIN * 10_000;
    expect(dueBeforeRequest(inputs({ estimateNext: () => 8500 - margin - 1 }))).toBeUndefined();
    expect(dueBeforeRequest(inputs({ estimateNext: () => 8500 - margin }))).toEqual({ trigger: 'preflight' });
    // No room for the answer, below the threshold (threshold 1 so only the headroom rule can fire).
    const high = { thresholdRatio: 1, preflight: true, everyNCalls: 0 };
    expect(dueBeforeRequest(inputs({ policy: high, estimateNext: () => 9000 - margin + 1 }))).toEqual({ trigger: 'preflight' });
    expect(dueBeforeRequest(inputs({ policy: { ...high, preflight: false }, estimateNext: () => 9999 }))).toBeUndefined();
  });

  it('never asks for the estimate when pre-flight is off or the threshold already fired', () => {
    const estimateNext = () => {
      throw new Error('not needed');
    };
    expect(dueBeforeRequest(inputs({ lastReportedContext: 9000, estimateNext }))).toEqual({ trigger: 'threshold' });
    expect(dueBeforeRequest(inputs({ policy: { thresholdRatio: 0.85, preflight: false, everyNCalls: 0 }, estimateNext }))).toBeUndefined();
  });

  it('cadence after N calls, only when set', () => {
    const every4 = { thresholdRatio: 0.85, preflight: true, everyNCalls: 4 };
    expect(dueBeforeRequest(inputs({ policy: every4, callsSinceCompaction: 3 }))).toBeUndefined();
    expect(dueBeforeRequest(inputs({ policy: every4, callsSinceCompaction: 4 }))).toEqual({ trigger: 'cadence' });
    expect(dueAfterResponse(inputs({ policy: every4, callsSinceCompaction: 4 }))).toEqual({ trigger: 'cadence' });
    expect(dueBeforeRequest(inputs({ callsSinceCompaction: 1000 }))).toBeUndefined();
  });
});
