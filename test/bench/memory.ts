// Memory bench: resident memory of a skein server (a child process, started
// the way `npm start` runs it: node + tsx) with 20 sessions of 2,000 events
// each in its data dir, beside the same server with an empty data dir, both
// started together in the same run. RSS is VmRSS from /proc/<pid>/status,
// the median of five readings 300 ms apart once the server lists every
// session; then again after a full garbage collection, forced through the
// inspector (both servers run with --inspect on a free loopback port), with
// the V8 heap in use. Then every session's history is fetched once over REST
// (what opening each one in the UI does) and RSS is read again.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';
import { startChildServer, type ChildServer } from '../helpers/child-server.js';
import { api, tempDir } from '../helpers/server.js';
import { fmt, median, type BenchSection, type SectionResult } from './types.js';
import { writeLongSession } from './ui-measure.js';

const BENCH = 'memory';
const SESSIONS = 20;
const EVENTS = 2000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A field of /proc/<pid>/status in bytes (the file gives kB). */
function procStatus(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const text = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text)?.[1];
  if (kb === undefined) throw new Error(`no ${field} in /proc/${pid}/status`);
  return Number(kb) * 1024;
}

/** Median of five RSS readings, 300 ms apart, and the peak so far. */
async function rssOf(server: ChildServer): Promise<{ rss: number; readings: number[]; peak: number }> {
  const pid = server.process.pid!;
  const readings: number[] = [];
  for (let i = 0; i < 5; i++) {
    if (i) await sleep(300);
    readings.push(procStatus(pid, 'VmRSS'));
  }
  return { rss: median(readings), readings, peak: procStatus(pid, 'VmHWM') };
}

/** Forces a full GC in the child through its inspector; returns the V8 heap in use afterwards, bytes. */
async function collectGarbage(server: ChildServer): Promise<{ heapUsed: number; heapTotal: number }> {
  const url = /Debugger listening on (ws:\/\/\S+)/.exec(server.output())?.[1];
  if (!url) throw new Error(`the child server has no inspector:\n${server.output()}`);
  const ws = new WebSocket(url);
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  let next = 0;
  const pending = new Map<number, (result: unknown) => void>();
  ws.on('message', (data: Buffer) => {
    const msg = JSON.parse(data.toString()) as { id?: number; result?: unknown };
    if (msg.id !== undefined) pending.get(msg.id)?.(msg.result);
  });
  const send = <T>(method: string): Promise<T> =>
    new Promise((resolve) => {
      const id = ++next;
      pending.set(id, (result) => resolve(result as T));
      ws.send(JSON.stringify({ id, method }));
    });
  try {
    await send('HeapProfiler.enable');
    await send('HeapProfiler.collectGarbage');
    const usage = await send<{ usedSize: number; totalSize: number }>('Runtime.getHeapUsage');
    await send('HeapProfiler.disable');
    return { heapUsed: usage.usedSize, heapTotal: usage.totalSize };
  } finally {
    ws.close();
  }
}

async function untilListed(server: ChildServer, count: number): Promise<number> {
  const t0 = Date.now();
  for (;;) {
    const { body } = await api<{ sessions: unknown[] }>(server.url, '/api/sessions');
    if (body.sessions.length >= count) return Date.now() - t0;
    if (Date.now() - t0 > 30_000) throw new Error(`server lists ${body.sessions.length} of ${count} sessions`);
    await sleep(100);
  }
}

const mb = (bytes: number) => `${fmt(bytes / 2 ** 20, 1)} MB`;

