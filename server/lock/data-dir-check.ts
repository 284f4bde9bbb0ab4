// The data folder made and checked before anything is written in it, so that
// a bad one is one clear line: a regular file, a folder another user owns, a
// path that cannot be made. Node's recursive mkdir loops for ever on some
// paths (`/proc/x`: mkdir answers ENOENT though the parent exists), so the
// missing folders are made one at a time.
import fs from 'node:fs';
import path from 'node:path';
import { machineLockSystem, type LockSystem } from './lock-system.js';

/** The data folder cannot be used; the message says why and what to do. */
export class DataDirUnusableError extends Error {
  override readonly name = 'DataDirUnusableError';
}

/** `system`: the machine's file calls and uid (a test passes its own to reach the refusals root never gets). */
export function prepareDataDir(dataDir: string, system: Pick<LockSystem, 'fs' | 'uid'> = machineLockSystem()): void {
  const { fs: files } = system;
  const statOf = (p: string): fs.Stats | undefined => {
    try {
      return files.statSync(p);
    } catch {
      return undefined;
    }
  };
  const dir = path.resolve(dataDir);
  const missing: string[] = [];
  let existing = dir;
  for (;;) {
    const stat = statOf(existing);
    if (stat) {
      if (!stat.isDirectory()) throw new DataDirUnusableError(`the data folder ${dir} cannot be used: ${existing} is ${stat.isFile() ? 'a regular file' : 'not a folder'}; give SKEIN_DATA_DIR (--data-dir) a folder`);
      break;
    }
    missing.unshift(existing);
    const parent = path.dirname(existing);
    if (parent === existing) break;
    existing = parent;
  }
  for (const folder of missing) {
    try {
      files.mkdirSync(folder, { mode: 0o700 });
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      if (e.code === 'EEXIST' && statOf(folder)?.isDirectory()) continue;
      throw new DataDirUnusableError(`the data folder ${dir} cannot be made: ${folder}: ${reason(e)}; give SKEIN_DATA_DIR (--data-dir) a folder you can write`);
    }
  }
  try {
    files.accessSync(dir, fs.constants.W_OK | fs.constants.X_OK | fs.constants.R_OK);
  } catch (err) {
    const owner = statOf(dir)?.uid;
    const me = system.uid();
    const whose = owner !== undefined && me !== undefined && owner !== me ? `it belongs to another user (uid ${owner}; you are ${me})` : reason(err as NodeJS.ErrnoException);
    throw new DataDirUnusableError(`the data folder ${dir} is not writable by you: ${whose}; give SKEIN_DATA_DIR (--data-dir) your own folder`);
  }
}

function reason(err: NodeJS.ErrnoException): string {
  const known: Record<string, string> = {
    EACCES: 'permission denied',
    EPERM: 'not permitted',
    EROFS: 'a read-only file system',
    ENOENT: 'it cannot be created there',
    ENOTDIR: 'a part of the path is not a folder',
    ENOSPC: 'no space left',
  };
  return known[err.code ?? ''] ?? err.message;
}
