// Holm's correction for the number of comparisons the shootout's table makes
// (recall/stats.ts), and the paired bootstrap's p-value and n it reads.
import { describe, expect, it } from 'vitest';
import { correctAcrossTable, summarise, type PolicyResult } from '../../bench/shootout-report.js';
import { bootstrapDiff, holm, holmCorrect, verdict } from '../../bench/recall/stats.js';
import type { RunStats } from '../../bench/survival.js';

describe("Holm's step-down correction", () => {
  it('adjusts the textbook example as Holm (1979) and R p.adjust(method = "holm") do', () => {
    // Four hypotheses, alpha 0.05 (the Holm-Bonferroni example): sorted 0.005, 0.01, 0.03, 0.04 against
    // 0.05/4, 0.05/3, 0.05/2, 0.05/1: the first two are rejected, the third is not (0.03 > 0.025), so neither is the fourth.
    const adjusted = holm([0.01, 0.04, 0.03, 0.005]);
    [0.03, 0.06, 0.06, 0.02].forEach((want, i) => expect(adjusted[i]).toBeCloseTo(want, 12));
    expect(adjusted.map((p) => p <= 0.05)).toEqual([true, false, false, true]);
  });

  it('keeps the adjusted values monotone in the p-values and caps them at 1', () => {
    // Sorted 0.02, 0.03, 0.5 with m = 3: 0.06, max(0.06, 0.06) = 0.06, max(0.06, 0.5) = 0.5; 0.9 x 1 stays under 1, 0.4 x 3 is capped.
    expect(holm([0.5, 0.02, 0.03])).toEqual([0.5, 0.06, 0.06]);
    expect(holm([0.4, 0.4, 0.4]).every((p) => p === 1)).toBe(true);
    expect(holm([])).toEqual([]);
  });
});

describe('the paired bootstrap states its p-value and n', () => {
  it('identical costs: p is 1; a difference in every session: p is the smallest the resamples can give', () => {
    expect(bootstrapDiff([1, 2, 3], [1, 2, 3])).toMatchObject({ p: 1, n: 3 });
    const b = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    const i = bootstrapDiff(b.map((x) => x - 0.5), b);
    expect(i.n).toBe(10);
    expect(i.p).toBeLessThan(0.001);
  });
});

/** Sessions where the policy is a little cheaper than skein in most sessions and dearer in one (p about 0.02 alone). */
const near = { b: [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1], a: [0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 1.25] };

describe('a difference that holds alone may not hold across the table', () => {
  it('one comparison: cheaper; the same among 20 ties: a tie, at the level of its Holm step', { timeout: 60_000 }, () => {
    const alone = bootstrapDiff(near.a, near.b);
    expect(verdict(alone)).toBe('cheaper');
    const [corrected] = holmCorrect([near, ...Array.from({ length: 19 }, () => ({ a: near.b, b: near.b }))]);
    expect(corrected!.holm!.m).toBe(20);
    // The smallest p is tested at alpha / 20: its interval is the 99.75% one.
    expect(corrected!.level).toBeCloseTo(1 - 0.05 / 20, 12);
    expect(corrected!.holm!.adjustedP).toBeGreaterThan(0.05);
    expect(verdict(corrected!)).toBe('tie');
    // A difference in every session holds across the same family.
    const clear = { a: near.b.map((x) => x - 0.2), b: near.b };
    expect(verdict(holmCorrect([clear, ...Array.from({ length: 19 }, () => ({ a: near.b, b: near.b }))])[0]!)).toBe('cheaper');
  });
});

function run(policy: string, file: string, cost: number): RunStats {
  const strict = { rereads: 0, targeted: 0, targetedNames: 0, rereadMessages: 0, rereadTokens: 0, rereadUsd: 0 };
  const meter = { steps: 1, strict, rereads: 0, rereadMessages: 0, rereadTokens: 0, rereadUsd: 0, idsTotal: 0, idsKept: 0, rewrites: 0, realUserTotal: 1, realUserKept: 1, noticeTotal: 0, noticeKept: 0, summaryTokens: 0 };
  return { file, window: 32_000, policy, finished: true, stalls: 0, ms: 1, costUsd: cost, overflows: 0, compactions: 0, meter } as unknown as RunStats;
}

describe('the shootout corrects every comparison with skein in its report', () => {
  it('counts each peer, window, set and rule in the family, and states n', { timeout: 60_000 }, () => {
    const files = near.b.map((_, i) => `s${i}`);
    const skeinRuns = files.map((f, i) => run('skein', f, near.b[i]!));
    const results: PolicyResult[] = [];
    for (const set of ['shared', 'judging'])
      for (const [k, policy] of ['Codex', 'Goose'].entries()) {
        const runs = files.map((f, i) => run(policy, f, k === 0 ? near.a[i]! : near.b[i]!));
        results.push(summarise(set, 32_000, policy, false, runs, skeinRuns, [...runs, ...skeinRuns]));
      }
    results.push(summarise('shared', 32_000, 'skein', false, skeinRuns, skeinRuns));
    // Uncorrected, Codex is cheaper than skein in both sets.
    expect(verdict(results[0]!.strict.vsSkein!)).toBe('cheaper');
    // 2 sets x 2 peers x 2 rules.
    expect(correctAcrossTable(results)).toBe(8);
    const codex = results[0]!.strict.vsSkein!;
    expect(codex.holm).toMatchObject({ m: 8 });
    expect(codex.n).toBe(12);
    expect(codex.level).toBeCloseTo(1 - 0.05 / 8, 12);
    expect(results[4]!.strict.vsSkein).toBeUndefined();
  });
});
