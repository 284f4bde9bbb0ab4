// The one door to the host for files skein touches on behalf of a repository
// or a model (instruction files, checkpoints and rewind, previews): a path
// inside a folder is reached one component at a time and no symbolic link is
// ever followed on the way, in a parent folder or at the end. On Linux each
// folder is held open and the next name is opened through
// /proc/self/fd/<folder>/<name> with O_NOFOLLOW (what openat does), so a link
// swapped in between a check and its use is refused too, not followed; where
// there is no /proc, each component is lstat'd first (the same rule, with a
// window for a swap). A link is described (where it points, whether that is
// outside), never read through; a write replaces a link, it never writes
// through one. A lint test (test/unit/one-door.test.ts) keeps the other code
// on this door.
import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp, { type FileHandle } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK, O_WRONLY, O_CREAT, O_TRUNC, O_EXCL } = fs.constants;
const DIR_FLAGS = O_RDONLY | O_DIRECTORY | O_NOFOLLOW;
const PROC_FD = fs.existsSync('/proc/self/fd');

/** What a path inside the folder is, seen without following links. */
export type DoorEntry =
  | { kind: 'missing' }
  | { kind: 'file'; size: number; mode: number; links: number }
  | { kind: 'dir' }
  | { kind: 'other' }
  | { kind: 'link'; target: string; outside: boolean };

/** A path the door will not take: a link on the way, outside the folder, not a regular file. */
export class DoorError extends Error {
  override readonly name = 'DoorError';
  constructor(
    message: string,
    /** `link`: a symbolic link on the way; `outside`: the path leaves the folder; `kind`: not a regular file or folder. */
    readonly reason: 'link' | 'outside' | 'kind',
  ) {
    super(message);
  }
}

/** `~/…` for the user's home, so a message names a link's target the way the user reads it. */
export function shownPath(p: string): string {
  const home = os.homedir();
  return home && home !== '/' && (p === home || p.startsWith(home + path.sep)) ? `~${p.slice(home.length)}` : p;
}

export class Door {
  /** The folder, links in its own path resolved (the user chose it; only what is inside is checked). */
  readonly root: string;

  constructor(root: string) {
    this.root = fs.realpathSync(root);
  }

  /** `requested` (relative to the folder, or absolute) as names under the folder; throws when it leaves it. */
  parts(requested: string): string[] {
    if (requested.includes('\0')) throw new DoorError('the path contains a NUL byte', 'outside');
    const abs = path.resolve(this.root, requested);
    const rel = path.relative(this.root, abs);
    if (rel === '') return [];
    if (rel.startsWith('..') || path.isAbsolute(rel)) throw new DoorError(`${requested} is outside ${this.root}`, 'outside');
    return rel.split(path.sep);
  }

  /** Where a link at `parts` points, and whether that is outside the folder (judged by its text, never followed). */
  private linkAt(dir: string, name: string, parts: readonly string[]): { target: string; outside: boolean } {
    const target = fs.readlinkSync(path.join(dir, name));
    const resolved = path.resolve(path.join(this.root, ...parts.slice(0, -1)), target);
    const rel = path.relative(this.root, resolved);
    return { target, outside: rel.startsWith('..') || path.isAbsolute(rel) };
  }

  private linkError(dir: string, parts: readonly string[]): DoorError {
    const shown = parts.join('/');
    try {
      const { target, outside } = this.linkAt(dir, parts[parts.length - 1]!, parts);
      return new DoorError(`${shown} is a symbolic link to ${shownPath(target)}${outside ? ', outside the folder' : ''}: skein does not follow it`, 'link');
    } catch {
      return new DoorError(`${shown} is not a plain folder (a symbolic link or something else): skein does not follow it`, 'link');
    }
  }

  /**
   * Runs `use` on the parent folder of `parts` (as a path that names the open
   * folder itself) and the last name; `create` makes missing folders, one at a time.
   * Returns undefined when a folder on the way does not exist (and is not created).
   */
  private inParent<T>(parts: readonly string[], create: boolean, use: (dir: string, name: string) => T): T | undefined {
    const parent = this.enterParent(parts, create);
    if (!parent) return undefined;
    try {
      return use(parent.dir, parts[parts.length - 1]!);
    } finally {
      parent.close();
    }
  }

