// A replacing write goes through a temporary file beside the target (created
// with O_EXCL). Its name must not be guessable from the process and the time:
// a temporary left by a write that died (or planted by a hostile repository)
// under the name the next write would pick made that write fail.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Door } from '../../server/host/door.js';
import { tempDir } from '../helpers/temp-dir.js';

describe("the door's temporary names", () => {
  it('a leftover temporary under the name the old scheme (pid and milliseconds) would pick does not block a write', () => {
    const root = tempDir('door-temp');
    const door = new Door(root);
    // Every name the pid-and-time scheme could pick for the next few hundred milliseconds is taken.
    const now = Date.now();
    for (let ms = now - 5; ms < now + 500; ms++) fs.writeFileSync(path.join(root, `.a.txt.skein-${process.pid}-${ms.toString(36)}`), 'left over');
    for (let i = 0; i < 50; i++) door.writeFile('a.txt', `write ${i}`);
    expect(fs.readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('write 49');
    // Nothing of its own left beside the file: only the planted leftovers and the file.
    const own = fs.readdirSync(root).filter((n) => n.startsWith('.a.txt.skein-') && !fs.readFileSync(path.join(root, n), 'utf8').startsWith('left over'));
    expect(own).toEqual([]);
  });
});
