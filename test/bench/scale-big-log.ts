// One 150 MB session log on a compiled server (issue 26): how long the event
// loop was held (the max of /metrics' event-loop delay, and of /healthz asked
// every 10 ms) while it is opened, exported to Markdown and forked; beside it,
// the synchronous parse of the same file in this process (what an open held
// the loop for before the log was read in slices). Two logs: typed text (100
// KB messages, 1,500 events) and tool turns (2 KB outputs, about 330,000
// events: the per-event work of a session's start shows there).
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { EventLog } from '../../server/store/event-log.js';
import { tempDir } from '../helpers/temp-dir.js';
import { writeBigLog as writeTurnsLog } from '../helpers/big-log.js';
import { writeSessionLog } from '../helpers/session-logs.js';
import { fmt, type BenchRow } from './types.js';
import { getJson, loopDelay, startBenchServer, timeToFullList } from './scale-server.js';

export const BIG_ID = '20250101-000000-big000';

/** One session whose user typed `megabytes` of text (100 KB messages). */
export function writeTypedLog(dataDir: string, megabytes: number): string {
  const file = path.join(dataDir, 'sessions', `${BIG_ID}.jsonl`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const fd = fs.openSync(file, 'w');
  fs.writeSync(fd, JSON.stringify({ skein: 1, session: BIG_ID, createdAt: '2025-01-01T00:00:00.000Z', model: 'predictable' }) + '\n');
  const text = 'lorem ipsum dolor sit amet consectetur '.repeat(2600);
  let seq = 0;
  for (let bytes = 0; bytes < megabytes * 1024 * 1024; ) {
    const line = JSON.stringify({ seq: ++seq, ts: new Date(Date.parse('2025-01-02T00:00:00Z') + seq * 1000).toISOString(), kind: 'user', text: `${text} part ${seq}` }) + '\n';
    fs.writeSync(fd, line);
    bytes += line.length;
  }
  fs.closeSync(fd);
  return file;
}

export interface Held {
  ms: number;
  loopMaxMs: number;
  healthzMaxMs: number;
}

/** Runs `work` while /healthz is asked every 10 ms; then the loop's max since the scrape before. */
async function held(url: string, work: () => Promise<unknown>): Promise<Held> {
  await loopDelay(url); // starts the window
  let done = false;
  let healthzMaxMs = 0;
  const probe = (async () => {
    while (!done) {
      const t0 = performance.now();
      await fetch(`${url}/healthz`).then((r) => r.text());
      healthzMaxMs = Math.max(healthzMaxMs, performance.now() - t0);
      await new Promise((r) => setTimeout(r, 10));
    }
  })();
  const t0 = performance.now();
  await work();
  const ms = performance.now() - t0;
  done = true;
  await probe;
  return { ms, loopMaxMs: (await loopDelay(url)).max, healthzMaxMs };
}

export async function oneLog(kind: 'typed' | 'turns', megabytes: number, workDir: string): Promise<{ syncParseMs: number; open: Held; markdown: Held; fork: Held; events: number }> {
  const dir = tempDir(`scale-big-${kind}`);
  const file = kind === 'typed' ? writeTypedLog(dir, megabytes) : writeTurnsLog(dir, BIG_ID, megabytes).file;
  // A small session opened first: the tokenizer (loaded once per process, with the first session) is not counted.
  writeSessionLog(dir, { id: '20250101-000000-small0', events: 12 });
  const copy = path.join(tempDir('scale-big-copy'), 'copy.jsonl');
  fs.copyFileSync(file, copy);
  const t0 = performance.now();
  EventLog.open(copy).log.close();
  const syncParseMs = performance.now() - t0;
  fs.rmSync(path.dirname(copy), { recursive: true, force: true });
  const server = await startBenchServer(dir, workDir);
  let said = '';
  let step = 'start';
  server.child.stderr!.on('data', (c: Buffer) => (said = (said + c.toString()).slice(-4000)));
  server.child.once('exit', (code, signal) => (said += `\n[server exited: ${code ?? signal}]`));
  try {
    await timeToFullList(server, 2);
    await new Promise((r) => setTimeout(r, 1500)); // the index write after the first scan
    await getJson(`${server.url}/api/sessions/20250101-000000-small0`);
    let lastSeq = 0;
    step = 'open';
    const open = await held(server.url, async () => {
      lastSeq = (await getJson<{ lastSeq: number }>(`${server.url}/api/sessions/${BIG_ID}`)).lastSeq;
    });
    step = 'markdown';
    const markdown = await held(server.url, async () => {
      const res = await fetch(`${server.url}/api/sessions/${BIG_ID}/export?format=md`);
      if (!res.ok) throw new Error(`export: ${res.status}`);
      // Read as it comes (a client saving the file), not held whole.
      for await (const _ of res.body!) void _;
    });
    step = 'fork';
    const fork = await held(server.url, () => getJson(`${server.url}/api/sessions/${BIG_ID}/fork`, { body: { seq: lastSeq } }));
    return { syncParseMs, open, markdown, fork, events: lastSeq };
  } catch (err) {
    throw new Error(`${kind} log, ${step}: ${err instanceof Error ? `${err.message} (${String((err as { cause?: unknown }).cause)})` : String(err)}; the server said: ${said}`);
  } finally {
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export async function bigLogPart(rows: BenchRow[], bench: string, megabytes: number, workDir: string): Promise<unknown> {
  const results: Record<string, unknown> = {};
  for (const kind of ['typed', 'turns'] as const) {
    const r = await oneLog(kind, megabytes, workDir);
    results[kind] = r;
    const show = (h: Held) => `${fmt(h.loopMaxMs, 0)} ms (/healthz max ${fmt(h.healthzMaxMs, 0)} ms; took ${fmt(h.ms / 1000, 1)} s)`;
    const worst = Math.max(r.open.loopMaxMs, r.markdown.loopMaxMs, r.fork.loopMaxMs);
    rows.push({
      bench,
      measure: `event loop held (max of /metrics' event-loop delay) with one ${megabytes} MB log of ${kind === 'typed' ? 'typed text' : 'tool turns'} (${r.events.toLocaleString('en-US')} events): opening it; exporting it to Markdown; forking it. Before: the synchronous parse alone`,
      value: `open ${show(r.open)}; Markdown ${show(r.markdown)}; fork ${show(r.fork)}; before: ${fmt(r.syncParseMs, 0)} ms (${fmt(r.syncParseMs / Math.max(1, r.open.loopMaxMs), 1)}x the open's)`,
      goal: 'no stall > 150 ms (50 ms aimed)',
      met: worst < 150,
    });
  }
  return results;
}
