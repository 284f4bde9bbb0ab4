// Vitest's globalSetup (vite.config.ts): the run's registry of what its tests
// start (run-registry.ts). At the start, what killed runs left is swept; at
// the end, anything of this run still there fails the run, named (and is
// stopped and removed). When vitest is interrupted (SIGINT, SIGTERM) it
// exits without a teardown: the 'exit' listener cleans up then, and what a
// worker started after it is swept by the next run.
import fs from 'node:fs';
import path from 'node:path';
import { cleanUp, findLeftovers, runDirName, sweepDeadRuns } from './leftovers.js';
import { registryRoot, startTime } from './run-registry.js';

export function setup(): () => void {
  const root = registryRoot();
  const swept = sweepDeadRuns(root);
  if (swept.length) console.warn(`Removed what an interrupted test run left behind:\n  ${swept.join('\n  ')}`);
  const runDir = path.join(root, runDirName(process.pid, startTime(process.pid)));
  fs.mkdirSync(runDir, { recursive: true });
  // Workers are forked after this: they inherit it.
  process.env.SKEIN_TEST_RUN_DIR = runDir;
  const onExit = () => {
    cleanUp(runDir);
    fs.rmSync(runDir, { recursive: true, force: true });
  };
  process.once('exit', onExit);
  return () => {
    process.off('exit', onExit);
    const left = findLeftovers(runDir);
    cleanUp(runDir);
    fs.rmSync(runDir, { recursive: true, force: true });
    if (!left.length) return;
    // Vitest prints an error thrown here but exits with 0: the exit code says it too.
    process.exitCode = 1;
    throw new Error(`The test run left ${left.length} resource(s) behind (now stopped and removed); a suite must stop what it starts:\n  ${left.join('\n  ')}`);
  };
}
