// git commands that talk to a remote (push): a remote that never answers (a
// host that accepts and stays silent, a proxy that hangs) must not hold a
// session for ever. Such a command runs as the leader of its own process
// group (spawn host's `run`), so a timeout or the user's cancel kills git and
// every helper it started (ssh, git-remote-http) at once.
import { runOffLoop } from '../spawn/off-loop.js';
import { gitCommand, GitError, type Hardening } from './git.js';

/** Why a network command was stopped before it ended. */
export class GitStoppedError extends GitError {
  constructor(message: string, readonly why: 'timeout' | 'cancelled') {
    super(message);
  }
}

export interface NetworkLimits {
  /** Killed after this many ms. */
  timeoutMs: number;
  /** Aborted: killed at once (the user's cancel). */
  signal?: AbortSignal;
}

/** Runs `git ...args` in `cwd` with `hardening`; exit 0 resolves with its output, anything else rejects with git's own words. */
export async function gitNetwork(cwd: string, args: string[], hardening: Hardening, limits: NetworkLimits): Promise<string> {
  const what = `git ${args[0] ?? ''}`;
  if (limits.signal?.aborted) throw new GitStoppedError(`${what} was cancelled before it started`, 'cancelled');
  const { binary, full } = await gitCommand(args, hardening.ignoreSubmodules);
  let group: number | undefined;
  let stopped: 'timeout' | 'cancelled' | undefined;
  const kill = (why: 'timeout' | 'cancelled') => {
    stopped ??= why;
    if (group === undefined) return; // killed as soon as it is spawned
    try {
      process.kill(-group, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  const timer = setTimeout(() => kill('timeout'), limits.timeoutMs);
  const onAbort = () => kill('cancelled');
  limits.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const outcome = await runOffLoop(
      { file: binary, args: full, cwd, env: hardening.env, memoryLimit: 1024 * 1024, quietMs: 100, maxAfterExitMs: 2000 },
      {
        spawned(pid) {
          group = pid;
          if (stopped) kill(stopped);
        },
        exited() {},
      },
    );
    if (stopped === 'timeout') throw new GitStoppedError(`${what} got no answer from the remote within ${seconds(limits.timeoutMs)} and was stopped (SKEIN_GIT_NETWORK_TIMEOUT_MS)`, 'timeout');
    if (stopped === 'cancelled') throw new GitStoppedError(`${what} was cancelled`, 'cancelled');
    if (outcome.startError) throw new GitError(`${what} failed: ${outcome.startError}`);
    if (outcome.code !== 0) throw new GitError(`${what} failed: ${outcome.text.trim().split('\n').slice(0, 3).join(' ') || `exit code ${outcome.code}`}`);
    return outcome.text;
  } finally {
    clearTimeout(timer);
    limits.signal?.removeEventListener('abort', onAbort);
  }
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
