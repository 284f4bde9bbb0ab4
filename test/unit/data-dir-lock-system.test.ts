// The data-folder lock on what one machine never shows, with the machine's
// answers passed in (server/lock/lock-system.ts): the file lock of a system
// without an abstract socket (a live holder refused by any name of the folder,
// a crashed one's file taken over, another user's process, another machine's
// file); two first starts racing for the key file; the refusals a folder gets
// from the system (as root, none of them can be made for real). Each test
// asserts the decision: the refusal's words and holder, the record written.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DataDirUnusableError, prepareDataDir } from '../../server/lock/data-dir-check.js';
import { DataDirLockedError, heldBy, LOCK_FILE, lockDataDir, readHolder, type DataDirLock } from '../../server/lock/data-dir-lock.js';
import { machineLockSystem, type LockFs, type LockSystem } from '../../server/lock/lock-system.js';
import { tempDir } from '../helpers/temp-dir.js';

const host = os.hostname();
const held: DataDirLock[] = [];
afterEach(async () => {
  for (const lock of held.splice(0)) await lock.release();
});

const errno = (code: string, message = `${code}: refused`): NodeJS.ErrnoException => Object.assign(new Error(message), { code });

/** A process of `pid` on this host; `running` answers the pid check (ESRCH for the others). */
function machine(pid: number, running: Record<number, 'yes' | 'other-user' | 'EINVAL'> = {}, over: Partial<LockSystem> = {}): LockSystem {
  return {
    ...machineLockSystem(),
    kernelLock: false,
    pid,
    probePid: (p) => {
      const state = running[p];
      if (state === 'yes') return;
      throw errno(state === 'other-user' ? 'EPERM' : (state ?? 'ESRCH'));
    },
    ...over,
  };
}

async function take(dir: string, system: LockSystem, embedded?: boolean): Promise<DataDirLock> {
  const lock = await lockDataDir(dir, { system, ...(embedded !== undefined && { embedded }) });
  held.push(lock);
  return lock;
}

async function refusal(dir: string, system: LockSystem): Promise<DataDirLockedError> {
  const err = await lockDataDir(dir, { system }).then(
    (l) => (held.push(l), undefined),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DataDirLockedError);
  expect((err as Error).name).toBe('DataDirLockedError');
  return err as DataDirLockedError;
}

const writeHolderFile = (dir: string, holder: object) => fs.writeFileSync(path.join(dir, LOCK_FILE), JSON.stringify(holder));

