// Two builds of the server side by side in one run, on the scale-sessions
// parts where the event loop was held: /healthz and the loop's delay while 6
// sessions work with 3,000 sessions in the folder (1,000 opened) and in an
// empty one; the loop held while one 150 MB log of tool turns is opened,
// exported to Markdown and forked. Runs alternate (before, after, before,
// after), so both see the same machine load.
//
//   git checkout <before> -- server shared && npm run build && mv dist dist-before && git checkout HEAD -- server shared && npm run build
//   npx tsx test/bench/scale-ab.ts dist-before
import fs from 'node:fs';
import os from 'node:os';
import { tempDir } from '../helpers/temp-dir.js';
import { writeSessionLog } from '../helpers/session-logs.js';
import { fmt, median } from './types.js';
import { startBenchServer, timeToFullList, useBuild } from './scale-server.js';
import { underLoad, type LoadRun } from './scale-sessions.js';
import { oneLog, type Held } from './scale-big-log.js';

const before = process.argv[2];
if (!before || !fs.existsSync(`${before}/server/main.js`)) throw new Error('usage: npx tsx test/bench/scale-ab.ts <folder of the other build (its server/main.js)>');
const ROUNDS = Number(process.env.SKEIN_BENCH_AB_ROUNDS ?? 2);
const builds = { before, after: 'dist' } as const;
type Build = keyof typeof builds;
const PARTS = new Set((process.env.SKEIN_BENCH_SCALE_PARTS ?? 'load,big').split(','));
const workDir = tempDir('scale-ab-work');
const loads: string[] = [];

if (PARTS.has('load')) {
  const busy = tempDir('scale-ab-busy');
  const empty = tempDir('scale-ab-empty');
  for (let i = 0; i < 3000; i++) writeSessionLog(busy, { id: `20250101-000000-b${String(i).padStart(5, '0')}`, events: 140, topic: `question ${'about the thing we discussed '.repeat(14)}` });
  useBuild('dist');
  const indexing = await startBenchServer(busy, workDir);
  await timeToFullList(indexing, 3000);
  await new Promise((r) => setTimeout(r, 2000));
  await indexing.stop();
  const runs: Record<string, LoadRun[]> = {};
  for (let round = 0; round < ROUNDS; round++) {
    for (const build of ['before', 'after'] as Build[]) {
      useBuild(builds[build]);
      (runs[`${build} busy`] ??= []).push(await underLoad(busy, workDir, 1000));
      (runs[`${build} empty`] ??= []).push(await underLoad(empty, workDir, 0));
      loads.push(fmt(os.loadavg()[0]!, 1));
    }
  }
  console.log(`\n/healthz p50 / p99 / max and event-loop delay p50 / p99 / max, 6 sessions working 20 s (medians of ${ROUNDS}; max of all):`);
  for (const [name, r] of Object.entries(runs)) {
    const m = (pick: (x: LoadRun) => number) => fmt(median(r.map(pick)), 1);
    const x = (pick: (x: LoadRun) => number) => fmt(Math.max(...r.map(pick)), 0);
    console.log(`| ${name} | ${m((v) => v.healthz.p50)} / ${m((v) => v.healthz.p99)} / ${x((v) => v.healthz.max)} ms | ${m((v) => v.loop.p50)} / ${m((v) => v.loop.p99)} / ${x((v) => v.loop.max)} ms | turns ${m((v) => v.turns)} |`);
  }
  fs.rmSync(busy, { recursive: true, force: true });
}

if (PARTS.has('big')) {
  const runs: Record<string, { open: Held; markdown: Held; fork: Held }[]> = {};
  for (let round = 0; round < ROUNDS; round++) {
    for (const build of ['before', 'after'] as Build[]) {
      useBuild(builds[build]);
      (runs[build] ??= []).push(await oneLog('turns', Number(process.env.SKEIN_BENCH_SCALE_BIG_MB ?? 150), workDir));
      loads.push(fmt(os.loadavg()[0]!, 1));
    }
  }
  console.log(`\nloop held (max of /metrics' event-loop delay; /healthz max) with one 150 MB log of tool turns, median of ${ROUNDS} (each run):`);
  for (const [name, r] of Object.entries(runs)) {
    const show = (k: 'open' | 'markdown' | 'fork') => `${fmt(median(r.map((x) => x[k].loopMaxMs)), 0)} ms (${r.map((x) => fmt(x[k].loopMaxMs, 0)).join(', ')}; /healthz max ${fmt(Math.max(...r.map((x) => x[k].healthzMaxMs)), 0)} ms)`;
    console.log(`| ${name} | open ${show('open')} | Markdown ${show('markdown')} | fork ${show('fork')} |`);
  }
}
console.log(`\n1-minute load average after each pair: ${loads.join(', ')} (${os.cpus().length} cores); ${new Date().toISOString()}`);
