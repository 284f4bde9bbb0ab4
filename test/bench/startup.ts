// Startup bench: an empty skein server started as `npm start` used to run it
// (TypeScript through tsx) and as it runs now (compiled JavaScript in dist/),
// alternately, five times each. Measured: the time from spawn to the first
// 200 from /healthz, and the resident memory (VmRSS, median of five readings
// 200 ms apart) once it answers, and the CPU time the process used until then
// (utime + stime from /proc/<pid>/stat): on a loaded machine the wall time
// mostly measures the other processes, the CPU time does not.
// Needs `npm run build` (npm run bench does it).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { tempDir } from '../helpers/temp-dir.js';
import { fmt, median, type BenchSection, type SectionResult } from './types.js';

const BENCH = 'startup';
const RUNS = 5;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const MODES = {
  'tsx (before)': ['--import', 'tsx', path.resolve('server/main.ts')],
  'compiled (after)': [path.resolve('dist/server/main.js')],
} as const;
type Mode = keyof typeof MODES;

function rss(pid: number): number {
  const kb = /^VmRSS:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  if (kb === undefined) throw new Error(`no VmRSS for ${pid}`);
  return Number(kb) * 1024;
}

/** CPU time of a process so far, ms (/proc/<pid>/stat fields 14 and 15, in clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ');
  // After the command name, field 3 is index 0: utime is field 14, stime 15.
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

interface Run {
  startMs: number;
  cpuMs: number;
  rss: number;
}

async function once(mode: Mode): Promise<Run> {
  const started = performance.now();
  const child = spawn(process.execPath, [...MODES[mode]], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, SKEIN_PORT: '0', SKEIN_DATA_DIR: tempDir('startup-data'), SKEIN_WORKDIR: tempDir('startup-work') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${mode} exited:\n${output}`);
      if (performance.now() - started > 60_000) throw new Error(`${mode} did not start in 60 s:\n${output}`);
      const url = /running at (http:\/\/[\d.:]+)/.exec(output)?.[1];
      const ok = url ? await fetch(`${url}/healthz`).then((r) => r.ok, () => false) : false;
      if (ok) break;
      await sleep(5);
    }
    const startMs = performance.now() - started;
    const cpu = cpuMs(child.pid!);
    const readings: number[] = [];
    for (let i = 0; i < 5; i++) {
      await sleep(200);
      readings.push(rss(child.pid!));
    }
    return { startMs, cpuMs: cpu, rss: median(readings) };
  } finally {
    child.kill('SIGKILL');
    await new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve)));
  }
}

export const section: BenchSection = {
  name: BENCH,
  async run(): Promise<SectionResult> {
    if (!fs.existsSync(MODES['compiled (after)'][0])) throw new Error('dist/server/main.js is missing: run `npm run build` first');
    const runs: Record<Mode, Run[]> = { 'tsx (before)': [], 'compiled (after)': [] };
    // Alternating, so both modes see the same machine load.
    for (let i = 0; i < RUNS; i++) for (const mode of Object.keys(MODES) as Mode[]) runs[mode].push(await once(mode));
    const med = (mode: Mode, key: keyof Run) => median(runs[mode].map((r) => r[key]));
    const mb = (bytes: number) => `${fmt(bytes / 1024 / 1024, 0)} MB`;
    const [before, after] = ['tsx (before)', 'compiled (after)'] as const;
    const rows = [
      { bench: BENCH, measure: 'empty server RSS once /healthz answers, median, tsx / compiled', value: `${mb(med(before, 'rss'))} / ${mb(med(after, 'rss'))}`, goal: 'compiled under 100 MB', met: med(after, 'rss') < 100 * 1024 * 1024 },
      { bench: BENCH, measure: 'spawn to first /healthz 200 (wall), median, tsx / compiled', value: `${fmt(med(before, 'startMs'), 0)} ms / ${fmt(med(after, 'startMs'), 0)} ms`, goal: 'compiled under 1 s', met: med(after, 'startMs') < 1000 },
      { bench: BENCH, measure: 'CPU time until /healthz answers, median, tsx / compiled', value: `${fmt(med(before, 'cpuMs'), 0)} ms / ${fmt(med(after, 'cpuMs'), 0)} ms`, goal: 'compiled under 1 s', met: med(after, 'cpuMs') < 1000 },
    ];
    return { rows, details: runs };
  },
};
