// What the data-folder lock asks of the machine: which lock the platform has,
// this process's pid and host, whether another pid runs, and the file calls.
// Passed in (the real machine by default), so a test can walk what one
// machine never shows: the file lock of a system without an abstract socket,
// a holder's pid that is gone or another user's, a host name that changes,
// two first starts racing for the key file, a folder refused to this user.
import fs from 'node:fs';
import os from 'node:os';

export type LockFs = Pick<typeof fs, 'statSync' | 'mkdirSync' | 'accessSync' | 'readFileSync' | 'writeFileSync' | 'renameSync' | 'linkSync' | 'rmSync' | 'realpathSync'>;

export interface LockSystem {
  /** An abstract Unix socket is the lock (Linux); elsewhere the lock file itself is. */
  kernelLock: boolean;
  pid: number;
  hostname(): string;
  /** `process.kill(pid, 0)`: returns when the process runs; throws ESRCH when none does, EPERM when it is another user's. */
  probePid(pid: number): void;
  /** This process's uid (undefined where there is none: Windows). */
  uid(): number | undefined;
  fs: LockFs;
}

/** The machine this process runs on, read when a lock is taken (not at import). */
export function machineLockSystem(): LockSystem {
  return {
    kernelLock: process.platform === 'linux',
    pid: process.pid,
    hostname: () => os.hostname(),
    probePid: (pid) => void process.kill(pid, 0),
    uid: () => process.getuid?.(),
    fs,
  };
}
