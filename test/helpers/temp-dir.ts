// A fresh temporary folder. Its own module so a unit test that needs one does
// not import the whole server with test/helpers/server.ts (under Stryker every
// mutant's run imports a test's modules again: the server was most of it).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export function tempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `skein-${prefix}-`));
}
