// Many sessions (issue 26), beside an empty data folder, in one run: first
// start (no index: every log scanned) and second start over 5,000 sessions of
// 140 events (time to a full list, RSS); /healthz latency and event-loop
// delay while 6 sessions work with 3,000 sessions in the folder (typed text a
// few KB each), 1,000 of them opened; search latency with 10 and 5,000
// sessions and with one 150 MB log. Compiled server (dist/); medians.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { tempDir } from '../helpers/temp-dir.js';
import { writeSessionLog, writeSessionLogs } from '../helpers/session-logs.js';
import { fmt, median, percentile, type BenchRow, type BenchSection } from './types.js';
import { bigLogPart, writeTypedLog } from './scale-big-log.js';
import { cpuMsOf, getJson, healthzDuring, loopDelay, rssOf, startBenchServer, timeToFullList, type BenchServer } from './scale-server.js';

const BENCH = 'scale-sessions';
/** SKEIN_BENCH_SCALE_SESSIONS / SKEIN_BENCH_SCALE_BIG_MB: smaller runs while developing (5,000 and 150 by default). */
const MANY = Number(process.env.SKEIN_BENCH_SCALE_SESSIONS ?? 5_000);
const EVENTS = 140;
const RUNS = 3;
const BUSY_FOLDER = 3_000;
const OPENED = 1_000;
const WORKERS = 6;
const LOAD_MS = 20_000;
const QUERIES = 40;
const BIG_LOG_MB = Number(process.env.SKEIN_BENCH_SCALE_BIG_MB ?? 150);
/** SKEIN_BENCH_SCALE_PARTS=starts,search,load,big: only those parts (all by default). */
const PARTS = new Set((process.env.SKEIN_BENCH_SCALE_PARTS ?? 'starts,search,load,big').split(','));

const mb = (b: number) => b / 1024 / 1024;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const removeIndex = (dataDir: string) => {
  for (const f of fs.readdirSync(path.join(dataDir, 'sessions'))) if (f.startsWith('index.')) fs.rmSync(path.join(dataDir, 'sessions', f), { force: true });
};

interface StartRun {
  fullListMs: number;
  /** CPU the server used up to the full list. */
  cpuMs: number;
  rssBytes: number;
}

async function startRun(dataDir: string, workDir: string, count: number): Promise<StartRun> {
  const server = await startBenchServer(dataDir, workDir);
  try {
    const fullListMs = await timeToFullList(server, count);
    const cpuMs = cpuMsOf(server.child.pid!);
    // The index write that follows a scan is done within about a second; RSS after it settles.
    await sleep(2000);
    return { fullListMs, cpuMs, rssBytes: rssOf(server.child.pid!) };
  } finally {
    await server.stop();
  }
}

async function starts(rows: BenchRow[], many: string, empty: string, workDir: string): Promise<unknown> {
  const runs: Record<'empty' | 'first' | 'second', StartRun[]> = { empty: [], first: [], second: [] };
  for (let i = 0; i < RUNS; i++) {
    runs.empty.push(await startRun(empty, workDir, 0));
    removeIndex(many);
    runs.first.push(await startRun(many, workDir, MANY));
    runs.second.push(await startRun(many, workDir, MANY));
  }
  const t = (k: keyof typeof runs) => median(runs[k].map((r) => r.fullListMs));
  const m = (k: keyof typeof runs) => median(runs[k].map((r) => r.rssBytes));
  const c = (k: keyof typeof runs) => median(runs[k].map((r) => r.cpuMs));
  for (const k of ['first', 'second'] as const) {
    const dt = t(k) - t('empty');
    const dm = m(k) - m('empty');
    const [goalS, goalMb] = k === 'first' ? [5, 40] : [1, 40];
    rows.push({
      bench: BENCH,
      measure: `${k} start over ${MANY.toLocaleString('en-US')} sessions of ${EVENTS} events${k === 'first' ? ' (no index: every log scanned)' : ' (index)'}: time to a full list, RSS, vs an empty folder (median of ${RUNS})`,
      value: `${fmt(t(k), 0)} ms vs ${fmt(t('empty'), 0)} ms (+${fmt(dt / 1000, 2)} s; server CPU ${fmt(c(k), 0)} ms vs ${fmt(c('empty'), 0)} ms, +${fmt((c(k) - c('empty')) / 1000, 2)} s); ${fmt(mb(m(k)), 0)} MB vs ${fmt(mb(m('empty')), 0)} MB (+${fmt(mb(dm), 1)} MB)`,
      goal: `< +${goalS} s and < +${goalMb} MB`,
      met: dt < goalS * 1000 && dm < goalMb * 1024 * 1024,
    });
  }
  return runs;
}

