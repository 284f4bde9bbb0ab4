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
import { withSkeinNames } from './policies/with-skein-names.js';
import { ALPHA, BOOTSTRAP_ITERATIONS } from './recall/stats.js';
import { comparisonTable, correctAcrossTable, goals, lenientTable, perSessionTable, SKEIN_NAME, summarise, type PolicyResult } from './shootout-report.js';
import { replayThroughServer, type RunStats } from './survival.js';
import type { BenchRow, BenchSection } from './types.js';

const ALL_WINDOWS = [32_000, 128_000, 200_000];
/** SKEIN_SHOOTOUT_WINDOWS (e.g. "32000"): a part of the windows, for runs split across processes (merged by shootout-merge.ts). */
const WINDOWS = process.env.SKEIN_SHOOTOUT_WINDOWS ? process.env.SKEIN_SHOOTOUT_WINDOWS.split(',').map(Number) : ALL_WINDOWS;
if (WINDOWS.some((w) => !ALL_WINDOWS.includes(w))) throw new Error(`SKEIN_SHOOTOUT_WINDOWS: each window must be one of ${ALL_WINDOWS.join(', ')}`);
/** Every finished run, one JSON line each (what shootout-merge.ts reads). */
const RUNS_FILE = path.resolve(process.env.SKEIN_SHOOTOUT_RUNS_FILE ?? 'test/bench/results/shootout-runs.jsonl');
/** Fresh strategy objects per run: runs share the process. */
const PEERS: PolicyFor[] = [sketch, claudeCode, codex, goose, openHands, cline, openCode, observationMasking];
/** Every peer as its source has it, then every peer with skein's placeholder and ledger (extra rows, out of the goals), then skein. */
const ALL_POLICIES: PolicyFor[] = [...PEERS, ...PEERS.map(withSkeinNames), () => ({ ...SKEIN, strategies: defaultStrategies() })];
/** SKEIN_SHOOTOUT_POLICIES (e.g. "skein,Goose"): a part of the policies, by name, for a run that re-measures only what changed (merged with the others' runs by shootout-merge.ts). */
const POLICIES = policiesOf(process.env.SKEIN_SHOOTOUT_POLICIES);

export function policiesOf(names: string | undefined): PolicyFor[] {
  if (!names) return ALL_POLICIES;
  const wanted = names.split(',').map((n) => n.trim().toLowerCase());
  const known = ALL_POLICIES.map((make) => make(ALL_WINDOWS[0]!).name.replace(/ \(extrapolated\)$/, '').toLowerCase());
  const unknown = wanted.filter((n) => !known.includes(n));
  if (unknown.length) throw new Error(`SKEIN_SHOOTOUT_POLICIES: unknown ${unknown.join(', ')}; one or more of ${known.join(', ')}`);
  return ALL_POLICIES.filter((_, i) => wanted.includes(known[i]!));
}
/** Runs in flight at once: a run mostly waits (timers, disk), so a few share one core well. */
const CONCURRENCY = Number(process.env.SKEIN_BENCH_CONCURRENCY ?? 6);
const README = path.resolve('test/bench/README.md');
const START = '<!-- shootout:start -->';
const END = '<!-- shootout:end -->';
/** The shared set (a copy of ../shared/trajectories): what skein may be tuned on. */
const SHARED = path.resolve('test/fixtures/trajectories');
/** Sessions of other agents, never tuned on (test/bench/judging/README.md): judged only, reported apart. */
export const JUDGING = path.resolve('test/bench/judging/trajectories');

interface TrajectorySet {
  name: string;
  dir: string;
}

const SET_CHOICES = ['shared', 'second', 'judging', 'all'];

/**
 * The shared set; SKEIN_TRAJECTORIES as a second, separately reported set when
 * it names another folder; the judging set (SKEIN_JUDGING=1, or
 * SKEIN_SHOOTOUT_SETS=judging) apart from both. SKEIN_SHOOTOUT_SETS keeps a part
 * (a long shootout split across processes): a comma list of shared, second,
 * judging, or all.
 */
