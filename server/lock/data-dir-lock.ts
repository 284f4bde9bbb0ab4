// One server per data folder: two would both append to the same session logs
// (the second's seqs collide with the first's, and the next load skips them as
// damaged). On Linux the lock is an abstract Unix socket named after the
// folder: binding it is exclusive and the kernel frees it when the process
// ends, however it ends (flock semantics, without a native addon and without
// a stale file to judge). `<data dir>/server.lock` says who holds it (pid,
// host, URL, since when), for the refusal message and for `skein run`, which
// drives that server instead of starting a second. Elsewhere the file itself
// is the lock, taken over when its pid is gone.
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { prepareDataDir } from './data-dir-check.js';

export const LOCK_FILE = 'server.lock';
const KERNEL_LOCK = process.platform === 'linux';

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

/** Files this process holds without a kernel lock: a second server in the same process is refused too. */
const heldHere = new Set<string>();

/** Takes the data folder for this process, or throws DataDirLockedError naming who has it. */
export async function lockDataDir(dataDir: string, options: { embedded?: boolean } = {}): Promise<DataDirLock> {
  // A regular file, another user's folder, a path that cannot be made: one clear line (DataDirUnusableError).
  prepareDataDir(dataDir);
  const file = path.join(dataDir, LOCK_FILE);
  const previous = readHolder(dataDir);
  let holder: LockHolder = { pid: process.pid, hostname: os.hostname(), started: new Date().toISOString(), ...(options.embedded && { embedded: true }) };
  const socket = KERNEL_LOCK ? await bindKernelLock(dataDir) : claimFile(dataDir, file);
  writeHolder(file, holder);
  heldHere.add(file);
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
      writeHolder(file, holder);
    },
    async release() {
      if (released) return;
      released = true;
      heldHere.delete(file);
      // The file goes first, while the folder is still ours (a new holder's file is never removed).
      const now = readHolder(dataDir);
      if (now?.pid === holder.pid && now.started === holder.started) fs.rmSync(file, { force: true });
      await new Promise<void>((resolve) => (socket ? socket.close(() => resolve()) : resolve()));
    },
  };
}

/**
 * Whether a live process holds the data folder, and what its file says of it
 * (undefined while it is still starting, or when the file is a crashed one's).
 */
export async function heldBy(dataDir: string): Promise<{ holder: LockHolder | undefined } | undefined> {
  const holder = readHolder(dataDir);
  const live = holder && isAlive(holder, path.join(dataDir, LOCK_FILE)) ? holder : undefined;
  if (KERNEL_LOCK) return (await kernelLockHeld(dataDir)) ? { holder: live } : undefined;
  return live && { holder: live };
}

export function readHolder(dataDir: string): LockHolder | undefined {
  try {
    const parsed = JSON.parse(fs.readFileSync(path.join(dataDir, LOCK_FILE), 'utf8')) as Partial<LockHolder>;
    return typeof parsed.pid === 'number' && typeof parsed.hostname === 'string' && typeof parsed.started === 'string' ? (parsed as LockHolder) : undefined;
  } catch {
    return undefined;
  }
}

function writeHolder(file: string, holder: LockHolder): void {
  // Whole or not at all: a reader never sees half a file.
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify(holder)}\n`, { mode: 0o600 });
  fs.renameSync(tmp, file);
}

/** Salts the socket's name; kept in the (private) data folder, so no other user can take the name first. */
const KEY_FILE = 'server.lock.key';

/**
 * The abstract socket's name: one per folder, however the folder was named
 * (symlinks resolved). Abstract sockets have no permissions, so the name also
 * holds a random key from the folder: `create` makes it the first time.
 */
function kernelLockName(dataDir: string, create: boolean): string | undefined {
  const key = lockKey(path.join(dataDir, KEY_FILE), create);
  if (!key) return undefined;
  const real = fs.realpathSync(dataDir);
  return `\0skein-data-dir-${crypto.createHash('sha256').update(`${real}\n${key}`).digest('hex').slice(0, 40)}`;
}

function lockKey(file: string, create: boolean): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8').trim() || undefined;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || !create) return undefined;
  }
  // Whole at once (a link of a written file): two first starts agree on one key.
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${crypto.randomBytes(16).toString('hex')}\n`, { mode: 0o600 });
  try {
    fs.linkSync(tmp, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    fs.rmSync(tmp, { force: true });
  }
  return fs.readFileSync(file, 'utf8').trim();
}

function bindKernelLock(dataDir: string): Promise<net.Server> {
  return new Promise((resolve, reject) => {
    // Nothing is served: a connection only tells the caller that the folder is held.
    const server = net.createServer((connection) => connection.destroy());
    server.once('error', (err: NodeJS.ErrnoException) => reject(err.code === 'EADDRINUSE' ? new DataDirLockedError(dataDir, readHolder(dataDir)) : err));
    server.listen({ path: kernelLockName(dataDir, true)! }, () => {
      // The lock never keeps the process alive by itself.
      server.unref();
      resolve(server);
    });
  });
}

function kernelLockHeld(dataDir: string): Promise<boolean> {
  let name: string | undefined;
  try {
    name = kernelLockName(dataDir, false);
  } catch {
    name = undefined; // no such folder
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
function claimFile(dataDir: string, file: string): undefined {
  const holder = readHolder(dataDir);
  if (holder && isAlive(holder, file)) throw new DataDirLockedError(dataDir, holder);
  return undefined;
}

/** The recorded process still runs (on this machine; another machine's cannot be checked and counts as gone). */
function isAlive(holder: LockHolder, file: string): boolean {
  if (holder.hostname !== os.hostname()) return false;
  if (holder.pid === process.pid) return heldHere.has(file);
  try {
    process.kill(holder.pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
