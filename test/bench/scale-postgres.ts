// Many sessions on PostgreSQL (issue 26), the rows printed beside the JSONL
// ones of scale-sessions.ts (`npm run bench -- scale` runs both): first start
// (sessions as an older `skein migrate --from-jsonl` left them, no summaries:
// each list entry built from the session's events while the list is served)
// and second start (the list from the summaries table) over
// SKEIN_BENCH_PG_SESSIONS sessions (default 5,000) of 140 events: time to a
// full list, RSS, beside an empty database; search latency with 10 and with
// all sessions, and with one 150 MB session beside them; opening that session
// (time, and the event-loop delay max of /metrics while it is read); /healthz
// and event-loop delay while 6 sessions work with 3,000 sessions in the
// database, 1,000 of them opened. Compiled server (dist/), a local temporary
// cluster; medians.
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { startTempPostgres, type TempPostgres } from '../helpers/postgres.js';
import { tempDir } from '../helpers/temp-dir.js';
import { insertBigSession, insertSessions } from '../helpers/pg-sessions.js';
import { fmt, median, percentile, type BenchRow, type BenchSection } from './types.js';
import { cpuMsOf, getJson, healthzDuring, loopDelay, rssOf, startBenchServer, timeToFullList } from './scale-server.js';

const BENCH = 'scale-postgres';
const MANY = Number(process.env.SKEIN_BENCH_PG_SESSIONS ?? 5_000);
const EVENTS = 140;
const RUNS = Number(process.env.SKEIN_BENCH_PG_RUNS ?? 3);
const BUSY = Math.min(3_000, MANY);
const OPENED = Math.min(1_000, BUSY);
const WORKERS = 6;
const LOAD_MS = 20_000;
const QUERIES = 40;

const mb = (b: number) => b / 1024 / 1024;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function sql(url: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/** A database holding `count` sessions of EVENTS events as `skein migrate --from-jsonl` left them before it wrote summaries: rows and events, no summaries. */
export async function databaseWith(postgres: TempPostgres, count: number): Promise<string> {
  const url = await postgres.database();
  await insertSessions(url, count, EVENTS);
  return url;
}

/** The one huge session of the search and open rows: BIG_LOG_MB of typed text in 100 KB messages (as scale-sessions.ts writes it). */
export const BIG_SESSION = '20250101-000000-big000';
const BIG_LOG_MB = 150;

interface StartRun {
  fullListMs: number;
  rssBytes: number;
  /** The server's CPU time until the full list (on a loaded machine a fairer figure than wall time). */
  cpuMs: number;
}

/**
 * One data folder per database: a restart of the same server is the same
 * instance (another one would take over the leases of the previous one).
 */
const dataDirs = new Map<string, string>();
const workDir = tempDir('scale-pg-work');
function serverOf(url: string) {
  let dataDir = dataDirs.get(url);
  if (!dataDir) dataDirs.set(url, (dataDir = tempDir('scale-pg-data')));
  return startBenchServer(dataDir, workDir, { SKEIN_DATABASE_URL: url });
}

async function startRun(url: string, count: number): Promise<StartRun> {
  const server = await serverOf(url);
  try {
    const fullListMs = await timeToFullList(server, count);
    const cpuMs = cpuMsOf(server.child.pid!);
    await sleep(2000);
    return { fullListMs, rssBytes: rssOf(server.child.pid!), cpuMs };
  } finally {
    await server.stop();
  }
}

async function starts(rows: BenchRow[], postgres: TempPostgres, many: string): Promise<unknown> {
  const empty = await postgres.database();
  const runs: Record<'empty' | 'first' | 'second', StartRun[]> = { empty: [], first: [], second: [] };
  for (let i = 0; i < RUNS; i++) {
    runs.empty.push(await startRun(empty, 0));
    // As after an upgrade (or an import): no summaries, each built from its session's events.
    await sql(many, 'TRUNCATE skein_summaries');
    runs.first.push(await startRun(many, MANY));
    runs.second.push(await startRun(many, MANY));
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
      measure: `PostgreSQL: ${k} start over ${MANY.toLocaleString('en-US')} sessions of ${EVENTS} events${k === 'first' ? ' (no summaries: built from the events while the list is served)' : ' (summaries table)'}: time to a full list, RSS, vs an empty database (median of ${RUNS})`,
      value: `${fmt(t(k), 0)} ms vs ${fmt(t('empty'), 0)} ms (+${fmt(dt / 1000, 2)} s); server CPU ${fmt(c(k), 0)} vs ${fmt(c('empty'), 0)} ms (+${fmt((c(k) - c('empty')) / 1000, 2)} s); ${fmt(mb(m(k)), 0)} MB vs ${fmt(mb(m('empty')), 0)} MB (+${fmt(mb(dm), 1)} MB)`,
      goal: `< +${goalS} s and < +${goalMb} MB`,
      met: dt < goalS * 1000 && dm < goalMb * 1024 * 1024,
    });
  }
  return runs;
}

