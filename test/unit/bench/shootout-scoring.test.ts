// The shootout's scoring (test/bench/shootout-report.ts, shootout.ts): a run
// stopped at the stall limit is a failure scored at its cost to finish (never
// a saving), the strict and lenient rules are reported side by side, and a
// second shootout in the same checkout reports the runs kept in its runs file.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { emptyMeterStats } from '../../bench/recall/meter.js';
import { goals, scoredCost, summarise } from '../../bench/shootout-report.js';
import { METER_VERSION, readRuns, reportOf, resume, type SetRun } from '../../bench/shootout.js';
import { tempDir } from '../../helpers/temp-dir.js';

const dir = tempDir('shootout-scoring');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function run(policy: string, file: string, costUsd: number, opts: { finished?: boolean; strict?: number; lenient?: number } = {}): SetRun {
  const meter = emptyMeterStats();
  meter.rereadUsd = opts.lenient ?? 0;
  meter.strict.rereadUsd = opts.strict ?? 0;
  return {
    file, window: 32_000, policy, finished: opts.finished ?? true, overflows: 0, stalls: opts.finished === false ? 40 : 0, compactions: 1, failedCompactions: 0,
    before: [], after: [], messagesBefore: [], summariserInput: [], contexts: [], compactionInput: [], kept: {} as SetRun['kept'], costUsd,
    costParts: { cacheWrite: 0, cacheRead: 0, input: 0, output: 0, summariser: 0, requests: 0 } as SetRun['costParts'], meter, ms: 1,
    set: 'shared', extrapolated: false, meterVersion: METER_VERSION,
  };
}

describe('a stall is a failure, not a saving', () => {
  it('a run stopped at the stall limit is scored at the dearest cost another policy paid to finish the session', () => {
    const session = [run('skein', 'a.jsonl', 1.8), run('Goose', 'a.jsonl', 1.7), run('sketch', 'a.jsonl', 0.607, { finished: false })];
    expect(scoredCost(session[2]!, 'strict', session)).toBeCloseTo(1.8);
    // A finished run keeps its own cost.
    expect(scoredCost(session[1]!, 'strict', session)).toBeCloseTo(1.7);
  });

  it('the failed run is counted and shown, and does not make its policy the cheapest', () => {
    const runs = [
      run('skein', 'a.jsonl', 1.8), run('sketch', 'a.jsonl', 0.607, { finished: false }),
      run('skein', 'b.jsonl', 1.0), run('sketch', 'b.jsonl', 1.0),
    ];
    const skein = summarise('shared', 32_000, 'skein', false, runs.filter((r) => r.policy === 'skein'), runs.filter((r) => r.policy === 'skein'), runs);
    const sketch = summarise('shared', 32_000, 'sketch', false, runs.filter((r) => r.policy === 'sketch'), runs.filter((r) => r.policy === 'skein'), runs);
    expect(sketch.failed).toBe(1);
    expect(sketch.strict.totalUsd).toBeCloseTo(2.8);
    expect(sketch.strict.totalUsd).toBeGreaterThanOrEqual(skein.strict.totalUsd);
    const row = goals('shared', 32_000, [skein, sketch]).find((r) => r.measure.includes('strict'))!;
    expect(row.met).toBe(true);
    const { report } = reportOf(runs, ['shared'], 'test');
    expect(report).toContain('failed at the stall limit');
    expect(report).toMatch(/\| 32k \| sketch \| 2 \| 0 \| 1\/2 \|/);
  });
});

describe('strict and lenient, side by side', () => {
  it('each rule charges its own re-reads; the report has both tables and a goal row for each', () => {
    const runs = [run('skein', 'a.jsonl', 1.0, { strict: 0.5, lenient: 0.1 }), run('Goose', 'a.jsonl', 1.2, { strict: 0.1, lenient: 0.1 })];
    const { rows, report, results } = reportOf(runs, ['shared'], 'test');
    const skein = results.find((r) => r.policy === 'skein')!;
    expect(skein.strict.totalUsd).toBeCloseTo(1.5);
    expect(skein.lenient.totalUsd).toBeCloseTo(1.1);
    expect(report).toContain('Strict recall (the primary rule');
    expect(report).toContain('Lenient recall (the second column');
    expect(rows.some((r) => r.measure.includes('32k, strict'))).toBe(true);
    expect(rows.some((r) => r.measure.includes('32k, lenient'))).toBe(true);
  });
});

describe('a second shootout in the same checkout', () => {
  it('reports the runs kept in the runs file instead of skipping them and printing empty tables', () => {
    const file = path.join(dir, 'runs.jsonl');
    const earlier = [run('skein', 'a.jsonl', 1.0), run('Goose', 'a.jsonl', 1.2), { ...run('sketch', 'a.jsonl', 1.1), meterVersion: undefined }];
    fs.writeFileSync(file, earlier.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const jobs = ['skein', 'Goose', 'sketch'].map((policyName) => ({ set: 'shared', window: 32_000, policyName, file: '/somewhere/a.jsonl' }));
    const { todo, kept } = resume(jobs, readRuns(file));
    // The runs of the current meter are kept and reported; the one of an older meter (no strict measure) is replayed.
    expect(kept.map((r) => r.policy)).toEqual(['skein', 'Goose']);
    expect(todo.map((j) => j.policyName)).toEqual(['sketch']);
    const { report } = reportOf([...kept, run('sketch', 'a.jsonl', 1.1)], ['shared'], 'test');
    expect(report).toContain('whole sessions per window: 32k: 1');
    expect(report).toMatch(/\| 32k \| \*\*skein\*\* \|/);
  });
});

describe('whole sessions are counted per window', () => {
  it('a window run with fewer policies (the "+ skein\'s names" rows at 32k only) still reports its sessions', () => {
    const at = (r: SetRun, window: number): SetRun => ({ ...r, window });
    const runs = [
      run('skein', 'a.jsonl', 1), run('Codex', 'a.jsonl', 1.1), run("Codex + skein's names", 'a.jsonl', 1.2),
      at(run('skein', 'a.jsonl', 2), 128_000), at(run('Codex', 'a.jsonl', 2.1), 128_000),
    ];
    const { results, report } = reportOf(runs, ['shared'], 'test');
    expect(report).toContain('whole sessions per window: 32k: 1, 128k: 1)');
    expect(results.filter((r) => r.window === 128_000).map((r) => r.policy).sort()).toEqual(['Codex', 'skein']);
  });
});
