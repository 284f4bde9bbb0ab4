// UI bench: a 5,000-event session opened in headless Chromium, three times
// (each run: a fresh data dir, server and browser; see measureUi() in
// test/bench/ui-measure.ts). Medians of the three.
import fs from 'node:fs';
import os from 'node:os';
import { DEFAULT_UI_DIR } from '../../server/server.js';
import { fmt, median, type BenchSection, type SectionResult } from './types.js';
import { measureUi, type UiMeasurement } from './ui-measure.js';

const BENCH = 'ui';
const RUNS = 3;
const EVENTS = 5000;
const FIRST_SCREEN_GOAL_MS = 1500;

export const section: BenchSection = {
  name: BENCH,
  async run(): Promise<SectionResult> {
    if (!fs.existsSync(`${DEFAULT_UI_DIR}/index.html`)) throw new Error(`the web UI is not built (${DEFAULT_UI_DIR}): run \`npm run build\` first`);
    const runs: UiMeasurement[] = [];
    for (let i = 0; i < RUNS; i++) runs.push(await measureUi({ events: EVENTS }));
    const med = (pick: (m: UiMeasurement) => number) => median(runs.map(pick));
    const all = (pick: (m: UiMeasurement) => number) => runs.map(pick).join(', ');
    const firstScreen = med((m) => m.firstScreenMs);
    const historyLoaded = med((m) => m.historyLoadedMs);
    const scrollToTop = med((m) => m.scrollToTopMs);
    const heap = med((m) => m.jsHeapUsedBytes);
    const mb = (bytes: number) => `${fmt(bytes / 2 ** 20, 1)} MB`;
    const events = runs[0]!.events;
    return {
      rows: [
        {
          bench: BENCH,
          measure: `time to first screen, ${events.toLocaleString('en-US')}-event session (median of ${RUNS})`,
          value: `${fmt(firstScreen, 0)} ms (runs: ${all((m) => m.firstScreenMs)} ms; history fetched and parsed at ${fmt(historyLoaded, 0)} ms)`,
          goal: `< ${FIRST_SCREEN_GOAL_MS.toLocaleString('en-US')} ms`,
          met: firstScreen < FIRST_SCREEN_GOAL_MS,
        },
        {
          bench: BENCH,
          measure: `time to scroll to the top (median of ${RUNS})`,
          value: `${fmt(scrollToTop, 1)} ms (runs: ${all((m) => m.scrollToTopMs)} ms)`,
        },
        {
          bench: BENCH,
          measure: `scroll sweep, one screen per frame: frame time p50 / p95 (median of ${RUNS})`,
          value: `${fmt(med((m) => m.sweep.p50), 1)} ms / ${fmt(med((m) => m.sweep.p95), 1)} ms`,
        },
        {
          bench: BENCH,
          measure: `JS heap after GC; DOM elements (median of ${RUNS})`,
          value: `${mb(heap)}; ${fmt(med((m) => m.domElements), 0)} elements, ${fmt(med((m) => m.renderedRows), 0)} of ${fmt(med((m) => m.rows), 0)} rows rendered`,
        },
      ],
      details: {
        runs,
        medians: {
          firstScreenMs: firstScreen,
          historyLoadedMs: historyLoaded,
          scrollToTopMs: scrollToTop,
          sweepP50Ms: med((m) => m.sweep.p50),
          sweepP95Ms: med((m) => m.sweep.p95),
          jsHeapUsedBytes: heap,
          domElements: med((m) => m.domElements),
        },
        note: 'each run writes the session, starts an in-process server and a fresh Chromium; measureUi() also writes its last run to test/bench/results/ui.json',
        cpus: os.cpus().length,
        loadAverage: os.loadavg(),
      },
    };
  },
};
