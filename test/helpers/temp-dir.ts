// A fresh temporary folder. Its own module so a unit test that needs one does
// not import the whole server with test/helpers/server.ts (under Stryker every
// mutant's run imports a test's modules again: the server was most of it).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';

export function tempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `skein-${prefix}-`));
}

/**
 * For a test file: a maker of temporary folders (their real path, links
 * resolved), each removed after the test that made it.
 */
export function tempDirsPerTest(prefix: string): () => string {
  const made: string[] = [];
  afterEach(() => {
    for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    const dir = fs.realpathSync(tempDir(prefix));
    made.push(dir);
    return dir;
  };
}
