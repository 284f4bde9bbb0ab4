// Runs git without a shell: arguments as a list, output as text, a clear
// error naming the command when git fails.
import { execFile } from 'node:child_process';

export class GitError extends Error {
  override readonly name = 'GitError';
}

export interface GitResult {
  stdout: string;
  code: number;
}

/**
 * Runs `git ...args` in `cwd`. Exit codes in `okCodes` (default 0) resolve; others reject with git's own message.
 * `extraEnv`: e.g. GIT_INDEX_FILE, so checkpoints use an index of their own and never the user's.
 */
export function git(cwd: string, args: string[], okCodes: number[] = [0], extraEnv: Record<string, string> = {}): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    // No pager, no prompts, plain English messages (they are shown to people as they are).
    const env = { ...process.env, ...extraEnv, GIT_TERMINAL_PROMPT: '0', GIT_PAGER: 'cat', LC_ALL: 'C' };
    execFile('git', args, { cwd, env, maxBuffer: 64 * 1024 * 1024, encoding: 'utf8' }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? ((err as { code: number }).code) : -1) : 0;
      if (okCodes.includes(code)) return resolve({ stdout, code });
      const reason = (stderr || (err?.message ?? '')).trim().split('\n').slice(0, 3).join(' ');
      reject(new GitError(`git ${args.slice(0, 3).join(' ')} failed: ${reason || `exit code ${code}`}`));
    });
  });
}

/** The repository's top folder when `dir` is inside a git work tree, else undefined (also when git is missing). */
export async function repoTop(dir: string): Promise<string | undefined> {
  try {
    const { stdout } = await git(dir, ['rev-parse', '--show-toplevel']);
    return stdout.trim() || undefined;
  } catch {
    return undefined;
  }
}

/** HEAD's commit, or undefined in a repository with no commit yet. */
export async function headCommit(dir: string): Promise<string | undefined> {
  const { stdout, code } = await git(dir, ['rev-parse', '--verify', '--quiet', 'HEAD'], [0, 1]);
  return code === 0 ? stdout.trim() : undefined;
}

/** The checked-out branch, or undefined on a detached HEAD. */
export async function currentBranch(dir: string): Promise<string | undefined> {
  const { stdout, code } = await git(dir, ['symbolic-ref', '--quiet', '--short', 'HEAD'], [0, 1]);
  return code === 0 ? stdout.trim() : undefined;
}
