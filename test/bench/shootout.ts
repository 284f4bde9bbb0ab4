// Shootout: the 18 trajectories replayed through the real server (replay
// model) at 32k, 128k and 200k windows under skein's defaults and under the
// compaction policies of sketch, Claude Code, Codex, Goose, OpenHands and the
// Cline SDK, each emulated on skein's own strategy interface (policies/*.ts;
// what each rule is and where it comes from: README.md). Every policy gets the
// same deterministic summariser, so the comparison is of policies.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defaultStrategies } from '../../server/compaction/strategies/index.js';
import { addKept, emptyKept, type Kept } from '../helpers/kept.js';
import { SKEIN, SKETCH, wholeHistorySummary, type Policy } from './policies.js';
import { claudeCode } from './policies/claude-code.js';
import { cline } from './policies/cline.js';
import { codex } from './policies/codex.js';
import type { PolicyFor } from './policies/common.js';
import { goose } from './policies/goose.js';
import { openHands } from './policies/openhands.js';
import { emptyCostParts, REFERENCE_MODEL, replayThroughServer, trajectoryFiles, type CostParts, type RunStats } from './survival.js';
import { fmt, median, percentile, type BenchRow, type BenchSection } from './types.js';

const WINDOWS = [32_000, 128_000, 200_000];
/** Fresh strategy objects per run: runs share the process. */
const POLICIES: PolicyFor[] = [
  () => ({ ...SKETCH, name: 'sketch', strategies: [wholeHistorySummary()] }),
  claudeCode,
  codex,
  goose,
  openHands,
  cline,
  () => ({ ...SKEIN, strategies: defaultStrategies() }),
];
const SKEIN_NAME = SKEIN.name;
/** Runs in flight at once: a run mostly waits (timers, disk), so a few share one core well. */
const CONCURRENCY = Number(process.env.SKEIN_BENCH_CONCURRENCY ?? 6);
const README = path.resolve('test/bench/README.md');
const START = '<!-- shootout:start -->';
const END = '<!-- shootout:end -->';

export interface PolicyResult {
  window: number;
  policy: string;
  overflows: number;
  stalls: number;
  compactions: number;
  failedCompactions: number;
  costUsd: number;
  costParts: CostParts;
  medianContext: number;
  kept: Kept;
  p95CompactionInput: number;
  finished: number;
  sessions: number;
}

async function pool<T>(jobs: (() => Promise<T>)[], limit: number): Promise<T[]> {
  const out: T[] = new Array(jobs.length);
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const i = next++;
      out[i] = await jobs[i]!();
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, jobs.length)) }, worker));
  return out;
}

function summarise(window: number, policy: string, runs: RunStats[]): PolicyResult {
  const sum = (f: (r: RunStats) => number) => runs.reduce((n, r) => n + f(r), 0);
  return {
    window,
    policy,
    overflows: sum((r) => r.overflows),
    stalls: sum((r) => r.stalls),
    compactions: sum((r) => r.compactions),
    failedCompactions: sum((r) => r.failedCompactions),
    costUsd: sum((r) => r.costUsd),
    costParts: runs.reduce((p, r) => {
      for (const k of Object.keys(p) as (keyof CostParts)[]) p[k] += r.costParts[k];
      return p;
    }, emptyCostParts()),
    medianContext: median(runs.flatMap((r) => r.contexts)),
    kept: runs.reduce((k, r) => addKept(k, r.kept), emptyKept()),
    p95CompactionInput: runs.some((r) => r.compactionInput.length) ? percentile(runs.flatMap((r) => r.compactionInput), 95) : 0,
    finished: runs.filter((r) => r.finished).length,
    sessions: runs.length,
  };
}

function share(kept: number, total: number): string {
  return total ? `${((100 * kept) / total).toFixed(1)}% (${kept}/${total})` : 'n/a';
}

const idShare = (r: PolicyResult) => (r.kept.inViewTotal ? r.kept.inViewKept / r.kept.inViewTotal : undefined);

/** The comparison as a markdown table, one line per window and policy. */
export function comparisonTable(results: PolicyResult[]): string {
  const lines = [
    `| window | policy | overflow errors | compactions (failed) | cost at ${REFERENCE_MODEL} prices | median context per request | user messages kept | identifiers of folded spans kept in view | p95 summariser input per compaction |`,
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of results) {
    lines.push(
      `| ${r.window / 1000}k | ${r.policy === SKEIN_NAME ? '**skein**' : r.policy} | ${r.overflows} | ${r.compactions} (${r.failedCompactions}) | $${r.costUsd.toFixed(2)} | ${fmt(r.medianContext)} | ${share(r.kept.userMessagesKept, r.kept.userMessagesTotal)} | ${share(r.kept.inViewKept, r.kept.inViewTotal)} | ${fmt(r.p95CompactionInput)} |`,
    );
  }
  return lines.join('\n');
}

/** Where each policy's dollars go: the model's requests by token kind, then the summariser's requests. */
export function costTable(results: PolicyResult[]): string {
  const lines = ['| window | policy | requests | cache writes | cache reads | uncached input | output | summariser | total |', '|---|---|---|---|---|---|---|---|---|'];
  const usd = (n: number) => `$${n.toFixed(2)}`;
  for (const r of results) {
    const p = r.costParts;
    lines.push(
      `| ${r.window / 1000}k | ${r.policy === SKEIN_NAME ? '**skein**' : r.policy} | ${p.requests} | ${usd(p.cacheWrite)} | ${usd(p.cacheRead)} | ${usd(p.input)} | ${usd(p.output)} | ${usd(p.summariser)} | ${usd(r.costUsd)} |`,
    );
  }
  return lines.join('\n');
}