  /** The parent folder of `parts`, held open until `close` (undefined: a folder on the way is missing). */
  private enterParent(parts: readonly string[], create: boolean): { dir: string; close: () => void } | undefined {
    if (!parts.length) throw new DoorError('the folder itself is not a file', 'kind');
    const fds: number[] = [];
    const close = () => {
      for (const fd of fds.splice(0)) fs.closeSync(fd);
    };
    try {
      let dir = this.root;
      if (PROC_FD) {
        fds.push(fs.openSync(this.root, DIR_FLAGS));
        dir = `/proc/self/fd/${fds[0]}`;
      }
      for (let i = 0; i < parts.length - 1; i++) {
        const next = this.enter(dir, parts.slice(0, i + 1), create, fds);
        if (next === undefined) {
          close();
          return undefined;
        }
        dir = next;
      }
      return { dir, close };
    } catch (err) {
      close();
      throw err;
    }
  }

  /**
   * Opens `requested` with `flags` (O_NOFOLLOW added): the folders on the way
   * entered without following links, `create` makes missing ones. A missing
   * file rejects with ENOENT as fs does; a link with a DoorError. The caller
   * checks what it opened (handle.stat()).
   */
  async open(requested: string, flags: number, create = false): Promise<FileHandle> {
    const parts = this.parts(requested);
    const parent = this.enterParent(parts, create);
    if (!parent) throw Object.assign(new Error(`ENOENT: no such file or directory, open '${requested}'`), { code: 'ENOENT' });
    try {
      return await fsp.open(path.join(parent.dir, parts[parts.length - 1]!), flags | O_NOFOLLOW, 0o666);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ELOOP') throw this.linkError(parent.dir, parts);
      throw err;
    } finally {
      parent.close();
    }
  }

  /** Makes the folder `requested` and those above it, one at a time, none through a link. */
  makeFolders(requested: string): void {
    const parts = this.parts(requested);
    if (!parts.length) return;
    this.inParent([...parts, '.'], true, () => undefined);
  }