export interface LoadRun {
  healthz: { p50: number; p99: number; max: number; count: number };
  loop: { p50: number; p99: number; max: number };
  turns: number;
}

/** 6 sessions take turns for LOAD_MS while /healthz is asked every 10 ms; with `open` sessions loaded first. */
export async function underLoad(dataDir: string, workDir: string, open: number): Promise<LoadRun> {
  const server = await startBenchServer(dataDir, workDir);
  try {
    const { sessions } = await getJson<{ sessions: { id: string }[] }>(`${server.url}/api/sessions`);
    for (const s of sessions.slice(0, open)) await getJson(`${server.url}/api/sessions/${s.id}/events?limit=1`);
    const workers: string[] = [];
    for (let i = 0; i < WORKERS; i++) workers.push((await getJson<{ id: string }>(`${server.url}/api/sessions`, { body: {} })).id);
    await loopDelay(server.url); // starts the window
    const end = performance.now() + LOAD_MS;
    let turns = 0;
    const texts = ['bash: ls -la; echo done', 'echo: a short answer', 'big: 1500', `echo: ${'typed text '.repeat(300)}`];
    const work = workers.map(async (id, w) => {
      for (let n = 0; performance.now() < end; n++) {
        await getJson(`${server.url}/api/sessions/${id}/messages`, { body: { text: texts[(n + w) % texts.length] } });
        for (;;) {
          await sleep(50);
          const s = await getJson<{ state: string; lastSeq: number }>(`${server.url}/api/sessions/${id}`);
          if (s.state === 'WaitingForUserInput') break;
        }
        turns++;
      }
    });
    return { ...(await healthzDuring(server.url, end, work)), turns };
  } finally {
    await server.stop();
  }
}

/** Search latency (ms) of a query that matches one session and one that matches none, QUERIES each. */
async function searchLatency(server: BenchServer, present: string): Promise<{ p50: number; p99: number }> {
  const times: number[] = [];
  for (let i = 0; i < QUERIES; i++) {
    for (const q of [present, `absent${i}word`]) {
      const t0 = performance.now();
      await getJson(`${server.url}/api/sessions?q=${encodeURIComponent(q)}`);
      times.push(performance.now() - t0);
    }
  }
  return { p50: percentile(times, 50), p99: percentile(times, 99) };
}

async function searchRun(dataDir: string, workDir: string, count: number): Promise<{ p50: number; p99: number }> {
  const server = await startBenchServer(dataDir, workDir);
  try {
    await timeToFullList(server, count);
    await sleep(1500);
    return await searchLatency(server, 'zanzibar 3');
  } finally {
    await server.stop();
  }
}

export const section: BenchSection = {
  name: BENCH,
  async run() {
    const rows: BenchRow[] = [];
    const workDir = tempDir('scale-s-work');
    const empty = tempDir('scale-s-empty');
    const many = tempDir('scale-s-many');
    writeSessionLogs(many, MANY, EVENTS);
    const startRuns = PARTS.has('starts') ? await starts(rows, many, empty, workDir) : undefined;
    let search: unknown;
    let loads: unknown;
    if (PARTS.has('search')) search = await searchPart(rows, many, workDir);
    if (PARTS.has('load')) loads = await loadPart(rows, empty, workDir);
    const big = PARTS.has('big') ? await bigLogPart(rows, BENCH, BIG_LOG_MB, workDir) : undefined;
    fs.rmSync(many, { recursive: true, force: true });
    rows.push({ bench: BENCH, measure: 'machine load (1-minute load average at the end, cores)', value: `${fmt(os.loadavg()[0]!, 1)} on ${os.cpus().length} cores` });
    return { rows, details: { starts: startRuns, search, loads, big, loadavg: os.loadavg() } };
  },
};