describe('the file lock (no kernel lock on this system)', () => {
  it('refuses a second server by any name of the folder while the first runs, naming it; its release frees the folder', async () => {
    const dir = tempDir('lock-sys');
    const link = path.join(tempDir('lock-sys-link'), 'data');
    fs.symlinkSync(dir, link);
    const first = await take(dir, machine(1001));
    first.serving('http://127.0.0.1:7001');
    expect(readHolder(dir)).toEqual({ pid: 1001, hostname: host, started: expect.any(String), url: 'http://127.0.0.1:7001' });
    const second = machine(1002, { 1001: 'yes' });
    for (const name of [dir, `${dir}/`, path.join(dir, 'x', '..'), link, `${link}/`]) {
      const err = await refusal(name, second);
      expect(err.holder).toEqual({ pid: 1001, hostname: host, started: readHolder(dir)!.started, url: 'http://127.0.0.1:7001' });
      expect(err.message).toBe(
        `the data folder ${name} is in use by a skein server (pid 1001 on ${host}, http://127.0.0.1:7001, since ${err.holder!.started}). One server per data folder (two would write the same session logs): ` +
          'stop that one or give this one another SKEIN_DATA_DIR; `skein run` and `skein sessions` drive a running server by themselves.',
      );
      expect(await heldBy(name, second)).toEqual({ holder: err.holder });
    }
    // The same process by another name of the folder (a second server in one process) is refused too.
    expect((await refusal(link, machine(1001))).holder?.pid).toBe(1001);
    expect(readHolder(dir)?.pid).toBe(1001);
    await first.release();
    expect(fs.existsSync(path.join(dir, LOCK_FILE))).toBe(false);
    expect(await heldBy(dir, second)).toBeUndefined();
    await take(link, second, true);
    expect(readHolder(dir)).toEqual({ pid: 1002, hostname: host, started: expect.any(String), embedded: true });
    // The first process, back, is refused now: the second holds the folder.
    expect((await refusal(dir, machine(1001, { 1002: 'yes' }))).message).toContain('in use by a `skein` command with its own server (pid 1002 on');
  });

  it("takes over a crashed holder's file: its pid gone, or this very pid left by an earlier process", async () => {
    const dir = tempDir('lock-sys');
    writeHolderFile(dir, { pid: 1001, hostname: host, started: 'then', url: 'http://old' });
    const me = machine(1002, { 1001: 'EINVAL' });
    expect(await heldBy(dir, me)).toBeUndefined();
    expect(await heldBy(dir, machine(1002))).toBeUndefined();
    const lock = await take(dir, me);
    expect(lock.warning).toBeUndefined();
    expect(readHolder(dir)).toEqual({ pid: 1002, hostname: host, started: expect.any(String) });
    await lock.release();
    // A file naming this process's own pid that no lock of this process took (a pid used again after a crash).
    writeHolderFile(dir, { pid: 1003, hostname: host, started: 'then' });
    expect(await heldBy(dir, machine(1003, { 1003: 'yes' }))).toBeUndefined();
    const again = await take(dir, machine(1003, { 1003: 'yes' }));
    expect(again.warning).toBeUndefined();
    expect(readHolder(dir)).toMatchObject({ pid: 1003, hostname: host });
    expect(readHolder(dir)?.started).not.toBe('then');
  });

  it("refuses while the holder runs as another user (the pid check says EPERM: it exists)", async () => {
    const dir = tempDir('lock-sys');
    writeHolderFile(dir, { pid: 1001, hostname: host, started: 'then' });
    const me = machine(1002, { 1001: 'other-user' });
    const err = await refusal(dir, me);
    expect(err.holder).toEqual({ pid: 1001, hostname: host, started: 'then' });
    expect(err.message).toContain(`in use by a skein server (pid 1001 on ${host}, since then)`);
    expect(await heldBy(dir, me)).toEqual({ holder: { pid: 1001, hostname: host, started: 'then' } });
    expect(readHolder(dir)?.started).toBe('then');
  });

  it("takes another machine's file (its pid cannot be checked from here), warning that it named that machine", async () => {
    const dir = tempDir('lock-sys');
    const elsewhere = { pid: 1001, hostname: 'elsewhere', started: 'then', url: 'http://elsewhere:7000' };
    writeHolderFile(dir, elsewhere);
    // The pid check would say "runs": it is not asked about another machine's pid.
    const me = machine(1002, { 1001: 'yes' });
    expect(await heldBy(dir, me)).toBeUndefined();
    const lock = await take(dir, me);
    expect(lock.warning).toBe(`${path.join(dir, LOCK_FILE)} named a skein server (pid 1001 on elsewhere, http://elsewhere:7000, since then); if that server still runs on this data folder from another machine, stop one of them`);
    expect(readHolder(dir)).toMatchObject({ pid: 1002, hostname: host });
    // After a rename of this machine, its own live server's file reads as another machine's too.
    expect(await heldBy(dir, machine(1003, { 1002: 'yes' }, { hostname: () => 'renamed' }))).toBeUndefined();
    expect(await heldBy(dir, machine(1003, { 1002: 'yes' }))).toEqual({ holder: expect.objectContaining({ pid: 1002 }) });
  });
});

describe('a release', () => {
  it('frees the folder once: a second release of the same lock leaves the next holder of this process its folder', async () => {
    const dir = tempDir('lock-sys');
    const first = await lockDataDir(dir, { system: machine(1101) });
    await first.release();
    const second = await take(dir, machine(1101));
    await first.release();
    expect(readHolder(dir)).toMatchObject({ pid: 1101 });
    expect((await refusal(dir, machine(1101))).holder?.pid).toBe(1101);
    await second.release();
    expect(fs.existsSync(path.join(dir, LOCK_FILE))).toBe(false);
  });

  it("removes only its own record: not one of the same start time by another pid; a record already gone is fine", async () => {
    const dir = tempDir('lock-sys');
    const first = await lockDataDir(dir, { system: machine(1201) });
    const other = { pid: 1202, hostname: host, started: readHolder(dir)!.started };
    writeHolderFile(dir, other);
    await first.release();
    expect(readHolder(dir)).toEqual(other);
    fs.rmSync(path.join(dir, LOCK_FILE));
    const second = await lockDataDir(dir, { system: machine(1203) });
    fs.rmSync(path.join(dir, LOCK_FILE));
    await expect(second.release()).resolves.toBeUndefined();
  });

  it('each folder is its own: one process holds two at once, and a crashed file of its pid in another folder is taken over', async () => {
    const [one, two, three] = [tempDir('lock-sys'), tempDir('lock-sys'), tempDir('lock-sys')];
    await take(one, machineLockSystem());
    await take(two, machineLockSystem());
    expect(readHolder(two)?.pid).toBe(process.pid);
    await take(tempDir('lock-sys'), machine(1301));
    writeHolderFile(three, { pid: 1301, hostname: host, started: 'then' });
    await take(three, machine(1301));
    expect(readHolder(three)?.started).not.toBe('then');
  });

  it('the record and the key are private to the user (mode 600)', async () => {
    const dir = tempDir('lock-sys');
    const lock = await take(dir, machineLockSystem());
    lock.serving('http://127.0.0.1:7002');
    expect(fs.statSync(path.join(dir, LOCK_FILE)).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.join(dir, 'server.lock.key')).mode & 0o777).toBe(0o600);
  });
});