  /** The folder `parts` (its last name inside `dir`), entered without following a link. */
  private enter(dir: string, parts: readonly string[], create: boolean, fds: number[]): string | undefined {
    const at = path.join(dir, parts[parts.length - 1]!);
    for (let attempt = 0; ; attempt++) {
      try {
        if (!PROC_FD) {
          const stat = fs.lstatSync(at);
          if (!stat.isDirectory()) throw Object.assign(new Error('not a folder'), { code: stat.isSymbolicLink() ? 'ELOOP' : 'ENOTDIR' });
          return at;
        }
        const fd = fs.openSync(at, DIR_FLAGS);
        fds.push(fd);
        return `/proc/self/fd/${fd}`;
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'ENOENT' && create && attempt === 0) {
          try {
            fs.mkdirSync(at);
          } catch (made) {
            if ((made as NodeJS.ErrnoException).code !== 'EEXIST') throw made;
          }
          continue;
        }
        if (code === 'ENOENT') return undefined;
        if (code === 'ELOOP' || code === 'ENOTDIR') {
          if (isLink(at)) throw this.linkError(dir, parts);
          throw new DoorError(`${parts.join('/')} is not a folder`, 'kind');
        }
        throw err;
      }
    }
  }

  /** What `requested` is, without following any link (a link on the way throws). */
  entry(requested: string): DoorEntry {
    const parts = this.parts(requested);
    if (!parts.length) return { kind: 'dir' };
    return (
      this.inParent(parts, false, (dir, name) => {
        let stat: fs.Stats;
        try {
          stat = fs.lstatSync(path.join(dir, name));
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'missing' } as const;
          throw err;
        }
        if (stat.isSymbolicLink()) return { kind: 'link', ...this.linkAt(dir, name, parts) } as const;
        if (stat.isFile()) return { kind: 'file', size: stat.size, mode: stat.mode & 0o777, links: stat.nlink } as const;
        return stat.isDirectory() ? ({ kind: 'dir' } as const) : ({ kind: 'other' } as const);
      }) ?? { kind: 'missing' }
    );
  }

  /** A regular file's bytes (at most `maxBytes`), undefined when it does not exist; a link or anything else throws. */
  readFile(requested: string, maxBytes = Number.MAX_SAFE_INTEGER): Buffer | undefined {
    const parts = this.parts(requested);
    return this.inParent(parts, false, (dir, name) => {
      let fd: number;
      try {
        fd = fs.openSync(path.join(dir, name), O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'ENOENT') return undefined;
        if (code === 'ELOOP') throw this.linkError(dir, parts);
        throw err;
      }
      try {
        const stat = fs.fstatSync(fd);
        if (!stat.isFile()) throw new DoorError(`${parts.join('/')} is not a regular file`, 'kind');
        // Read to the end, not to the size fstat gave: a file may grow, and /proc's report 0.
        const chunks: Buffer[] = [];
        let total = 0;
        while (total < maxBytes) {
          const chunk = Buffer.alloc(Math.min(Math.max(stat.size - total, 0) + 1, 1 << 20, maxBytes - total));
          const n = fs.readSync(fd, chunk, 0, chunk.length, null);
          if (n === 0) break;
          chunks.push(chunk.subarray(0, n));
          total += n;
        }
        return Buffer.concat(chunks, total);
      } finally {
        fs.closeSync(fd);
      }
    });
  }

  /**
   * Writes a regular file, making its folders one at a time. Whatever is at the
   * path now (a link, a file) is replaced, never written through: the new file
   * is made beside it under a temporary name, then renamed over it.
   */
  writeFile(requested: string, data: Buffer | string, mode?: number): void {
    const parts = this.parts(requested);
    this.inParent(parts, true, (dir, name) => {
      // Random, not the time: two writes of one name in the same millisecond must not meet (O_EXCL would refuse the second).
      const temp = path.join(dir, `.${name}.skein-${process.pid}-${crypto.randomBytes(6).toString('hex')}`);
      const fd = fs.openSync(temp, O_WRONLY | O_CREAT | O_EXCL | O_TRUNC | O_NOFOLLOW, 0o666);
      try {
        fs.writeSync(fd, typeof data === 'string' ? Buffer.from(data) : data);
        // The file's old mode when it replaces one (an executable stays one); else the umask's.
        if (mode !== undefined) fs.fchmodSync(fd, mode);
      } finally {
        fs.closeSync(fd);
      }
      try {
        removeEntry(path.join(dir, name), true);
        fs.renameSync(temp, path.join(dir, name));
      } catch (err) {
        fs.rmSync(temp, { force: true });
        throw err;
      }
    });
  }

  /** Makes a symbolic link (a link copied as a link), replacing what is there. */
  makeLink(requested: string, target: string): void {
    const parts = this.parts(requested);
    this.inParent(parts, true, (dir, name) => {
      removeEntry(path.join(dir, name), true);
      fs.symlinkSync(target, path.join(dir, name));
    });
  }

  /** Removes a file or link (a link itself, never its target); nothing when it is not there. */
  remove(requested: string): void {
    const parts = this.parts(requested);
    this.inParent(parts, false, (dir, name) => removeEntry(path.join(dir, name), false));
  }
}

/** Unlinks a file or link; a folder in the way is refused unless `emptyDirOk` and it is empty. */
function removeEntry(at: string, emptyDirOk: boolean): void {
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(at);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  if (stat.isDirectory()) {
    if (!emptyDirOk) throw new DoorError(`${path.basename(at)} is a folder, not a file`, 'kind');
    fs.rmdirSync(at);
    return;
  }
  fs.unlinkSync(at);
}

function isLink(p: string): boolean {
  try {
    return fs.lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}

/**
 * A regular file's bytes at an absolute path whose last name must not be a
 * link (a repository's `.git/index` linked to a key is not copied);
 * undefined when it does not exist.
 */
export function readNoFollow(file: string): Buffer | undefined {
  const door = new Door(path.dirname(file));
  return door.readFile(path.basename(file));
}
