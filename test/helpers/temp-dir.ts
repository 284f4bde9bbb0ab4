// A fresh temporary folder. Its own module so a unit test that needs one does
// not import the whole server with test/helpers/server.ts (under Stryker every
// mutant's run imports a test's modules again: the server was most of it).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';
import { register } from './run-registry.js';

/**
 * Every folder made in this process, removed after each test file
 * (`removeTempDirs`, from setup.ts: Vitest ends its workers without an
 * 'exit' event) and when the process exits (a bench's big logs go with the
 * bench). Kept on globalThis: Vitest evaluates this module again for each
 * file. Each is recorded in the run's registry (run-registry.ts) too: a
 * folder a killed run left is removed by the next run, one still there at
 * the end fails the run. They once filled a disk: about 70 GB of sessions,
 * logs and repositories after a day of runs.
 */
const registry = globalThis as typeof globalThis & { skeinTempDirs?: Map<string, () => void> };

function made(): Map<string, () => void> {
  if (registry.skeinTempDirs) return registry.skeinTempDirs;
  const dirs = new Map<string, () => void>();
  registry.skeinTempDirs = dirs;
  // Synchronous on purpose: an 'exit' listener cannot wait.
  process.once('exit', removeTempDirs);
  return dirs;
}

/** Removes every folder `tempDir` made in this process so far. */
export function removeTempDirs(): void {
  const dirs = registry.skeinTempDirs;
  if (!dirs) return;
  for (const dir of [...dirs.keys()]) removeTempDir(dir);
}

/** Removes one folder `tempDir` made (and forgets it). */
export function removeTempDir(dir: string): void {
  try {
    fs.rmSync(dir, { recursive: true, force: true, maxRetries: 2 });
  } catch {
    return; // still recorded: the end of the run names it, and removes it
  }
  registry.skeinTempDirs?.get(dir)?.();
  registry.skeinTempDirs?.delete(dir);
}

export function tempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `skein-${prefix}-`));
  made().set(dir, register({ kind: 'folder', what: `temporary folder (${prefix})`, path: dir }));
  return dir;
}

/**
 * A folder outside the OS temporary folder (a sandboxed bash has a /tmp of
 * its own, which would hide a folder there for the wrong reason): under the
 * checkout's test-output/, recorded and removed as `tempDir`'s are.
 */
export function outsideTmpDir(prefix: string): string {
  const parent = path.resolve('test-output');
  fs.mkdirSync(parent, { recursive: true });
  const dir = fs.mkdtempSync(path.join(parent, `${prefix}-`));
  made().set(dir, register({ kind: 'folder', what: `folder outside /tmp (${prefix})`, path: dir }));
  return dir;
}

/**
 * For a test file: a maker of temporary folders (their real path, links
 * resolved), each removed after the test that made it.
 */
export function tempDirsPerTest(prefix: string): () => string {
  const perTest: string[] = [];
  afterEach(() => {
    for (const dir of perTest.splice(0)) removeTempDir(dir);
  });
  return () => {
    const dir = tempDir(prefix);
    perTest.push(dir);
    return fs.realpathSync(dir);
  };
}
