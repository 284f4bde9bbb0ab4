// The data-folder lock reached through a symbolic link: a second server
// started on the same folder under another name (a link to it, or the real
// path when the first took the link) is refused, and says which server holds
// it: the lock is taken on the folder, not on the name it was given.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EXIT } from '../../server/cli/exit-codes.js';
import { startChildServer, type ChildServer } from '../helpers/child-server.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/server.js';

const SLOW = { timeout: 300_000 };
const children: ChildServer[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) await c.kill('SIGKILL');
});

/** A data folder and a link to it from another folder. */
function folderAndLink(): { real: string; link: string } {
  const real = tempDir('lock-link-data');
  const link = path.join(tempDir('lock-link-names'), 'data-link');
  fs.symlinkSync(real, link);
  return { real, link };
}

describe('one server per data folder, whatever name the folder is given', () => {
  it.each([
    ['the first on the folder, the second through a link to it', 'real', 'link'],
    ['the first through the link, the second on the folder itself', 'link', 'real'],
  ] as const)('%s: the second is refused, naming the first', SLOW, async (_, firstName, secondName) => {
    const names = folderAndLink();
    const env = (dir: string) => ({ SKEIN_DATA_DIR: dir, SKEIN_WORKDIR: tempDir('lock-link-work'), SKEIN_MODEL: 'predictable' });
    const first = await startChildServer(env(names[firstName]));
    children.push(first);
    const second = await runCli([], env(names[secondName]));
    expect(second.code, second.stderr).toBe(EXIT.dataDirInUse);
    expect(second.stderr).toContain(`the data folder ${names[secondName]} is in use by a skein server (pid ${first.process.pid} on `);
    expect(second.stderr).toContain(first.url);
  });
});
