// One server per data folder, decided in this process (no server started):
// a second lock on the folder is refused however the folder is named (a
// symbolic link to it, a path with `..` or a trailing slash), naming who
// holds it; released, the folder can be taken again; what the lock file
// says of its holder, and the warning when it names another machine. Real
// processes: test/cli/data-dir-lock.test.ts; the file lock, the key-file race and
// the refusals, with the machine's answers passed in: data-dir-lock-system.test.ts.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DataDirLockedError, describeHolder, heldBy, LOCK_FILE, lockDataDir, readHolder, type DataDirLock } from '../../server/lock/data-dir-lock.js';
import { DataDirUnusableError, prepareDataDir } from '../../server/lock/data-dir-check.js';
import { tempDir } from '../helpers/temp-dir.js';

const held: DataDirLock[] = [];
afterEach(async () => {
  for (const lock of held.splice(0)) await lock.release();
});

async function lock(dir: string, options?: { embedded?: boolean }): Promise<DataDirLock> {
  const taken = await lockDataDir(dir, options);
  held.push(taken);
  return taken;
}

async function refusal(dir: string): Promise<DataDirLockedError> {
  const err = await lockDataDir(dir).then(
    (l) => (held.push(l), undefined),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DataDirLockedError);
  return err as DataDirLockedError;
}

describe('data folder lock', () => {
  it('refuses a second lock on the same folder, by any name of it, naming the holder', async () => {
    const dir = tempDir('lock-unit');
    const first = await lock(dir);
    first.serving('http://127.0.0.1:7000');
    const link = path.join(tempDir('lock-unit-link'), 'data');
    fs.symlinkSync(dir, link);
    for (const name of [dir, `${dir}/`, path.join(dir, 'x', '..'), link, `${link}/`]) {
      const err = await refusal(name);
      expect(err.holder).toMatchObject({ pid: process.pid, hostname: os.hostname(), url: 'http://127.0.0.1:7000' });
      expect(err.message).toContain(`is in use by a skein server (pid ${process.pid} on ${os.hostname()}, http://127.0.0.1:7000, since `);
    }
    expect(await heldBy(dir)).toEqual({ holder: expect.objectContaining({ pid: process.pid }) });
    expect(await heldBy(link)).toBeDefined();
  });

  it('a released folder can be taken again; its lock file is gone', async () => {
    const dir = tempDir('lock-unit');
    const first = await lockDataDir(dir);
    expect(first.warning).toBeUndefined();
    expect(readHolder(dir)).toMatchObject({ pid: process.pid, hostname: os.hostname() });
    expect(readHolder(dir)).not.toHaveProperty('url');
    expect(await heldBy(dir)).toEqual({ holder: expect.objectContaining({ pid: process.pid }) });
    await first.release();
    await first.release();
    first.serving('http://late');
    expect(fs.existsSync(path.join(dir, LOCK_FILE))).toBe(false);
    expect(await heldBy(dir)).toBeUndefined();
    const second = await lock(dir, { embedded: true });
    expect(readHolder(dir)).toMatchObject({ pid: process.pid, embedded: true });
    expect((await refusal(dir)).message).toContain('in use by a `skein` command with its own server');
    await second.release();
  });

  it("a release leaves another holder's lock file alone", async () => {
    const dir = tempDir('lock-unit');
    const first = await lockDataDir(dir);
    const other = { pid: process.pid, hostname: os.hostname(), started: '2000-01-01T00:00:00.000Z' };
    fs.writeFileSync(path.join(dir, LOCK_FILE), JSON.stringify(other));
    await first.release();
    expect(readHolder(dir)).toEqual(other);
  });

  it('a folder no server held is not held; a lock file left by a crash does not hold it', async () => {
    expect(await heldBy(tempDir('lock-unit'))).toBeUndefined();
    expect(await heldBy(path.join(tempDir('lock-unit'), 'missing'))).toBeUndefined();
    const dir = tempDir('lock-unit');
    fs.writeFileSync(path.join(dir, LOCK_FILE), JSON.stringify({ pid: 999_999_999, hostname: os.hostname(), started: 'then' }));
    expect(await heldBy(dir)).toBeUndefined();
    await lock(dir);
    expect(readHolder(dir)?.pid).toBe(process.pid);
  });

  it('warns when the last holder was on another machine (the kernel lock cannot see it)', async () => {
    const dir = tempDir('lock-unit');
    fs.writeFileSync(path.join(dir, LOCK_FILE), JSON.stringify({ pid: 1, hostname: 'elsewhere', started: 'then', url: 'http://elsewhere:7000' }));
    const taken = await lock(dir);
    expect(taken.warning).toBe(`${path.join(dir, LOCK_FILE)} named a skein server (pid 1 on elsewhere, http://elsewhere:7000, since then); if that server still runs on this data folder from another machine, stop one of them`);
  });

  it('reads only a whole holder record', () => {
    const dir = tempDir('lock-unit');
    const write = (text: string) => fs.writeFileSync(path.join(dir, LOCK_FILE), text);
    expect(readHolder(dir)).toBeUndefined();
    for (const bad of ['', 'not json', 'null', '{"pid":"1","hostname":"h","started":"s"}', '{"pid":1,"hostname":2,"started":"s"}', '{"pid":1,"hostname":"h","started":3}', '{"hostname":"h","started":"s"}']) {
      write(bad);
      expect(readHolder(dir), bad).toBeUndefined();
    }
    write('{"pid":1,"hostname":"h","started":"s"}');
    expect(readHolder(dir)).toEqual({ pid: 1, hostname: 'h', started: 's' });
  });

  it('describes its holder', () => {
    expect(describeHolder(undefined)).toBe('another skein process (still starting)');
    expect(describeHolder({ pid: 7, hostname: 'h', started: 's' })).toBe('a skein server (pid 7 on h, since s)');
    expect(describeHolder({ pid: 7, hostname: 'h', started: 's', url: 'http://u', embedded: true })).toBe('a `skein` command with its own server (pid 7 on h, http://u, since s)');
  });
});

