// Shootout: the shared trajectories (and a second folder, SKEIN_TRAJECTORIES,
// reported apart) replayed through the real server (replay model) at 32k,
// 128k and 200k windows under skein's defaults and under the policies of
// sketch, Claude Code, Codex, Goose, OpenHands, the Cline SDK, OpenCode and
// observation masking, each from its source at its own defaults
// (policies/*.ts name the file of every rule). Every policy is measured from
// outside skein by the same provider wrapper (recall/meter.ts): forgetting has
// a price (re-reads), identifiers are counted neutrally, summaries have one size model.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defaultStrategies } from '../../server/compaction/strategies/index.js';
import { SKEIN, type Policy } from './policies.js';
import { claudeCode } from './policies/claude-code.js';
import { cline } from './policies/cline.js';
import { codex } from './policies/codex.js';
import type { PolicyFor } from './policies/common.js';
import { goose } from './policies/goose.js';
import { observationMasking } from './policies/masking.js';
import { openCode } from './policies/opencode.js';
import { openHands } from './policies/openhands.js';
import { sketch } from './policies/sketch.js';
import { comparisonTable, goals, perSessionTable, SKEIN_NAME, summarise, type PolicyResult } from './shootout-report.js';
import { replayThroughServer, type RunStats } from './survival.js';
import type { BenchRow, BenchSection } from './types.js';

const WINDOWS = [32_000, 128_000, 200_000];
/** Fresh strategy objects per run: runs share the process. */
const POLICIES: PolicyFor[] = [sketch, claudeCode, codex, goose, openHands, cline, openCode, observationMasking, () => ({ ...SKEIN, strategies: defaultStrategies() })];
/** Runs in flight at once: a run mostly waits (timers, disk), so a few share one core well. */
const CONCURRENCY = Number(process.env.SKEIN_BENCH_CONCURRENCY ?? 6);
const README = path.resolve('test/bench/README.md');
const START = '<!-- shootout:start -->';
const END = '<!-- shootout:end -->';
/** The shared set (a copy of ../shared/trajectories): what skein may be tuned on. */
const SHARED = path.resolve('test/fixtures/trajectories');

interface TrajectorySet {
  name: string;
  dir: string;
}

/** The shared set, and SKEIN_TRAJECTORIES as a second, separately reported set when it names another folder. */
export function trajectorySets(env = process.env): TrajectorySet[] {
  const sets = [{ name: 'shared', dir: SHARED }];
  const second = env.SKEIN_TRAJECTORIES && path.resolve(env.SKEIN_TRAJECTORIES);
  if (second && second !== SHARED) {
    if (!fs.existsSync(second) || !fs.statSync(second).isDirectory()) throw new Error(`SKEIN_TRAJECTORIES: ${second} is not a folder of trajectories (.jsonl)`);
    sets.push({ name: `second (${path.basename(second)})`, dir: second });
  }
  return sets;
}

function filesOf(dir: string): string[] {
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.jsonl')).sort();
  if (!files.length) throw new Error(`no trajectories (.jsonl) in ${dir}`);
  return files.map((f) => path.join(dir, f));
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

type SetRun = RunStats & { set: string; extrapolated: boolean };

export const section: BenchSection = {
  name: 'shootout',
  async run() {
    const sets = trajectorySets();
    const jobs: { set: string; window: number; policy: Policy; file: string }[] = [];
    for (const set of sets) for (const window of WINDOWS) for (const make of POLICIES) for (const file of filesOf(set.dir)) jobs.push({ set: set.name, window, policy: make(window), file });
    const started = Date.now();
    let done = 0;
    // Every event is fsynced: on tmpfs the runs measure compaction, not the disk.
    const root = fs.mkdtempSync(path.join(fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir(), 'skein-shootout-'));
    const runs: SetRun[] = await pool(
      jobs.map((j) => async () => {
        const dataDir = fs.mkdtempSync(path.join(root, 'run-'));
        const run = await replayThroughServer(j.file, j.window, j.policy, dataDir).finally(() => fs.rmSync(dataDir, { recursive: true, force: true }));
        if (++done % 27 === 0) process.stderr.write(`shootout: ${done}/${jobs.length} runs, ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
        return { ...run, set: j.set, extrapolated: j.policy.extrapolated === true };
      }),
      CONCURRENCY,
    ).finally(() => fs.rmSync(root, { recursive: true, force: true }));

    const results: PolicyResult[] = [];
    const rows: BenchRow[] = [];
    const text: string[] = [];
    for (const set of sets) {
      const inSet = runs.filter((r) => r.set === set.name);
      const setResults: PolicyResult[] = [];
      for (const window of WINDOWS) {
        const here = inSet.filter((r) => r.window === window);
        const skeinRuns = here.filter((r) => r.policy === SKEIN_NAME);
        for (const name of [...new Set(here.map((r) => r.policy))]) {
          const group = here.filter((r) => r.policy === name);
          setResults.push(summarise(set.name, window, name, group.some((r) => r.extrapolated), group, skeinRuns));
        }
        rows.push(...goals(set.name, window, setResults.filter((r) => r.window === window)));
      }
      results.push(...setResults);
      const sessions = new Set(inSet.map((r) => r.file)).size;
      const policies = [...new Set(inSet.map((r) => r.policy))];
      text.push(
        `**${set.name} set** (${sessions} sessions):\n\n${comparisonTable(setResults)}\n\n<details><summary>Per session: cost with re-reads charged, $ (overflow errors)</summary>\n\n${WINDOWS.map((w) => perSessionTable(inSet, w, [...new Set(inSet.filter((r) => r.window === w).map((r) => r.policy))].filter((p) => policies.includes(p)))).join('\n\n')}\n\n</details>`,
      );
    }
    const report = `${text.join('\n\n')}\n\n\\* an extrapolation: the tool does not run at that window; shown, kept out of the goals.\n\n${jobs.length} runs in ${((Date.now() - started) / 1000).toFixed(0)} s (${CONCURRENCY} at a time), ${new Date().toISOString().slice(0, 10)}.`;
    process.stderr.write(`${report}\n`);
    writeTable(report);
    return { rows, details: { results, runs } };
  },
};

/** The comparison goes into test/bench/README.md between its own markers (also on a filtered run: it is this section's output). */
function writeTable(text: string): void {
  if (!fs.existsSync(README)) return;
  const readme = fs.readFileSync(README, 'utf8');
  const a = readme.indexOf(START);
  const b = readme.indexOf(END);
  if (a >= 0 && b > a) fs.writeFileSync(README, `${readme.slice(0, a + START.length)}\n${text}\n${readme.slice(b)}`);
}