describe('the kernel lock', () => {
  it('says who holds it: the live holder its file names, none while that file is a crashed or another machine\'s', async () => {
    const dir = tempDir('lock-sys');
    const kernel = (pid: number, running: Record<number, 'yes'> = {}, over: Partial<LockSystem> = {}) => machine(pid, running, { kernelLock: true, ...over });
    expect(await heldBy(dir, kernel(2001))).toBeUndefined();
    await take(dir, kernel(2001));
    expect(await heldBy(dir, kernel(2002, { 2001: 'yes' }))).toEqual({ holder: expect.objectContaining({ pid: 2001, hostname: host }) });
    // The socket is held, but its file names a pid that is gone (a holder still starting over a crashed one's file).
    expect(await heldBy(dir, kernel(2002))).toEqual({ holder: undefined });
    expect(await heldBy(dir, kernel(2002, { 2001: 'yes' }, { hostname: () => 'other' }))).toEqual({ holder: undefined });
    const err = await refusal(dir, kernel(2002, { 2001: 'yes' }));
    expect(err.holder).toMatchObject({ pid: 2001 });
    // An empty key file names no lock: nothing is held by it.
    const empty = tempDir('lock-sys');
    fs.writeFileSync(path.join(empty, 'server.lock.key'), '\n');
    expect(await heldBy(empty, kernel(2002))).toBeUndefined();
  });

  it('two first starts racing for the key file agree on one key: exactly one takes the folder, the other is refused', async () => {
    const dir = tempDir('lock-sys');
    let second: Promise<DataDirLock> | undefined;
    const racing: LockFs = {
      ...fs,
      // The second start makes its key and binds between the first's writing its key and linking it in.
      linkSync: (from, to) => {
        if (!second) second = lockDataDir(dir, { system: { ...machineLockSystem(), pid: 3002 } });
        fs.linkSync(from, to);
      },
    };
    const first = lockDataDir(dir, { system: { ...machineLockSystem(), pid: 3001, fs: racing } });
    expect(second).toBeDefined();
    const results = await Promise.allSettled([first, second!]);
    for (const r of results) if (r.status === 'fulfilled') held.push(r.value);
    const won = results.filter((r) => r.status === 'fulfilled');
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    expect(lost[0]!.reason).toBeInstanceOf(DataDirLockedError);
    expect((lost[0]!.reason as Error).message).toMatch(new RegExp(`^the data folder ${dir} is in use by `));
    // The second started binding first: it holds the folder, and its record says so.
    expect(results[1]!.status).toBe('fulfilled');
    expect(readHolder(dir)).toMatchObject({ pid: 3002, hostname: host });
    expect(fs.readdirSync(dir).sort()).toEqual([LOCK_FILE, 'server.lock.key']);
    expect(fs.readFileSync(path.join(dir, 'server.lock.key'), 'utf8')).toMatch(/^[0-9a-f]{32}\n$/);
  });

  it('an empty key file fails the start naming it; a key that cannot be read fails it with the system\'s error; neither is held', async () => {
    const dir = tempDir('lock-sys');
    const keyFile = path.join(dir, 'server.lock.key');
    fs.writeFileSync(keyFile, ' \n');
    const err = await lockDataDir(dir).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DataDirUnusableError);
    expect((err as Error).message).toBe(`the data folder ${dir} cannot be used: its lock key ${keyFile} is empty; remove that file while no skein runs on this folder`);
    fs.rmSync(keyFile);
    const denied = errno('EACCES', `EACCES: permission denied, open '${keyFile}'`);
    const written: string[] = [];
    const unreadable: LockFs = {
      ...fs,
      readFileSync: ((file: string, options: BufferEncoding) => {
        if (file === keyFile) throw Object.assign(denied, { path: keyFile });
        return fs.readFileSync(file, options);
      }) as LockFs['readFileSync'],
      writeFileSync: ((file: string, ...rest: [string, fs.WriteFileOptions]) => {
        written.push(file);
        fs.writeFileSync(file, ...rest);
      }) as LockFs['writeFileSync'],
    };
    fs.writeFileSync(keyFile, 'k\n');
    await expect(lockDataDir(dir, { system: { ...machineLockSystem(), fs: unreadable } })).rejects.toBe(denied);
    // No new key was tried over the one that cannot be read.
    expect(written).toEqual([]);
    expect(await heldBy(dir, { ...machineLockSystem(), fs: unreadable })).toBeUndefined();
    // The folder gone between reading its key and resolving its name: not held.
    const gone: LockFs = { ...fs, realpathSync: (() => { throw errno('ENOENT'); }) as unknown as LockFs['realpathSync'] };
    expect(await heldBy(dir, { ...machineLockSystem(), fs: gone })).toBeUndefined();
    // Any other failure there is said, not taken for "not held".
    const refused: LockFs = { ...fs, realpathSync: (() => { throw errno('EACCES', 'EACCES: realpath'); }) as unknown as LockFs['realpathSync'] };
    await expect(heldBy(dir, { ...machineLockSystem(), fs: refused })).rejects.toThrow('EACCES: realpath');
  });

  it('a key that cannot be linked in for another reason fails the start with that error, leaving no temporary file', async () => {
    const dir = tempDir('lock-sys');
    const failing: LockFs = {
      ...fs,
      linkSync: () => {
        throw errno('EPERM', 'EPERM: operation not permitted, link');
      },
    };
    await expect(lockDataDir(dir, { system: { ...machineLockSystem(), fs: failing } })).rejects.toThrow('EPERM: operation not permitted, link');
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});

describe('a folder the system refuses', () => {
  const stat = (isDir: boolean, uid: number | undefined) => ({ isDirectory: () => isDir, isFile: () => !isDir, uid }) as fs.Stats;

  /** A machine where `existing` are folders (of `owner`), mkdir fails with `mkdirError`, access with `accessError`. */
  function refusing(options: { existing: string[]; owner?: number; me?: number; mkdirError?: NodeJS.ErrnoException; accessError?: NodeJS.ErrnoException; madeAfterError?: boolean | 'file'; goneAfterAccess?: boolean }) {
    const made: string[] = [];
    const folders = new Set(options.existing);
    const system: Pick<LockSystem, 'fs' | 'uid'> = {
      uid: () => options.me,
      fs: {
        ...fs,
        statSync: ((p: string) => {
          if (folders.has(p)) return stat(true, options.owner);
          if (options.madeAfterError === 'file' && made.includes(p)) return stat(false, options.owner);
          throw errno('ENOENT');
        }) as LockFs['statSync'],
        mkdirSync: ((p: string) => {
          made.push(p);
          if (options.madeAfterError === true) folders.add(p);
          if (options.mkdirError) throw options.mkdirError;
          folders.add(p);
        }) as LockFs['mkdirSync'],
        accessSync: (p: fs.PathLike) => {
          if (options.goneAfterAccess) folders.delete(String(p));
          if (options.accessError) throw options.accessError;
        },
      },
    };
    return { system, made };
  }

  it('names the folder and why it cannot be made, for each refusal the system gives', () => {
    const words: Record<string, string> = {
      EACCES: 'permission denied',
      EPERM: 'not permitted',
      EROFS: 'a read-only file system',
      ENOENT: 'it cannot be created there',
      ENOTDIR: 'a part of the path is not a folder',
      ENOSPC: 'no space left',
      EIO: 'EIO: i/o error',
    };
    for (const [code, why] of Object.entries(words)) {
      const { system } = refusing({ existing: ['/srv'], mkdirError: errno(code, `${code}: i/o error`) });
      expect(() => prepareDataDir('/srv/skein/data', system), code).toThrow(
        new DataDirUnusableError(`the data folder /srv/skein/data cannot be made: /srv/skein: ${why}; give SKEIN_DATA_DIR (--data-dir) a folder you can write`),
      );
    }
    const { system } = refusing({ existing: ['/srv'], mkdirError: Object.assign(new Error('no code at all')) });
    expect(() => prepareDataDir('/srv/data', system)).toThrow('cannot be made: /srv/data: no code at all; give');
  });

  it('makes each missing folder from the top, private; a folder another start made meanwhile is used, a file made meanwhile is refused', () => {
    const fresh = refusing({ existing: [] });
    prepareDataDir('/a/b', fresh.system);
    expect(fresh.made).toEqual(['/', '/a', '/a/b']);
    const raced = refusing({ existing: ['/srv'], mkdirError: errno('EEXIST'), madeAfterError: true });
    expect(() => prepareDataDir('/srv/a/b', raced.system)).not.toThrow();
    expect(raced.made).toEqual(['/srv/a', '/srv/a/b']);
    const file = refusing({ existing: ['/srv'], mkdirError: errno('EEXIST', 'EEXIST: file already exists'), madeAfterError: 'file' });
    expect(() => prepareDataDir('/srv/a', file.system)).toThrow('the data folder /srv/a cannot be made: /srv/a: EEXIST: file already exists; give SKEIN_DATA_DIR');
    // EEXIST and then nothing there (removed at once), or another refusal though a folder is there now: refused the same way.
    const vanished = refusing({ existing: ['/srv'], mkdirError: errno('EEXIST', 'EEXIST: file already exists') });
    expect(() => prepareDataDir('/srv/a', vanished.system)).toThrow(new DataDirUnusableError('the data folder /srv/a cannot be made: /srv/a: EEXIST: file already exists; give SKEIN_DATA_DIR (--data-dir) a folder you can write'));
    const refusedThere = refusing({ existing: ['/srv'], mkdirError: errno('EACCES'), madeAfterError: true });
    expect(() => prepareDataDir('/srv/a', refusedThere.system)).toThrow('the data folder /srv/a cannot be made: /srv/a: permission denied; give');
  });

  it("says whose folder it is when it is another user's, else why it cannot be written", () => {
    const theirs = refusing({ existing: ['/srv/data'], owner: 1234, me: 1000, accessError: errno('EACCES') });
    expect(() => prepareDataDir('/srv/data', theirs.system)).toThrow(
      new DataDirUnusableError('the data folder /srv/data is not writable by you: it belongs to another user (uid 1234; you are 1000); give SKEIN_DATA_DIR (--data-dir) your own folder'),
    );
    const mine = refusing({ existing: ['/srv/data'], owner: 1000, me: 1000, accessError: errno('EROFS') });
    expect(() => prepareDataDir('/srv/data', mine.system)).toThrow('the data folder /srv/data is not writable by you: a read-only file system; give SKEIN_DATA_DIR (--data-dir) your own folder');
    const noUid = refusing({ existing: ['/srv/data'], owner: 1234, me: undefined, accessError: errno('EACCES') });
    expect(() => prepareDataDir('/srv/data', noUid.system)).toThrow('the data folder /srv/data is not writable by you: permission denied; give');
    // The folder gone by the time its owner is asked: the system's reason.
    const gone = refusing({ existing: ['/srv/data'], owner: 1234, me: 1000, accessError: errno('EACCES'), goneAfterAccess: true });
    expect(() => prepareDataDir('/srv/data', gone.system)).toThrow('the data folder /srv/data is not writable by you: permission denied; give');
    const fine = refusing({ existing: ['/srv/data'], owner: 1234, me: 1000 });
    expect(() => prepareDataDir('/srv/data', fine.system)).not.toThrow();
  });

  it('a start on a folder refused to this user fails with that line, before any lock is taken', async () => {
    const dir = tempDir('lock-sys');
    const theirs: LockSystem = { ...machine(4001), uid: () => 4242, fs: { ...fs, accessSync: () => { throw errno('EACCES'); } } };
    const err = await lockDataDir(dir, { system: theirs }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DataDirUnusableError);
    expect((err as Error).name).toBe('DataDirUnusableError');
    expect((err as Error).message).toBe(`the data folder ${dir} is not writable by you: it belongs to another user (uid ${fs.statSync(dir).uid}; you are 4242); give SKEIN_DATA_DIR (--data-dir) your own folder`);
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});

describe('a lock key that is no file', () => {
  it('a folder or a FIFO in the key\'s place fails the start in one line naming it (no stack trace, no hang); asking who holds the folder says nobody', async () => {
    for (const [make, words] of [
      [(file: string) => fs.mkdirSync(file), 'a folder'],
      [(file: string) => execFileSync('mkfifo', [file]), 'not a regular file'],
    ] as const) {
      const dir = tempDir('lock-sys');
      const keyFile = path.join(dir, 'server.lock.key');
      make(keyFile);
      const err = await lockDataDir(dir).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DataDirUnusableError);
      expect((err as Error).message).toBe(`the data folder ${dir} cannot be used: its lock key ${keyFile} is ${words}; remove it while no skein runs on this folder`);
      await expect(heldBy(dir)).resolves.toBeUndefined();
    }
  });
});
