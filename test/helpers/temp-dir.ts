// A fresh temporary folder. Its own module so a unit test that needs one does
// not import the whole server with test/helpers/server.ts (under Stryker every
// mutant's run imports a test's modules again: the server was most of it).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';

/**
 * Every folder made in this process, removed after each test file
 * (`removeTempDirs`, from setup.ts: Vitest ends its workers without an
 * 'exit' event) and when the process exits (a bench's big logs go with the
 * bench). Kept on globalThis: Vitest evaluates this module again for each
 * file. A run that is killed leaves its folders, as every run did before;
 * they once filled a disk: about 70 GB of sessions, logs and repositories
 * after a day of runs.
 */
const registry = globalThis as typeof globalThis & { skeinTempDirs?: Set<string> };

function made(): Set<string> {
  if (registry.skeinTempDirs) return registry.skeinTempDirs;
  const dirs = new Set<string>();
  registry.skeinTempDirs = dirs;
  // Synchronous on purpose: an 'exit' listener cannot wait.
  process.once('exit', removeTempDirs);
  return dirs;
}

/** Removes every folder `tempDir` made in this process so far. */
export function removeTempDirs(): void {
  const dirs = registry.skeinTempDirs;
  if (!dirs) return;
  for (const dir of dirs) {
    try {
      fs.rmSync(dir, { recursive: true, force: true, maxRetries: 2 });
    } catch {
      // Left behind, as every folder was before: never a reason to fail the run.
    }
  }
  dirs.clear();
}

export function tempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `skein-${prefix}-`));
  made().add(dir);
  return dir;
}

/**
 * For a test file: a maker of temporary folders (their real path, links
 * resolved), each removed after the test that made it.
 */
export function tempDirsPerTest(prefix: string): () => string {
  const perTest: string[] = [];
  afterEach(() => {
    for (const dir of perTest.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    const dir = fs.realpathSync(tempDir(prefix));
    perTest.push(dir);
    return dir;
  };
}