function goals(window: number, results: PolicyResult[]): BenchRow[] {
  const skein = results.find((r) => r.policy === SKEIN_NAME)!;
  const peers = results.filter((r) => r.policy !== SKEIN_NAME);
  const label = `${window / 1000}k`;
  const clean = peers.filter((r) => r.overflows === 0).sort((a, b) => a.costUsd - b.costUsd);
  const cheapest = clean[0];
  const bestIds = peers.filter((r) => idShare(r) !== undefined).sort((a, b) => idShare(b)! - idShare(a)!)[0];
  const skeinIds = idShare(skein) ?? 1;
  return [
    { bench: 'shootout', measure: `${label}: skein's overflow errors`, value: String(skein.overflows), goal: '0', met: skein.overflows === 0 },
    {
      bench: 'shootout',
      measure: `${label}: skein's cost vs the cheapest peer with 0 overflows`,
      value: cheapest ? `$${skein.costUsd.toFixed(2)} vs $${cheapest.costUsd.toFixed(2)} (${cheapest.policy})` : `$${skein.costUsd.toFixed(2)}; no peer had 0 overflows`,
      goal: '<= cheapest clean peer',
      met: !cheapest || skein.costUsd <= cheapest.costUsd,
    },
    {
      bench: 'shootout',
      measure: `${label}: skein's identifiers kept vs the best peer; skein's user messages kept`,
      value: `${share(skein.kept.inViewKept, skein.kept.inViewTotal)} vs ${bestIds ? `${share(bestIds.kept.inViewKept, bestIds.kept.inViewTotal)} (${bestIds.policy})` : 'n/a'}; ${share(skein.kept.userMessagesKept, skein.kept.userMessagesTotal)}`,
      goal: '>= every peer; user messages 100%',
      met: (!bestIds || skeinIds >= idShare(bestIds)!) && skein.kept.userMessagesKept === skein.kept.userMessagesTotal,
    },
  ];
}

export const section: BenchSection = {
  name: 'shootout',
  async run() {
    const files = trajectoryFiles();
    const jobs: { window: number; policy: Policy; file: string }[] = [];
    for (const window of WINDOWS) for (const make of POLICIES) for (const file of files) jobs.push({ window, policy: make(window), file });
    const started = Date.now();
    let done = 0;
    // Every event is fsynced: on tmpfs the runs measure compaction, not the disk.
    const root = fs.mkdtempSync(path.join(fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir(), 'skein-shootout-'));
    const runs = await pool(
      jobs.map((j) => async () => {
        const dataDir = fs.mkdtempSync(path.join(root, 'run-'));
        const run = await replayThroughServer(j.file, j.window, j.policy, dataDir).finally(() => fs.rmSync(dataDir, { recursive: true, force: true }));
        if (++done % 42 === 0) process.stderr.write(`shootout: ${done}/${jobs.length} runs, ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
        return run;
      }),
      CONCURRENCY,
    ).finally(() => fs.rmSync(root, { recursive: true, force: true }));
    const results: PolicyResult[] = [];
    for (const window of WINDOWS) {
      for (const name of [...new Set(jobs.map((j) => j.policy.name))]) results.push(summarise(window, name, runs.filter((r) => r.window === window && r.policy === name)));
    }
    const rows: BenchRow[] = [];
    for (const r of results) {
      rows.push({
        bench: 'shootout',
        measure: `${r.window / 1000}k, ${r.policy}: overflows / compactions / cost / median context / user messages kept / identifiers kept / p95 summariser input`,
        value: `${r.overflows} / ${r.compactions} / $${r.costUsd.toFixed(2)} / ${fmt(r.medianContext)} / ${share(r.kept.userMessagesKept, r.kept.userMessagesTotal)} / ${share(r.kept.inViewKept, r.kept.inViewTotal)} / ${fmt(r.p95CompactionInput)}`,
      });
    }
    for (const window of WINDOWS) rows.push(...goals(window, results.filter((r) => r.window === window)));
    const table = comparisonTable(results);
    const costs = costTable(results);
    process.stderr.write(`${table}\n\n${costs}\n`);
    writeTable(`${table}\n\nWhere the dollars go (the model's requests by token kind; the summariser's requests apart):\n\n${costs}\n\n${files.length} sessions per cell, ${jobs.length} runs in ${((Date.now() - started) / 1000).toFixed(0)} s (${CONCURRENCY} at a time), ${new Date().toISOString().slice(0, 10)}.`);
    return { rows, details: { results, runs } };
  },
};

/** The comparison table goes into test/bench/README.md between its own markers (also on a filtered run: it is this section's output). */
function writeTable(text: string): void {
  if (!fs.existsSync(README)) return;
  const readme = fs.readFileSync(README, 'utf8');
  const a = readme.indexOf(START);
  const b = readme.indexOf(END);
  if (a >= 0 && b > a) fs.writeFileSync(README, `${readme.slice(0, a + START.length)}\n${text}\n${readme.slice(b)}`);
}