export function trajectorySets(env: Record<string, string | undefined> = process.env): TrajectorySet[] {
  const wanted = (env.SKEIN_SHOOTOUT_SETS ?? 'all').split(',').map((s) => s.trim());
  const unknown = wanted.filter((s) => !SET_CHOICES.includes(s));
  if (unknown.length) throw new Error(`SKEIN_SHOOTOUT_SETS: ${unknown.join(', ')}: one or more of ${SET_CHOICES.join(', ')}`);
  const all = wanted.includes('all');
  const sets: TrajectorySet[] = [];
  if (all || wanted.includes('shared')) sets.push({ name: 'shared', dir: SHARED });
  const second = env.SKEIN_TRAJECTORIES && path.resolve(env.SKEIN_TRAJECTORIES);
  // The judging folder named by SKEIN_TRAJECTORIES is still the judging set (never reported as a second set).
  const judging = env.SKEIN_JUDGING === '1' || wanted.includes('judging') || second === JUDGING;
  if (second && second !== SHARED && second !== JUDGING && (all || wanted.includes('second'))) {
    if (!fs.existsSync(second) || !fs.statSync(second).isDirectory()) throw new Error(`SKEIN_TRAJECTORIES: ${second} is not a folder of trajectories (.jsonl)`);
    sets.push({ name: `second (${path.basename(second)})`, dir: second });
  } else if (wanted.includes('second')) throw new Error('SKEIN_SHOOTOUT_SETS=second needs SKEIN_TRAJECTORIES (another folder than the shared and judging sets)');
  if (judging && (all || wanted.includes('judging'))) sets.push({ name: 'judging', dir: JUDGING });
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

export type SetRun = RunStats & { set: string; extrapolated: boolean; meterVersion?: number };

/** Bumped when the meter measures something new: a kept run of an older meter is replayed (runs of version 2 carry the strict rule). */
export const METER_VERSION = 2;

/** The runs a runs file holds (none when it does not exist). */
export function readRuns(file: string): SetRun[] {
  if (!fs.existsSync(file)) return [];
  return fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as SetRun);
}

/**
 * Which jobs still need a replay, and which kept runs stand for the others
 * (a second shootout in the same checkout reports them: a run is skipped only
 * because it is already there). Kept runs of an older meter are replayed.
 */
export function resume<J extends { set: string; window: number; policyName: string; file: string }>(jobs: J[], earlier: SetRun[]): { todo: J[]; kept: SetRun[] } {
  const key = (set: string, window: number, policy: string, file: string) => `${set}|${window}|${policy}|${path.basename(file)}`;
  const current = new Map(earlier.filter((r) => r.meterVersion === METER_VERSION).map((r) => [key(r.set, r.window, r.policy, r.file), r]));
  const todo: J[] = [];
  const kept: SetRun[] = [];
  for (const j of jobs) {
    const run = current.get(key(j.set, j.window, j.policyName, j.file));
    if (run) kept.push(run);
    else todo.push(j);
  }
  return { todo, kept };
}

/** The tables and goal rows from finished runs (this section's, or several processes' merged). */
export function reportOf(runs: SetRun[], setNames: string[], timing: string): { rows: BenchRow[]; results: PolicyResult[]; report: string } {
  const windows = ALL_WINDOWS.filter((w) => runs.some((r) => r.window === w));
  const perSet = setNames.map((setName) => {
    // Only whole sessions count (a run cut short leaves some sessions without every policy): the comparison stays paired.
    const all = runs.filter((r) => r.set === setName);
    // Per window: a window run with fewer policies (the "+ skein's names" rows at 32k only) still reports its sessions.
    const policyCount = new Map(windows.map((w) => [w, new Set(all.filter((r) => r.window === w).map((r) => r.policy)).size]));
    const whole = (r: SetRun) => new Set(all.filter((x) => x.window === r.window && x.file === r.file).map((x) => x.policy)).size === policyCount.get(r.window);
    const inSet = all.filter(whole);
    const partial = new Set(all.filter((r) => !whole(r)).map((r) => `${r.window / 1000}k ${r.file}`));
    const setResults: PolicyResult[] = [];
    for (const window of windows) {
      const here = inSet.filter((r) => r.window === window);
      const skeinRuns = here.filter((r) => r.policy === SKEIN_NAME);
      for (const policy of [...new Set(here.map((r) => r.policy))]) {
        const group = here.filter((r) => r.policy === policy);
        setResults.push(summarise(setName, window, policy, group.some((r) => r.extrapolated), group, skeinRuns, here));
      }
    }
    return { setName, inSet, partial, setResults };
  });
  const results = perSet.flatMap((s) => s.setResults);
  // One family: every comparison with skein this report makes (each peer, per set, window and rule), corrected for their number.
  const family = correctAcrossTable(results);
  const rows = perSet.flatMap(({ setName, setResults }) => windows.flatMap((w) => goals(setName, w, setResults.filter((r) => r.window === w))));
  const text = perSet.map(({ setName, inSet, partial, setResults }) => {
    const perWindow = windows.map((w) => `${w / 1000}k: ${new Set(inSet.filter((r) => r.window === w).map((r) => r.file)).size}`).join(', ');
    const policies = [...new Set(inSet.map((r) => r.policy))];
    return `**${setName} set** (whole sessions per window: ${perWindow}${partial.size ? `; ${partial.size} session-windows left out, not every policy had run` : ''}).\n\nStrict recall (the primary rule: a re-read is waived only when the lines the step needs are in view; a name alone is a targeted re-read):\n\n${comparisonTable(setResults)}\n\nLenient recall (the second column: a name in view counts as the lines it names):\n\n${lenientTable(setResults)}\n\n<details><summary>Per session: strict cost with re-reads charged, $ (overflow errors; failed runs scored at their cost to finish)</summary>\n\n${windows.map((w) => perSessionTable(inSet, w, [...new Set(inSet.filter((r) => r.window === w).map((r) => r.policy))].filter((p) => policies.includes(p)))).join('\n\n')}\n\n</details>`;
  });
  const method = `Intervals: sessions resampled with replacement, paired (the same sessions for the policy and skein), ${BOOTSTRAP_ITERATIONS.toLocaleString('en-US')} resamples; corrected for the ${family} comparisons with skein in this report (each peer, per set, window and rule: Holm's step-down method). Each interval is at the level of its Holm step, and a policy is cheaper or dearer only where Holm's adjusted p is at most ${ALPHA}; n is the number of sessions paired.`;
  const report = `${method}\n\n${text.join('\n\n')}\n\n\\* an extrapolation: the tool does not run at that window; shown, kept out of the goals.\n\n${timing}, ${new Date().toISOString().slice(0, 10)}.`;
  return { rows, results, report };
}

