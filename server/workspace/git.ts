// Runs the server's own git without a shell: arguments as a list, output as
// text, a clear error naming the command when git fails. Every command is
// hardened (git-hardening.ts): whatever the repository's config, hooks or
// attributes name, git runs no program of the repository's, with the sandbox
// on or off.
import fs from 'node:fs';
import path from 'node:path';
import { execOffLoop } from '../spawn/off-loop.js';
import { gitEnvironment, overridesFor, parseConfigList, SUBCOMMAND_FLAGS } from './git-hardening.js';

export class GitError extends Error {
  override readonly name = 'GitError';
}

export interface GitResult {
  stdout: string;
  code: number;
}

/** The environment for every command in one repository (see `hardenedFor`). */
export interface Hardening {
  env: NodeJS.ProcessEnv;
  /** Too many submodules to read: status and diff do not look into their folders. */
  ignoreSubmodules: boolean;
}

/** The last PATH searched and what was found in it: every command asks, and each search stats every folder of PATH. */
let lastSearch: { path: string; found: string } | undefined;

/** The git executable, found in PATH's absolute folders only (never one in the folder git runs in). */
function gitBinary(): string | undefined {
  const searched = process.env.PATH ?? '';
  // Found before under this PATH and still there (a check of one file, not a search).
  if (lastSearch?.path === searched && isExecutableFile(lastSearch.found)) return lastSearch.found;
  const found = searchPath(searched);
  lastSearch = found === undefined ? undefined : { path: searched, found };
  return found;
}

