// One server per data folder: two would both append to the same session logs
// (the second's seqs collide with the first's, and the next load skips them as
// damaged). On Linux the lock is an abstract Unix socket named after the
// folder: binding it is exclusive and the kernel frees it when the process
// ends, however it ends (flock semantics, without a native addon and without
// a stale file to judge). `<data dir>/server.lock` says who holds it (pid,
// host, URL, since when), for the refusal message and for `skein run`, which
// drives that server instead of starting a second. Elsewhere the file itself
// is the lock, taken over when its pid is gone. What the machine answers (the
// platform, pids, host name, file calls) comes in as a LockSystem
// (lock-system.ts), the real one by default.
import crypto from 'node:crypto';
import net from 'node:net';
import path from 'node:path';
import { DataDirUnusableError, prepareDataDir } from './data-dir-check.js';
import { machineLockSystem, type LockFs, type LockSystem } from './lock-system.js';

export const LOCK_FILE = 'server.lock';

export interface LockHolder {
  pid: number;
  hostname: string;
  /** ISO time it took the folder. */
  started: string;
  /** Where it serves; absent while it is still starting. */
  url?: string;
  /** A server embedded in a `skein run` / `sessions` / `export`: gone when that command ends. */
  embedded?: boolean;
}

/** Another process holds the data folder. */
export class DataDirLockedError extends Error {
  override readonly name = 'DataDirLockedError';
  constructor(
    readonly dataDir: string,
    readonly holder: LockHolder | undefined,
  ) {
    super(
      `the data folder ${dataDir} is in use by ${describeHolder(holder)}. One server per data folder (two would write the same session logs): ` +
        'stop that one or give this one another SKEIN_DATA_DIR; `skein run` and `skein sessions` drive a running server by themselves.',
    );
  }
}

export function describeHolder(holder: LockHolder | undefined): string {
  if (!holder) return 'another skein process (still starting)';
  const what = holder.embedded ? 'a `skein` command with its own server' : 'a skein server';
  return `${what} (pid ${holder.pid} on ${holder.hostname}${holder.url ? `, ${holder.url}` : ''}, since ${holder.started})`;
}

export interface DataDirLock {
  /** Something to tell the user (the last holder was on another machine). */
  readonly warning: string | undefined;
  /** Records where this server listens, for `skein run` to find it. */
  serving(url: string): void;
  /** Gives the folder up (a graceful stop; a crash frees it too). */
  release(): Promise<void>;
}

/**
 * Folders this process holds (their real paths: a second name of the folder is the same folder): without a
 * kernel lock, a second server in the same process is refused too.
 */
const heldHere = new Set<string>();

/** Takes the data folder for this process, or throws DataDirLockedError naming who has it. */
export async function lockDataDir(dataDir: string, options: { embedded?: boolean; system?: LockSystem } = {}): Promise<DataDirLock> {
  const system = options.system ?? machineLockSystem();
  // A regular file, another user's folder, a path that cannot be made: one clear line (DataDirUnusableError).
  prepareDataDir(dataDir, system);
  const file = path.join(dataDir, LOCK_FILE);
  const previous = readHolder(dataDir, system.fs);
  let holder: LockHolder = { pid: system.pid, hostname: system.hostname(), started: new Date().toISOString(), ...(options.embedded && { embedded: true }) };
  const socket = system.kernelLock ? await bindKernelLock(dataDir, system) : claimFile(dataDir, system);
  writeHolder(file, holder, system);
  const here = heldKey(dataDir, system);
  heldHere.add(here);
  // The kernel lock is per machine: a holder recorded on another host cannot be checked from here.
  const warning =
    previous && previous.hostname !== holder.hostname
      ? `${file} named ${describeHolder(previous)}; if that server still runs on this data folder from another machine, stop one of them`
      : undefined;
  let released = false;
  return {
    warning,
    serving(url) {
      if (released) return;
      holder = { ...holder, url };
      writeHolder(file, holder, system);
    },
    async release() {
      if (released) return;
      released = true;
      heldHere.delete(here);
      // The file goes first, while the folder is still ours (a new holder's file is never removed).
      const now = readHolder(dataDir, system.fs);
      if (now?.pid === holder.pid && now.started === holder.started) system.fs.rmSync(file, { force: true });
      await new Promise<void>((resolve) => (socket ? socket.close(() => resolve()) : resolve()));
    },
  };
}

/**
 * Whether a live process holds the data folder, and what its file says of it
 * (undefined while it is still starting, or when the file is a crashed one's).
 */
export async function heldBy(dataDir: string, system: LockSystem = machineLockSystem()): Promise<{ holder: LockHolder | undefined } | undefined> {
  const holder = readHolder(dataDir, system.fs);
  const live = holder && isAlive(holder, dataDir, system) ? holder : undefined;
  if (system.kernelLock) return (await kernelLockHeld(dataDir, system.fs)) ? { holder: live } : undefined;
  return live && { holder: live };
}

