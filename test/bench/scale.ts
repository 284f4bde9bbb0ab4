// Scale on one machine: append throughput of a busy session with group commit
// vs one fdatasync per event (and the append-to-broadcast latency each gives),
// and the first screen of a 100,000-event session vs a 1,000-event one in
// Chromium (tail first); start time and RSS with 1,000 sessions of 1,000 events
// vs an empty data folder (lazy sessions, see start-scale.ts). Side by side in
// one run; medians.
import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_UI_DIR } from '../../server/server.js';
import { Session } from '../../server/agent/session.js';
import { EventLog, type SyncMode } from '../../server/store/event-log.js';
import { tempDir } from '../helpers/temp-dir.js';
import { fmt, median, type BenchRow, type BenchSection } from './types.js';
import { measureUi, type UiMeasurement } from './ui-measure.js';
import { startScaleRows } from './start-scale.js';
import { pgAppendRuns, type PgAppendRun } from './pg-append.js';
import { timeAppends, type AppendRun } from './time-appends.js';

const BENCH = 'scale';
/** A busy session: bursts of events in one tick (a tool loop: state, usage, agent, tool calls, results). */
const BURSTS = 400;
const BURST = 6;
const RUNS = 3;
/** A burst every 50 ms (120 events/s): below what one fdatasync per event carries here, so latency is not queueing. */
const PACE_MS = 50;
const PACED_BURSTS = 100;

/**
 * Appends BURSTS bursts of BURST events, one burst per tick: as fast as the log
 * takes them (throughput), or one burst every PACE_MS (latency at a load both
 * modes can carry). Times append -> subscriber.
 */
async function appendRun(sync: SyncMode, paceMs = 0): Promise<AppendRun> {
  const dir = tempDir('append-bench');
  const log = EventLog.create(path.join(dir, 's.jsonl'), { skein: 1, session: 's', createdAt: new Date().toISOString(), model: 'predictable' }, { sync });
  const session = new Session('s', log, 'predictable');
  const run = await timeAppends(session, paceMs ? PACED_BURSTS : BURSTS, BURST, paceMs);
  log.close();
  fs.rmSync(dir, { recursive: true, force: true });
  return run;
}

export const section: BenchSection = {
  name: BENCH,
  async run() {
    const rows: BenchRow[] = [];
    const appends: Record<SyncMode, AppendRun[]> = { group: [], each: [] };
    const paced: Record<SyncMode, AppendRun[]> = { group: [], each: [] };
    // Interleaved, so both modes see the same machine load.
    for (let i = 0; i < RUNS; i++) {
      for (const mode of ['each', 'group'] as const) {
        appends[mode].push(await appendRun(mode));
        paced[mode].push(await appendRun(mode, PACE_MS));
      }
    }
    const lat = (mode: SyncMode, pick: (r: AppendRun) => number) => median(paced[mode].map(pick));
    const med = (mode: SyncMode, pick: (r: AppendRun) => number) => median(appends[mode].map(pick));
    const ratio = med('group', (r) => r.eventsPerSecond) / med('each', (r) => r.eventsPerSecond);
    rows.push({
      bench: BENCH,
      measure: `append throughput, busy session (${BURST} events per tick): group commit / one fdatasync per event (median of ${RUNS})`,
      value: `${fmt(med('group', (r) => r.eventsPerSecond), 0)} / ${fmt(med('each', (r) => r.eventsPerSecond), 0)} events/s (${fmt(ratio, 1)}x)`,
    });
    rows.push({
      bench: BENCH,
      measure: `append-to-broadcast latency p50 / p99 at ${(1000 / PACE_MS) * BURST} events/s: group commit vs one fdatasync per event (median of ${RUNS})`,
      value: `group ${fmt(lat('group', (r) => r.latencyP50Ms), 2)} / ${fmt(lat('group', (r) => r.latencyP99Ms), 2)} ms; each ${fmt(lat('each', (r) => r.latencyP50Ms), 2)} / ${fmt(lat('each', (r) => r.latencyP99Ms), 2)} ms`,
    });

    const pgRuns = await pgAppendRuns(RUNS, PACED_BURSTS, BURST, PACE_MS);
    const pgMed = (runs: PgAppendRun[], pick: (r: PgAppendRun) => number) => median(runs.map(pick));
    rows.push({
      bench: BENCH,
      measure: `append-to-broadcast latency p50 / p99 at ${(1000 / PACE_MS) * BURST} events/s: PostgreSQL (local cluster, one INSERT transaction per tick) vs JSONL group commit (median of ${RUNS})`,
      value: `PostgreSQL ${fmt(pgMed(pgRuns.paced, (r) => r.latencyP50Ms), 2)} / ${fmt(pgMed(pgRuns.paced, (r) => r.latencyP99Ms), 2)} ms; JSONL ${fmt(lat('group', (r) => r.latencyP50Ms), 2)} / ${fmt(lat('group', (r) => r.latencyP99Ms), 2)} ms`,
    });
    rows.push({
      bench: BENCH,
      measure: `append throughput, busy session (${BURST} events per tick, ${PACED_BURSTS} ticks): PostgreSQL (median of ${RUNS})`,
      value: `${fmt(pgMed(pgRuns.fast, (r) => r.eventsPerSecond), 0)} events/s`,
    });

    const starts = await startScaleRows(BENCH);
    rows.push(...starts.rows);

    if (!fs.existsSync(`${DEFAULT_UI_DIR}/index.html`)) throw new Error(`the web UI is not built (${DEFAULT_UI_DIR}): run \`npm run build\` first`);
    const ui: Record<string, UiMeasurement[]> = { small: [], large: [] };
    for (let i = 0; i < RUNS; i++) {
      ui.small!.push(await measureUi({ events: 1_000 }));
      ui.large!.push(await measureUi({ events: 100_000 }));
    }
    const small = median(ui.small!.map((m) => m.firstScreenMs));
    const large = median(ui.large!.map((m) => m.firstScreenMs));
    rows.push({
      bench: BENCH,
      measure: `first screen, 100,000-event vs 1,000-event session, Chromium, tail first (median of ${RUNS})`,
      value: `${fmt(large, 0)} ms vs ${fmt(small, 0)} ms (${fmt(large / small, 2)}x; ${ui.large![0]!.loadedAtFirstScreen} events fetched for it)`,
      goal: '< 1,000 ms and within 2x',
      met: large < 1000 && large <= 2 * small,
    });
    rows.push({
      bench: BENCH,
      measure: `Home to the first event of the 100,000-event session (every earlier page fetched; median of ${RUNS})`,
      value: `${fmt(median(ui.large!.map((m) => m.scrollToTopMs)), 0)} ms`,
    });
    return { rows, details: { appends, paced, ui, starts: starts.details, postgres: pgRuns } };
  },
};