describe('data folder check', () => {
  it('makes the missing folders, private', () => {
    const dir = path.join(tempDir('lock-unit'), 'a', 'b');
    prepareDataDir(dir);
    expect(fs.statSync(dir).isDirectory()).toBe(true);
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    expect(fs.statSync(path.dirname(dir)).mode & 0o777).toBe(0o700);
    prepareDataDir(dir);
  });

  it('refuses a regular file on the way, or as the folder, in one clear line', () => {
    const file = path.join(tempDir('lock-unit'), 'file');
    fs.writeFileSync(file, '');
    expect(() => prepareDataDir(file)).toThrow(new DataDirUnusableError(`the data folder ${file} cannot be used: ${file} is a regular file; give SKEIN_DATA_DIR (--data-dir) a folder`));
    expect(() => prepareDataDir(path.join(file, 'sub'))).toThrow(DataDirUnusableError);
    expect(() => prepareDataDir('/dev/null')).toThrow('the data folder /dev/null cannot be used: /dev/null is not a folder; give SKEIN_DATA_DIR (--data-dir) a folder');
  });

  it('says why a folder cannot be made where the system refuses one (root too)', () => {
    // /proc refuses a new folder to everyone (mkdir answers ENOENT though /proc exists).
    expect(() => prepareDataDir('/proc/skein-lock-test/data')).toThrow(/^the data folder \/proc\/skein-lock-test\/data cannot be made: \/proc\/skein-lock-test: .+; give SKEIN_DATA_DIR \(--data-dir\) a folder you can write$/);
  });

  it('says why a folder cannot be made or written', () => {
    const dir = tempDir('lock-unit');
    fs.chmodSync(dir, 0o500);
    try {
      if (process.getuid?.() === 0) {
        // Root writes anywhere: the folder is used, not refused (the refusal as another user: test/cli/unix-approval-start.test.ts runs it as uid 65534).
        expect(() => prepareDataDir(path.join(dir, 'data'))).not.toThrow();
        expect(fs.existsSync(path.join(dir, 'data'))).toBe(true);
        return;
      }
      expect(() => prepareDataDir(path.join(dir, 'data'))).toThrow(`the data folder ${path.join(dir, 'data')} cannot be made: ${path.join(dir, 'data')}: permission denied; give SKEIN_DATA_DIR (--data-dir) a folder you can write`);
      expect(() => prepareDataDir(dir)).toThrow(`the data folder ${dir} is not writable by you: permission denied; give SKEIN_DATA_DIR (--data-dir) your own folder`);
    } finally {
      fs.chmodSync(dir, 0o700);
    }
  });
});