export const section: BenchSection = {
  name: 'shootout',
  async run() {
    const sets = trajectorySets();
    const jobs: { set: string; window: number; policy: Policy; file: string }[] = [];
    // Session by session (every policy of a session before the next session): a run cut short leaves whole sessions.
    for (const set of sets) for (const window of WINDOWS) for (const file of filesOf(set.dir)) for (const make of POLICIES) jobs.push({ set: set.name, window, policy: make(window), file });
    // A runs file that already holds some runs is resumed: those are not replayed again, and they are reported with the new ones.
    const { todo, kept } = resume(jobs.map((j) => ({ ...j, policyName: j.policy.name })), readRuns(RUNS_FILE));
    jobs.splice(0, jobs.length, ...todo);
    const started = Date.now();
    let done = 0;
    fs.mkdirSync(path.dirname(RUNS_FILE), { recursive: true });
    // Every event is fsynced: on tmpfs the runs measure compaction, not the disk.
    const root = fs.mkdtempSync(path.join(fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir(), 'skein-shootout-'));
    const finished = await pool(
      jobs.map((j) => async () => {
        const once = async () => {
          const dataDir = fs.mkdtempSync(path.join(root, 'run-'));
          return replayThroughServer(j.file, j.window, j.policy, dataDir).finally(() => fs.rmSync(dataDir, { recursive: true, force: true }));
        };
        // A loaded machine can fail one local request: the run is replayed once more (the replay is deterministic).
        const run = await once()
          .catch(once)
          .catch((err: unknown) => {
            // Twice failed: reported, and the session left out of this window's paired comparison (not every policy ran it).
            process.stderr.write(`shootout: ${j.policy.name} on ${path.basename(j.file)} at ${j.window / 1000}k failed twice: ${err instanceof Error ? err.message : String(err)}\n`);
            return undefined;
          });
        if (!run) return undefined;
        if (++done % 27 === 0) process.stderr.write(`shootout: ${done}/${jobs.length} runs, ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
        const out: SetRun = { ...run, set: j.set, extrapolated: j.policy.extrapolated === true, meterVersion: METER_VERSION };
        fs.appendFileSync(RUNS_FILE, `${JSON.stringify(out)}\n`);
        return out;
      }),
      CONCURRENCY,
    ).finally(() => fs.rmSync(root, { recursive: true, force: true }));
    const runs = [...kept, ...finished.filter((r): r is SetRun => r !== undefined)];

    const { rows, results, report } = reportOf(runs, sets.map((x) => x.name), `${jobs.length} runs in ${((Date.now() - started) / 1000).toFixed(0)} s (${CONCURRENCY} at a time)${kept.length ? `, ${kept.length} kept from ${path.basename(RUNS_FILE)}` : ''}`);
    process.stderr.write(`${report}\n`);
    writeTable(report);
    return { rows, details: { results, runs } };
  },
};

/** The comparison goes into test/bench/README.md between its own markers (also on a filtered run: it is this section's output). */
export function writeTable(text: string): void {
  if (!fs.existsSync(README)) return;
  const readme = fs.readFileSync(README, 'utf8');
  const a = readme.indexOf(START);
  const b = readme.indexOf(END);
  if (a >= 0 && b > a) fs.writeFileSync(README, `${readme.slice(0, a + START.length)}\n${text}\n${readme.slice(b)}`);
}