export const section: BenchSection = {
  name: BENCH,
  async run(): Promise<SectionResult> {
    const loadedData = tempDir('memory-data');
    const emptyData = tempDir('memory-empty');
    const workDir = tempDir('memory-work');
    const servers: ChildServer[] = [];
    try {
      const ids: string[] = [];
      let events = 0;
      for (let i = 0; i < SESSIONS; i++) {
        const { id, events: written } = writeLongSession(loadedData, EVENTS, `bench-memory-${String(i + 1).padStart(2, '0')}`);
        ids.push(id);
        events += written.length;
      }
      const logDir = path.join(loadedData, 'sessions');
      const logBytes = fs.readdirSync(logDir).reduce((n, f) => n + fs.statSync(path.join(logDir, f)).size, 0);
      fs.mkdirSync(path.join(emptyData, 'sessions'), { recursive: true });

      const env = { SKEIN_WORKDIR: workDir, SKEIN_MODEL: 'predictable', NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --inspect=127.0.0.1:0`.trim() };
      const started = await Promise.allSettled([startChildServer({ ...env, SKEIN_DATA_DIR: loadedData }), startChildServer({ ...env, SKEIN_DATA_DIR: emptyData })]);
      for (const s of started) if (s.status === 'fulfilled') servers.push(s.value);
      const failed = started.find((s) => s.status === 'rejected');
      if (failed) throw (failed as PromiseRejectedResult).reason;
      const [loaded, empty] = servers as [ChildServer, ChildServer];

      const listedAfterMs = await untilListed(loaded, SESSIONS);
      await untilListed(empty, 0);
      await sleep(500); // let start-up garbage be collected
      const [loadedRss, emptyRss] = await Promise.all([rssOf(loaded), rssOf(empty)]);
      const [loadedHeap, emptyHeap] = await Promise.all([collectGarbage(loaded), collectGarbage(empty)]);
      const [loadedGc, emptyGc] = await Promise.all([rssOf(loaded), rssOf(empty)]);

      // Open every session's history once, as the UI does, and read again.
      let fetchedEvents = 0;
      for (const id of ids) {
        const { status, body } = await api<{ events: unknown[] }>(loaded.url, `/api/sessions/${id}/events?since=0`);
        if (status !== 200) throw new Error(`GET events of ${id}: ${status}`);
        fetchedEvents += body.events.length;
      }
      if (fetchedEvents !== events) throw new Error(`fetched ${fetchedEvents} of ${events} events`);
      await sleep(500);
      const afterFetch = await rssOf(loaded);

      const perSession = (loadedRss.rss - emptyRss.rss) / SESSIONS;
      const perSessionGc = (loadedGc.rss - emptyGc.rss) / SESSIONS;
      const perSessionHeap = (loadedHeap.heapUsed - emptyHeap.heapUsed) / SESSIONS;
      return {
        rows: [
          {
            bench: BENCH,
            measure: `server RSS, ${SESSIONS} sessions x ${EVENTS.toLocaleString('en-US')} events loaded / empty data dir`,
            value: `${mb(loadedRss.rss)} / ${mb(emptyRss.rss)} (+${mb(loadedRss.rss - emptyRss.rss)})`,
          },
          {
            bench: BENCH,
            measure: 'the same after a forced full GC: RSS loaded / empty; V8 heap in use loaded / empty',
            value: `${mb(loadedGc.rss)} / ${mb(emptyGc.rss)} (+${mb(loadedGc.rss - emptyGc.rss)}); heap ${mb(loadedHeap.heapUsed)} / ${mb(emptyHeap.heapUsed)}`,
          },
          {
            bench: BENCH,
            measure: 'cost per loaded session (2,000 events): RSS; RSS after GC; heap after GC',
            value: `${mb(perSession)}; ${mb(perSessionGc)}; ${mb(perSessionHeap)} (its log on disk: ${mb(logBytes / SESSIONS)})`,
          },
          {
            bench: BENCH,
            measure: `server RSS after every session's history was fetched once (GET /events)`,
            value: `${mb(afterFetch.rss)} (peak ${mb(afterFetch.peak)})`,
          },
        ],
        details: {
          sessions: SESSIONS,
          eventsPerSession: EVENTS,
          events,
          logBytes,
          generator: 'writeLongSession (test/bench/ui-measure.ts): turns with a bash call, its result (3 to 40 lines), markdown answers, usage, states, compactions',
          process: 'node --import tsx server/main.ts (as npm start runs it) with --inspect=127.0.0.1:0 in NODE_OPTIONS (for the forced GC); RSS of that process, not of the esbuild helper tsx may start',
          listedAfterMs,
          loaded: loadedRss,
          empty: emptyRss,
          afterGc: { loaded: { ...loadedGc, ...loadedHeap }, empty: { ...emptyGc, ...emptyHeap } },
          perSessionBytes: { rss: perSession, rssAfterGc: perSessionGc, heapAfterGc: perSessionHeap },
          afterFetchingEveryHistory: afterFetch,
          node: process.version,
          cpus: os.cpus().length,
          loadAverage: os.loadavg(),
        },
      };
    } finally {
      await Promise.all(servers.map((s) => s.kill('SIGTERM').catch(() => undefined)));
      for (const dir of [loadedData, emptyData, workDir]) fs.rmSync(dir, { recursive: true, force: true });
    }
  },
};
