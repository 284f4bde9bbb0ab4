// Start time (spawn to the first /healthz answer) and RSS of a server whose
// data folder holds 1,000 sessions of 1,000 events, beside one with an empty
// data folder; runs interleaved, medians. The big folder's index is built by
// a first start that is timed on its own (what the first start after an
// upgrade, or after the index was lost, costs).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { tempDir } from '../helpers/temp-dir.js';
import { writeSessionLogs } from '../helpers/session-logs.js';
import { fmt, median, type BenchRow } from './types.js';

const SESSIONS = 1000;
const EVENTS = 1000;
const RUNS = 5;

interface StartRun {
  startMs: number;
  rssBytes: number;
}

function rssOf(pid: number): number {
  const kb = /^VmRSS:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  if (kb === undefined) throw new Error(`no VmRSS for ${pid}`);
  return Number(kb) * 1024;
}

/** Spawns `npm start`'s server (node + tsx) and times it to the first /healthz 200; RSS read then, and after 1 s of rest. */
async function startOnce(dataDir: string, workDir: string): Promise<StartRun> {
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', 'tsx', path.resolve('server/main.ts')], {
    env: { ...process.env, SKEIN_PORT: '0', SKEIN_DATA_DIR: dataDir, SKEIN_WORKDIR: workDir, SKEIN_AUTH: 'off' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no start in 300 s:\n${output}`)), 300_000);
      child.stdout.on('data', (c: Buffer) => {
        output += c.toString();
        const m = /running at (http:\/\/[\d.:]+)/.exec(output);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      });
      child.once('exit', () => reject(new Error(`server exited:\n${output}`)));
    });
    for (;;) {
      const res = await fetch(`${url}/healthz`).catch(() => undefined);
      if (res?.ok) break;
      await new Promise((r) => setTimeout(r, 5));
    }
    const startMs = performance.now() - started;
    await new Promise((r) => setTimeout(r, 1000));
    return { startMs, rssBytes: rssOf(child.pid!) };
  } finally {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
}

export async function startScaleRows(bench: string): Promise<{ rows: BenchRow[]; details: unknown }> {
  const big = tempDir('scale-big');
  const empty = tempDir('scale-empty');
  const workDir = tempDir('scale-work');
  writeSessionLogs(big, SESSIONS, EVENTS);
  const bytes = fs.readdirSync(path.join(big, 'sessions')).reduce((n, f) => n + fs.statSync(path.join(big, 'sessions', f)).size, 0);
  fs.rmSync(path.join(big, 'sessions', 'index.json'), { force: true });
  const rebuild = await startOnce(big, workDir);
  const runs: Record<'big' | 'empty', StartRun[]> = { big: [], empty: [] };
  for (let i = 0; i < RUNS; i++) {
    runs.empty.push(await startOnce(empty, workDir));
    runs.big.push(await startOnce(big, workDir));
  }
  const startBig = median(runs.big.map((r) => r.startMs));
  const startEmpty = median(runs.empty.map((r) => r.startMs));
  const rssBig = median(runs.big.map((r) => r.rssBytes));
  const rssEmpty = median(runs.empty.map((r) => r.rssBytes));
  const mb = (b: number) => b / 1024 / 1024;
  fs.rmSync(big, { recursive: true, force: true });
  return {
    rows: [
      {
        bench,
        measure: `start to /healthz, ${SESSIONS.toLocaleString('en-US')} sessions of ${EVENTS.toLocaleString('en-US')} events (${fmt(mb(bytes), 0)} MB of logs) vs an empty data folder (median of ${RUNS})`,
        value: `${fmt(startBig, 0)} ms vs ${fmt(startEmpty, 0)} ms (${fmt(startBig / startEmpty, 2)}x)`,
        goal: 'within 2x of empty',
        met: startBig <= 2 * startEmpty,
      },
      {
        bench,
        measure: `RSS after start, ${SESSIONS.toLocaleString('en-US')} sessions of ${EVENTS.toLocaleString('en-US')} events vs an empty data folder (median of ${RUNS})`,
        value: `${fmt(mb(rssBig), 0)} MB vs ${fmt(mb(rssEmpty), 0)} MB (+${fmt(mb(rssBig - rssEmpty), 1)} MB)`,
        goal: 'within +50 MB',
        met: rssBig - rssEmpty <= 50 * 1024 * 1024,
      },
      {
        bench,
        measure: `first start of that folder with no index (every log read once to build it)`,
        value: `${fmt(rebuild.startMs, 0)} ms, RSS ${fmt(mb(rebuild.rssBytes), 0)} MB`,
      },
    ],
    details: { rebuild, runs, logBytes: bytes },
  };
}
