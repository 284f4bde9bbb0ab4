// The gauge over its window (an estimate during a compaction, 9,100 of 8,192
// tokens): the bar is full, never past it, the meter's value stays within its
// maximum, and the words say "over the window" with the true share.
import { describe, expect, it } from 'vitest';
import { gaugeFill } from '../../webui/gauge-fill.js';

const sum = (f: { read: number; write: number; input: number }) => f.read + f.write + f.input;

describe('gaugeFill', () => {
  it('under the window: each segment is its share of the window, the words a plain percent', () => {
    const f = gaugeFill({ contextTokens: 4096, contextWindow: 8192, ratio: 0.5, cacheRead: 2048, cacheWrite: 0, input: 2048 });
    expect(f).toMatchObject({ read: 25, write: 0, input: 25, over: false, share: '50%', valueNow: 4096 });
  });

  it('over the window: the segments fill the bar and no more, in proportion; "over the window: 111%"; the meter at its maximum', () => {
    const f = gaugeFill({ contextTokens: 9100, contextWindow: 8192, ratio: 9100 / 8192, cacheRead: 0, cacheWrite: 0, input: 9100 });
    expect(sum(f)).toBeCloseTo(100, 9);
    expect(f).toMatchObject({ over: true, share: 'over the window: 111%', valueNow: 8192 });
    const split = gaugeFill({ contextTokens: 12_000, contextWindow: 8192, ratio: 12_000 / 8192, cacheRead: 6000, cacheWrite: 3000, input: 3000 });
    expect(sum(split)).toBeCloseTo(100, 9);
    expect(split.read).toBeCloseTo(50, 9);
    expect(split.share).toBe('over the window: 146%');
  });

  it('an estimate with no segment figures (only contextTokens) is drawn as uncached input', () => {
    const f = gaugeFill({ contextTokens: 10_000, contextWindow: 8192, ratio: 10_000 / 8192 });
    expect(f.input).toBeCloseTo(100, 9);
    expect(f.over).toBe(true);
  });
});