export function readHolder(dataDir: string, files: Pick<LockFs, 'readFileSync'> = machineLockSystem().fs): LockHolder | undefined {
  try {
    const parsed = JSON.parse(files.readFileSync(path.join(dataDir, LOCK_FILE), 'utf8')) as Partial<LockHolder>;
    return typeof parsed.pid === 'number' && typeof parsed.hostname === 'string' && typeof parsed.started === 'string' ? (parsed as LockHolder) : undefined;
  } catch {
    return undefined;
  }
}

function writeHolder(file: string, holder: LockHolder, system: LockSystem): void {
  // Whole or not at all: a reader never sees half a file.
  const tmp = `${file}.${system.pid}.tmp`;
  system.fs.writeFileSync(tmp, `${JSON.stringify(holder)}\n`, { mode: 0o600 });
  system.fs.renameSync(tmp, file);
}

/** The folder's one name in `heldHere`, however it was given (its real path once it exists). */
function heldKey(dataDir: string, system: LockSystem): string {
  return system.fs.realpathSync(dataDir);
}

/** Salts the socket's name; kept in the (private) data folder, so no other user can take the name first. */
const KEY_FILE = 'server.lock.key';

/**
 * The abstract socket's name: one per folder, however the folder was named
 * (symlinks resolved). Abstract sockets have no permissions, so the name also
 * holds a random key from the folder: `create` makes it the first time.
 */
function kernelLockName(dataDir: string, create: { pid: number } | undefined, files: LockFs): string | undefined {
  const key = lockKey(path.join(dataDir, KEY_FILE), create, files);
  if (!key) return undefined;
  const real = files.realpathSync(dataDir);
  return `\0skein-data-dir-${crypto.createHash('sha256').update(`${real}\n${key}`).digest('hex').slice(0, 40)}`;
}

/** `create`: the key is made if there is none yet, by the process of this pid (its temporary file's name). */
function lockKey(file: string, create: { pid: number } | undefined, files: LockFs): string | undefined {
  let text: string;
  try {
    // Read only a regular file: a folder threw a stack trace, a FIFO held the start for ever.
    const kind = files.statSync(file);
    if (!kind.isFile()) {
      if (!create) return undefined;
      throw new DataDirUnusableError(`the data folder ${path.dirname(file)} cannot be used: its lock key ${file} is ${kind.isDirectory() ? 'a folder' : 'not a regular file'}; remove it while no skein runs on this folder`);
    }
    text = files.readFileSync(file, 'utf8');
  } catch (err) {
    // Only asked (heldBy): no key, no lock. A key that cannot be read fails the start with the system's error (its path: start-failure.ts says it).
    if (!create) return undefined;
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    return makeKey(file, create.pid, files);
  }
  const key = text.trim();
  // Only a hand-edited file is empty (the key is linked in whole): no lock can be named after it.
  if (!key && create) throw new DataDirUnusableError(`the data folder ${path.dirname(file)} cannot be used: its lock key ${file} is empty; remove that file while no skein runs on this folder`);
  return key;
}

function makeKey(file: string, pid: number, files: LockFs): string {
  // Whole at once (a link of a written file): two first starts agree on one key.
  const tmp = `${file}.${pid}.tmp`;
  files.writeFileSync(tmp, `${crypto.randomBytes(16).toString('hex')}\n`, { mode: 0o600 });
  try {
    files.linkSync(tmp, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    files.rmSync(tmp, { force: true });
  }
  return files.readFileSync(file, 'utf8').trim();
}

function bindKernelLock(dataDir: string, system: LockSystem): Promise<net.Server> {
  return new Promise((resolve, reject) => {
    // Nothing is served: a connection only tells the caller that the folder is held.
    const server = net.createServer((connection) => connection.destroy());
    server.once('error', (err: NodeJS.ErrnoException) => reject(err.code === 'EADDRINUSE' ? new DataDirLockedError(dataDir, readHolder(dataDir, system.fs)) : err));
    server.listen({ path: kernelLockName(dataDir, { pid: system.pid }, system.fs)! }, () => {
      // The lock never keeps the process alive by itself.
      server.unref();
      resolve(server);
    });
  });
}

function kernelLockHeld(dataDir: string, files: LockFs): Promise<boolean> {
  let name: string | undefined;
  try {
    name = kernelLockName(dataDir, undefined, files);
  } catch (err) {
    // The folder went away after its key was read.
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    name = undefined;
  }
  // No folder, or no key in it: no server ever held it.
  if (!name) return Promise.resolve(false);
  return new Promise((resolve) => {
    const probe = net.connect({ path: name });
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', () => resolve(false));
  });
}

/** Without a kernel lock: the file is the lock, taken over when its holder is gone. */
function claimFile(dataDir: string, system: LockSystem): undefined {
  const holder = readHolder(dataDir, system.fs);
  if (holder && isAlive(holder, dataDir, system)) throw new DataDirLockedError(dataDir, holder);
  return undefined;
}

/** The recorded process still runs (on this machine; another machine's cannot be checked and counts as gone). */
function isAlive(holder: LockHolder, dataDir: string, system: LockSystem): boolean {
  if (holder.hostname !== system.hostname()) return false;
  // This process: held only while a lock of this process has the folder (the file may be a crashed run's with the same pid).
  if (holder.pid === system.pid) return heldHere.has(heldKey(dataDir, system));
  try {
    system.probePid(holder.pid);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
