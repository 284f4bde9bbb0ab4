// A hang is a failure. vitest's testTimeout is a timer on the test's own
// event loop: a test that spins synchronously (a loop whose value never
// shrinks) blocks that loop and the timeout never fires, so the run would
// hang for ever. This watchdog runs on its own thread: when the test
// process's event loop has not turned for SKEIN_TEST_BLOCKED_MS (default 10
// minutes: the longest synchronous step a test takes, `npm pack`, is bounded
// at 9), or one test file has run for SKEIN_TEST_FILE_MS (default 20
// minutes), it says so on stderr and kills the process, and vitest reports
// the file as failed. Loaded by vite.config.ts's setupFiles; only in a
// process of its own (vitest's forks pool), never inside a worker thread,
// whose process it would take down with every other file.
import fs from 'node:fs';
import { isMainThread, Worker } from 'node:worker_threads';

const ARMED = Symbol.for('skein.hangWatchdog');

// import(), not require: eval'd worker code is ESM or CommonJS depending on where it is started.
const WATCHER = `
(async () => {
const { workerData } = await import('node:worker_threads');
const fs = await import('node:fs');
const { beat, blockedMs, fileMs, startedAt } = workerData;
const sleeper = new Int32Array(new SharedArrayBuffer(4));
for (;;) {
  Atomics.wait(sleeper, 0, 0, Math.min(1000, blockedMs));
  const now = Date.now();
  const last = Number(Atomics.load(beat, 0)) * 1000 + Number(Atomics.load(beat, 1));
  const file = Atomics.load(beat, 2) ? Number(Atomics.load(beat, 2)) * 1000 : startedAt;
  const why = now - last > blockedMs
    ? 'its event loop has not turned for ' + Math.round((now - last) / 1000) + ' s: a synchronous spin (a loop that never ends), which no test timeout can stop'
    : now - file > fileMs
      ? 'one test file has run for ' + Math.round((now - file) / 1000) + ' s, more than the ' + Math.round(fileMs / 1000) + ' s a file may take'
      : undefined;
  if (why) {
    fs.writeSync(2, '\\n[hang watchdog] killing test process ' + process.pid + ': ' + why + '. The file fails instead of hanging the run.\\n');
    process.kill(process.pid, 'SIGKILL');
  }
}
})();
`;

function limit(name: string, fallback: number): number {
  const value = Number(process.env[name]);
  return Number.isFinite(value) && value > 0 ? value : fallback;
}

/** Starts the watchdog for this process (once), and restarts the per-file clock. */
export function armHangWatchdog(): void {
  if (!isMainThread) return;
  const g = globalThis as unknown as Record<symbol, Int32Array | undefined>;
  // Seconds and milliseconds apart: an Int32 holds seconds since 1970 until 2038, and milliseconds since the last second.
  const stamp = (beat: Int32Array, at: number, index: number) => {
    if (index === 0) {
      Atomics.store(beat, 0, Math.floor(at / 1000));
      Atomics.store(beat, 1, at % 1000);
    } else Atomics.store(beat, index, Math.floor(at / 1000));
  };
  let beat = g[ARMED];
  if (!beat) {
    beat = new Int32Array(new SharedArrayBuffer(12));
    g[ARMED] = beat;
    stamp(beat, Date.now(), 0);
    const worker = new Worker(WATCHER, { eval: true, workerData: { beat, blockedMs: limit('SKEIN_TEST_BLOCKED_MS', 600_000), fileMs: limit('SKEIN_TEST_FILE_MS', 1_200_000), startedAt: Date.now() } });
    worker.unref();
    worker.on('error', (err) => fs.writeSync(2, `[hang watchdog] stopped: ${String(err)}\n`));
    const heart = setInterval(() => stamp(beat!, Date.now(), 0), 250);
    heart.unref();
  }
  // A new test file (a reused process runs the setup files again for each).
  stamp(beat, Date.now(), 2);
}