interface LoadRun {
  healthz: { p50: number; p99: number; max: number; count: number };
  loop: { p50: number; p99: number; max: number };
  turns: number;
}

/** 6 sessions take turns for LOAD_MS while /healthz is asked every 10 ms; `open` sessions opened (their events read) first. */
async function underLoad(url: string, open: number): Promise<LoadRun> {
  const server = await serverOf(url);
  try {
    const { sessions } = await getJson<{ sessions: { id: string }[] }>(`${server.url}/api/sessions`);
    // GET /events no longer loads a session on PostgreSQL (SQL pages): the snapshot does.
    for (const s of sessions.slice(0, open)) await getJson(`${server.url}/api/sessions/${s.id}`);
    const workers: string[] = [];
    for (let i = 0; i < WORKERS; i++) workers.push((await getJson<{ id: string }>(`${server.url}/api/sessions`, { body: {} })).id);
    await loopDelay(server.url);
    const end = performance.now() + LOAD_MS;
    let turns = 0;
    const texts = ['bash: ls -la; echo done', 'echo: a short answer', 'big: 1500', `echo: ${'typed text '.repeat(300)}`];
    const work = workers.map(async (id, w) => {
      for (let n = 0; performance.now() < end; n++) {
        await getJson(`${server.url}/api/sessions/${id}/messages`, { body: { text: texts[(n + w) % texts.length] } });
        for (;;) {
          await sleep(50);
          const s = await getJson<{ state: string }>(`${server.url}/api/sessions/${id}`);
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

async function loadPart(rows: BenchRow[], postgres: TempPostgres, busy: string): Promise<unknown> {
  const empty = await postgres.database();
  const loads: Record<'busy' | 'empty', LoadRun[]> = { busy: [], empty: [] };
  for (let i = 0; i < 2; i++) {
    loads.empty.push(await underLoad(empty, 0));
    loads.busy.push(await underLoad(busy, OPENED));
  }
  const h = (k: 'busy' | 'empty', pick: (r: LoadRun) => number) => median(loads[k].map(pick));
  const maxOf = (k: 'busy' | 'empty', pick: (r: LoadRun) => number) => Math.max(...loads[k].map(pick));
  rows.push({
    bench: BENCH,
    measure: `PostgreSQL: /healthz p50 / p99 / max while ${WORKERS} sessions work (${LOAD_MS / 1000} s): ${BUSY.toLocaleString('en-US')} sessions in the database, ${OPENED.toLocaleString('en-US')} opened vs an empty database (median of 2 runs; max of both)`,
    value: `${fmt(h('busy', (r) => r.healthz.p50), 1)} / ${fmt(h('busy', (r) => r.healthz.p99), 1)} / ${fmt(maxOf('busy', (r) => r.healthz.max), 0)} ms vs ${fmt(h('empty', (r) => r.healthz.p50), 1)} / ${fmt(h('empty', (r) => r.healthz.p99), 1)} / ${fmt(maxOf('empty', (r) => r.healthz.max), 0)} ms`,
    goal: 'p99 < 50 ms, no stall > 150 ms',
    met: h('busy', (r) => r.healthz.p99) < 50 && maxOf('busy', (r) => r.healthz.max) < 150,
  });
  rows.push({
    bench: BENCH,
    measure: `PostgreSQL: event-loop delay p50 / p99 / max (/metrics) in the same runs`,
    value: `${fmt(h('busy', (r) => r.loop.p50), 1)} / ${fmt(h('busy', (r) => r.loop.p99), 1)} / ${fmt(maxOf('busy', (r) => r.loop.max), 0)} ms vs ${fmt(h('empty', (r) => r.loop.p50), 1)} / ${fmt(h('empty', (r) => r.loop.p99), 1)} / ${fmt(maxOf('empty', (r) => r.loop.max), 0)} ms (turns: ${h('busy', (r) => r.turns)} vs ${h('empty', (r) => r.turns)})`,
    goal: 'max < 150 ms',
    met: maxOf('busy', (r) => r.loop.max) < 150,
  });
  return loads;
}

interface SearchRun {
  p50: number;
  p99: number;
  /** Opening BIG_SESSION (when asked): ms, and the event-loop delay max while it was read. */
  open?: { ms: number; loopMaxMs: number; rssMb: number };
}

async function searchRun(url: string, count: number, openBig = false): Promise<SearchRun> {
  const server = await serverOf(url);
  try {
    await timeToFullList(server, count);
    // As the JSONL rows: what follows a start (its garbage collected) settles first.
    await sleep(1500);
    const times: number[] = [];
    for (let i = 0; i < QUERIES; i++) {
      for (const q of ['zanzibar 3', `absent${i}word`]) {
        const t0 = performance.now();
        await getJson(`${server.url}/api/sessions?q=${encodeURIComponent(q)}`);
        times.push(performance.now() - t0);
      }
    }
    const run: SearchRun = { p50: percentile(times, 50), p99: percentile(times, 99) };
    if (openBig) {
      // A small session first: the tokenizer's one-time load (any first open) is not counted.
      await getJson(`${server.url}/api/sessions/20250101-000000-s00001`);
      await loopDelay(server.url);
      const t0 = performance.now();
      await getJson(`${server.url}/api/sessions/${BIG_SESSION}`);
      const ms = performance.now() - t0;
      run.open = { ms, loopMaxMs: (await loopDelay(server.url)).max, rssMb: mb(rssOf(server.child.pid!)) };
    }
    return run;
  } finally {
    await server.stop();
  }
}

export const section: BenchSection = {
  name: BENCH,
  async run() {
    const rows: BenchRow[] = [];
    const postgres = await startTempPostgres();
    try {
      const t0 = performance.now();
      const many = await databaseWith(postgres, MANY);
      const importMs = performance.now() - t0;
      const startRuns = await starts(rows, postgres, many);
      const few = await databaseWith(postgres, 10);
      await startRun(few, 10);
      const search10 = await searchRun(few, 10);
      const searchMany = await searchRun(many, MANY);
      rows.push({
        bench: BENCH,
        measure: `PostgreSQL: search (GET /api/sessions?q=, a word in one session and one in none, ${QUERIES} each) p50 / p99: 10 sessions; ${MANY.toLocaleString('en-US')}`,
        value: `${fmt(search10.p50, 1)} / ${fmt(search10.p99, 1)} ms; ${fmt(searchMany.p50, 1)} / ${fmt(searchMany.p99, 1)} ms`,
        goal: `p99 < 50 ms at ${MANY.toLocaleString('en-US')} sessions`,
        met: searchMany.p99 < 50,
      });
      const busy = BUSY === MANY ? many : await databaseWith(postgres, BUSY);
      if (busy !== many) await startRun(busy, BUSY);
      const loads = await loadPart(rows, postgres, busy);
      // One 150 MB session beside the others (its list entry built at the next start, read in pages).
      await insertBigSession(many, BIG_SESSION, BIG_LOG_MB);
      await startRun(many, MANY + 1);
      const searchBig = await searchRun(many, MANY + 1, true);
      rows.push({
        bench: BENCH,
        measure: `PostgreSQL: search p50 / p99 with ${MANY.toLocaleString('en-US')} sessions and one ${BIG_LOG_MB} MB session of typed text (${QUERIES} queries each, as above)`,
        value: `${fmt(searchBig.p50, 1)} / ${fmt(searchBig.p99, 1)} ms`,
        goal: 'p99 < 50 ms',
        met: searchBig.p99 < 50,
      });
      rows.push({
        bench: BENCH,
        measure: `PostgreSQL: opening the ${BIG_LOG_MB} MB session (GET /api/sessions/:id, its events read in pages of about 2 MB and parsed in slices): time; event-loop delay max (/metrics) meanwhile; RSS after`,
        value: `${fmt(searchBig.open!.ms, 0)} ms; loop max ${fmt(searchBig.open!.loopMaxMs, 0)} ms; ${fmt(searchBig.open!.rssMb, 0)} MB`,
        goal: 'loop max < 150 ms',
        met: searchBig.open!.loopMaxMs < 150,
      });
      rows.push({ bench: BENCH, measure: 'machine load (1-minute load average at the end, cores)', value: `${fmt(os.loadavg()[0]!, 1)} on ${os.cpus().length} cores` });
      return { rows, details: { importMs, starts: startRuns, search: { search10, searchMany, searchBig }, loads, loadavg: os.loadavg() } };
    } finally {
      postgres.stop();
    }
  },
};