async function searchPart(rows: BenchRow[], many: string, workDir: string): Promise<unknown> {

    // Search: 10 sessions, 5,000, and 5,000 plus one 150 MB log.
    const few = tempDir('scale-s-few');
    writeSessionLogs(few, 10, EVENTS);
    const search10 = await searchRun(few, workDir, 10);
    const search5k = await searchRun(many, workDir, MANY);
    writeTypedLog(many, BIG_LOG_MB);
    const searchBig = await searchRun(many, workDir, MANY + 1);
    rows.push({
      bench: BENCH,
      measure: `search (GET /api/sessions?q=, a word in one session and one in none, ${QUERIES} each) p50 / p99: 10 sessions; ${MANY.toLocaleString('en-US')}; ${MANY.toLocaleString('en-US')} and one ${BIG_LOG_MB} MB log of typed text`,
      value: `${fmt(search10.p50, 1)} / ${fmt(search10.p99, 1)} ms; ${fmt(search5k.p50, 1)} / ${fmt(search5k.p99, 1)} ms; ${fmt(searchBig.p50, 1)} / ${fmt(searchBig.p99, 1)} ms`,
      goal: 'p99 < 50 ms at 5,000 sessions',
      met: search5k.p99 < 50 && searchBig.p99 < 50,
    });
    fs.rmSync(few, { recursive: true, force: true });
    return { search10, search5k, searchBig };
}

async function loadPart(rows: BenchRow[], empty: string, workDir: string): Promise<unknown> {

    // Load: 3,000 sessions whose users typed a few KB each (index entries near the 8 KB cap), 1,000 opened.
    const busy = tempDir('scale-s-busy');
    for (let i = 0; i < BUSY_FOLDER; i++) writeSessionLog(busy, { id: `20250101-000000-b${String(i).padStart(5, '0')}`, events: EVENTS, topic: `question ${'about the thing we discussed '.repeat(14)}` });
    const indexing = await startBenchServer(busy, workDir);
    await timeToFullList(indexing, BUSY_FOLDER);
    await sleep(2000);
    await indexing.stop();
    const loads: Record<'busy' | 'empty', LoadRun[]> = { busy: [], empty: [] };
    for (let i = 0; i < 2; i++) {
      loads.empty.push(await underLoad(empty, workDir, 0));
      loads.busy.push(await underLoad(busy, workDir, OPENED));
    }
    const h = (k: 'busy' | 'empty', pick: (r: LoadRun) => number) => median(loads[k].map(pick));
    const maxOf = (k: 'busy' | 'empty', pick: (r: LoadRun) => number) => Math.max(...loads[k].map(pick));
    rows.push({
      bench: BENCH,
      measure: `/healthz p50 / p99 / max while ${WORKERS} sessions work (${LOAD_MS / 1000} s): ${BUSY_FOLDER.toLocaleString('en-US')} sessions in the folder, ${OPENED.toLocaleString('en-US')} opened vs an empty folder (median of 2 runs; max of both)`,
      value: `${fmt(h('busy', (r) => r.healthz.p50), 1)} / ${fmt(h('busy', (r) => r.healthz.p99), 1)} / ${fmt(maxOf('busy', (r) => r.healthz.max), 0)} ms vs ${fmt(h('empty', (r) => r.healthz.p50), 1)} / ${fmt(h('empty', (r) => r.healthz.p99), 1)} / ${fmt(maxOf('empty', (r) => r.healthz.max), 0)} ms`,
      goal: 'p99 < 50 ms, no stall > 150 ms',
      met: h('busy', (r) => r.healthz.p99) < 50 && maxOf('busy', (r) => r.healthz.max) < 150,
    });
    rows.push({
      bench: BENCH,
      measure: `event-loop delay p50 / p99 / max (/metrics) in the same runs: ${BUSY_FOLDER.toLocaleString('en-US')} sessions vs an empty folder`,
      value: `${fmt(h('busy', (r) => r.loop.p50), 1)} / ${fmt(h('busy', (r) => r.loop.p99), 1)} / ${fmt(maxOf('busy', (r) => r.loop.max), 0)} ms vs ${fmt(h('empty', (r) => r.loop.p50), 1)} / ${fmt(h('empty', (r) => r.loop.p99), 1)} / ${fmt(maxOf('empty', (r) => r.loop.max), 0)} ms (turns: ${h('busy', (r) => r.turns)} vs ${h('empty', (r) => r.turns)})`,
      goal: 'max < 150 ms',
      met: maxOf('busy', (r) => r.loop.max) < 150,
    });
    fs.rmSync(busy, { recursive: true, force: true });
    return loads;
}