function isExecutableFile(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

function searchPath(searched: string): string | undefined {
  for (const dir of searched.split(path.delimiter)) {
    if (!path.isAbsolute(dir)) continue;
    const candidate = path.join(dir, 'git');
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

/** GIT_CONFIG_COUNT, which carries every override, came with git 2.31; an older git would ignore it silently. */
const MIN_VERSION: readonly [number, number] = [2, 31];
const versionChecked = new Map<string, Promise<void>>();

function checkVersion(binary: string): Promise<void> {
  const known = versionChecked.get(binary);
  if (known) return known;
  const check = new Promise<void>((resolve, reject) => {
    void execOffLoop(binary, ['--version'], { env: gitEnvironment([]) }).then(({ stdout, code, message }) => {
      const [major = 0, minor = 0] = (/(\d+)\.(\d+)/.exec(stdout) ?? []).slice(1).map(Number);
      if (code === 0 && (major > MIN_VERSION[0] || (major === MIN_VERSION[0] && minor >= MIN_VERSION[1]))) return resolve();
      versionChecked.delete(binary);
      reject(new GitError(`git ${MIN_VERSION.join('.')} or newer is needed (so that skein can keep the repository's programs from running); ${binary} is ${stdout.trim() || message}`));
    });
  });
  versionChecked.set(binary, check);
  return check;
}

/** The git executable, checked new enough, and `args` with the flags skein adds after the subcommand. */
export async function gitCommand(args: string[], ignoreSubmodules = false): Promise<{ binary: string; full: string[] }> {
  const binary = gitBinary();
  if (!binary) throw new GitError(`git ${args.slice(0, 3).join(' ')} failed: git is not installed (not found on PATH)`);
  await checkVersion(binary);
  const subcommand = args[0] ?? '';
  const skipSubmodules = ignoreSubmodules && (subcommand === 'diff' || subcommand === 'status') ? ['--ignore-submodules=dirty'] : [];
  return { binary, full: [subcommand, ...(SUBCOMMAND_FLAGS[subcommand] ?? []), ...skipSubmodules, ...args.slice(1)] };
}

async function run(cwd: string, args: string[], okCodes: number[], env: NodeJS.ProcessEnv, ignoreSubmodules = false): Promise<GitResult> {
  const { binary, full } = await gitCommand(args, ignoreSubmodules);
  // Started by the spawn host (spawn/off-loop.ts): a program's start holds no event loop.
  const { stdout, stderr, code, message } = await execOffLoop(binary, full, { cwd, env, maxBuffer: 64 * 1024 * 1024 });
  if (okCodes.includes(code)) return { stdout, code };
  const reason = (stderr || (message ?? '')).trim().split('\n').slice(0, 3).join(' ');
  throw new GitError(`git ${args.slice(0, 3).join(' ')} failed: ${reason || `exit code ${code}`}`);
}

/** At most this many populated submodules are looked into; beyond that, git is told to ignore their working folders. */
const MAX_SUBMODULES = 64;

/**
 * Reads the effective config of the repository at each of `dirs` and of every
 * populated submodule in them (reading config runs nothing), and returns the
 * environment that neutralises every program it names. `git status` and
 * `git diff` look into a submodule with a git of its own, which inherits this
 * environment, so the submodules' config is covered too. Read once per
 * operation: a batch of commands shares it.
 */
export async function hardenedFor(...dirs: string[]): Promise<Hardening> {
  return harden(dirs, {});
}

/**
 * `hardenedFor` one work tree, with where its git folder, common git folder
 * and top are now pinned for the whole batch (GIT_DIR, GIT_COMMON_DIR,
 * GIT_WORK_TREE): a `.git` file or a `commondir` rewritten in the middle of
 * the batch cannot point git at a config the overrides were not made for.
 */
export async function pinnedFor(dir: string): Promise<Hardening> {
  const { stdout } = await run(dir, ['rev-parse', '--absolute-git-dir', '--path-format=absolute', '--git-common-dir', '--show-toplevel'], [0], gitEnvironment([]));
  const [gitDir, commonDir, top] = stdout.split('\n');
  if (!gitDir || !commonDir || !top) throw new GitError(`git rev-parse in ${dir} did not name its git folder and top`);
  return harden([dir], { GIT_DIR: gitDir, GIT_COMMON_DIR: commonDir, GIT_WORK_TREE: top });
}

async function harden(dirs: string[], pin: NodeJS.ProcessEnv): Promise<Hardening> {
  const bare = gitEnvironment([]);
  const entries = [];
  const seen = new Set<string>();
  const queue = [...dirs];
  let overflow = false;
  while (queue.length) {
    const dir = queue.shift()!;
    if (seen.has(dir)) continue;
    if (seen.size >= dirs.length + MAX_SUBMODULES) {
      overflow = true;
      break;
    }
    // The pin is for the given folders; a submodule has a git folder of its own.
    const env = dirs.includes(dir) ? { ...bare, ...pin } : bare;
    seen.add(dir);
    // Outside a repository this lists the user's own config only, which is fine.
    entries.push(...parseConfigList((await run(dir, ['config', '--list', '--show-scope', '-z'], [0], env)).stdout));
    queue.push(...(await populatedSubmodules(dir, env)));
  }
  return { env: { ...gitEnvironment(overridesFor(entries)), ...pin }, ignoreSubmodules: overflow };
}

/** Submodules (gitlinks in the index) whose folder has a `.git`, as absolute paths. */
async function populatedSubmodules(dir: string, env: NodeJS.ProcessEnv): Promise<string[]> {
  const listed = await run(dir, ['ls-files', '-z', '--stage', '--', ':/'], [0, 128], env);
  if (listed.code !== 0) return []; // not a repository
  const found: string[] = [];
  for (const entry of listed.stdout.split('\0')) {
    const tab = entry.indexOf('\t');
    if (!entry.startsWith('160000 ') || tab < 0) continue;
    const sub = path.resolve(dir, entry.slice(tab + 1));
    if (fs.existsSync(path.join(sub, '.git'))) found.push(sub);
  }
  return found;
}

/** Runs `git ...args` in `cwd`, hardened. Exit codes in `okCodes` (default 0) resolve; others reject with git's own message. */
export async function git(cwd: string, args: string[], okCodes: number[] = [0], hardening?: Hardening): Promise<GitResult> {
  const { env, ignoreSubmodules } = hardening ?? (await hardenedFor(cwd));
  return run(cwd, args, okCodes, env, ignoreSubmodules);
}

/**
 * The hardening of `dir` plus variables of skein's own (GIT_INDEX_FILE, so a
 * checkpoint uses an index of its own and never the user's; a fixed identity).
 */
export async function hardenedWith(dir: string, extraEnv: Record<string, string>): Promise<Hardening> {
  return withVariables(await hardenedFor(dir), extraEnv);
}

/**
 * Whether `dir` or a folder above it has a `.git` entry. Without one, git
 * finds no work tree there (the variables that could point it elsewhere are
 * never passed on), and asking git costs three programs: most tool calls
 * outside a repository would start them for nothing. Anything but "not
 * there" (a folder that cannot be read) counts as maybe, and git decides.
 */
export function mayBeInWorkTree(dir: string): boolean {
  for (let at = path.resolve(dir); ; at = path.dirname(at)) {
    try {
      fs.lstatSync(path.join(at, '.git'));
      return true;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') return true;
    }
    if (path.dirname(at) === at) return false;
  }
}

export interface WorkTreeBatch {
  hardening: Hardening;
  /** The work tree's git folder (for a linked worktree, its own under the common one). */
  gitDir: string;
}

/**
 * For a batch of commands in the work tree `dir` is in: its hardening, pinned
 * to its git folder (see `pinnedFor`), and that folder. Undefined outside a
 * work tree, and when git is missing or too old.
 */
export async function workTreeBatch(dir: string): Promise<WorkTreeBatch | undefined> {
  if (!mayBeInWorkTree(dir)) return undefined;
  try {
    const hardening = await pinnedFor(dir);
    return { hardening, gitDir: hardening.env.GIT_DIR! };
  } catch (err) {
    if (err instanceof GitError) return undefined;
    throw err;
  }
}

/** `hardening` with variables of skein's own added (see `hardenedWith`). */
export function withVariables(hardening: Hardening, extraEnv: Record<string, string>): Hardening {
  return { ...hardening, env: { ...hardening.env, ...extraEnv } };
}

/** The repository's top folder when `dir` is inside a git work tree, else undefined (also when git is missing). */
export async function repoTop(dir: string): Promise<string | undefined> {
  if (!mayBeInWorkTree(dir)) return undefined;
  try {
    const { stdout } = await git(dir, ['rev-parse', '--show-toplevel']);
    return stdout.trim() || undefined;
  } catch {
    return undefined;
  }
}

/** HEAD's commit, or undefined in a repository with no commit yet. */
export async function headCommit(dir: string, hardening?: Hardening): Promise<string | undefined> {
  const { stdout, code } = await git(dir, ['rev-parse', '--verify', '--quiet', 'HEAD'], [0, 1], hardening);
  return code === 0 ? stdout.trim() : undefined;
}

/** The checked-out branch, or undefined on a detached HEAD. */
export async function currentBranch(dir: string, hardening?: Hardening): Promise<string | undefined> {
  const { stdout, code } = await git(dir, ['symbolic-ref', '--quiet', '--short', 'HEAD'], [0, 1], hardening);
  return code === 0 ? stdout.trim() : undefined;
}
