// SKEIN_SANDBOX=workspace: bash and MCP stdio servers run under bubblewrap.
//
// Built here rather than on a dependency. We studied Anthropic's
// sandbox-runtime (bubblewrap + a seccomp filter against AF_UNIX sockets, a
// list of files never writable) and Codex's Linux sandbox (Landlock plus
// seccomp in a helper binary, .git read-only under workspace-write) and took
// what they do. Not sandbox-runtime itself: it ships prebuilt native binaries
// for its filter (the helper that applies it, per architecture), mounts from
// `/` down, adds socat bridges we do not need, and lets bwrap leave empty
// files in the user's folder. Not Codex's: it is a Rust binary. What skein
// does instead is small: bwrap arguments (sandbox/mounts.ts), a classic BPF
// program assembled in TypeScript and handed to bwrap's --seccomp
// (sandbox/seccomp.ts), git's metadata split (sandbox/git-metadata.ts) and
// stand-ins for protected files that do not exist yet (sandbox/placeholders.ts).
// docs/sandbox-and-security.md ("The sandbox's threat model") says what this holds and what it does not.
//
// Besides the mounts: the network is gone unless SKEIN_SANDBOX_NETWORK=on; a
// new PID namespace ends every process the command started when it exits (its
// pid 1 is bwrap's, and the kernel kills the rest of the namespace with it)
// and shows a /proc of the sandbox's processes only; --die-with-parent ends
// it with the spawn host that started it (spawn/off-loop.ts), which ends
// with skein. bwrap itself is started with the tool's scrubbed environment
// (the caller's), so its /proc/1/environ holds no secret either.
//
// Plan mode runs bash in a read-only variant of the same sandbox
// (`readOnlyProject`, see sandbox/read-only.ts): same mounts, filter and
// namespaces, with nothing of the host writable.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { execOffLoop } from '../spawn/off-loop.js';
import { currentToolEnvironment } from './env.js';
import { mountPlan } from './sandbox/mounts.js';
import { usePlaceholderList } from './sandbox/placeholders.js';
import { printfEscaped, seccompFilter, seccompSupported } from './sandbox/seccomp.js';

export { PROTECTED_PROJECT_PATHS, isProtectedProjectPath } from './sandbox/protected-paths.js';

export interface SandboxSettings {
  /** SKEIN_SANDBOX_NETWORK=on: keep the host's network. */
  network: boolean;
  /** The bubblewrap binary (default `bwrap` on PATH). */
  binary?: string;
  /** SKEIN_DATA_DIR: hidden inside the sandbox, also when it lies in the working folder. */
  dataDir?: string;
  /** The home folder (default: the server's): replaced by an empty one. */
  home?: string;
  /** SKEIN_SANDBOX_READ: more folders shown read-only. */
  readOnly?: readonly string[];
  /** Plan mode: the working folder read-only too; a command can write only to its private /tmp and /var/tmp. */
  readOnlyProject?: boolean;
}

export const SANDBOX_MODES = ['off', 'workspace'] as const;
export type SandboxMode = (typeof SANDBOX_MODES)[number];

/** The sandbox settings of a server's configuration; undefined with SKEIN_SANDBOX=off. */
export function sandboxSettingsOf(config: { sandbox: SandboxMode; sandboxNetwork: boolean; dataDir: string; sandboxRead?: readonly string[] }): SandboxSettings | undefined {
  if (config.sandbox !== 'workspace') return undefined;
  return { network: config.sandboxNetwork, dataDir: config.dataDir, ...(config.sandboxRead?.length && { readOnly: config.sandboxRead }) };
}

export interface SandboxLaunch {
  file: string;
  args: string[];
  /** Call once the process has exited: removes the stand-ins it alone held (see sandbox/placeholders.ts). */
  release(): void;
}

/**
 * The command line that runs `argv` inside the sandbox, working in `workDir`.
 * bash starts bwrap with the seccomp program on fd 3 (printf into a pipe: no
 * file to write or to be swapped), so the same line works where skein cannot
 * pass extra fds (the MCP SDK spawns stdio servers itself).
 */
export function sandboxCommand(settings: SandboxSettings, workDir: string, argv: readonly string[]): SandboxLaunch {
  const plan = mountPlan({
    workDir,
    ...(settings.dataDir && { dataDir: settings.dataDir }),
    ...(settings.home && { home: settings.home }),
    ...(settings.readOnly && { readOnly: settings.readOnly }),
    ...(settings.readOnlyProject && { readOnlyProject: true }),
  });
  const gitconfig = plan.privateHome ? userGitIdentity() : '';
  const args = [
    '-c',
    'filter=$1 gitconfig=$2; shift 2; exec "$@" 3< <(printf "$filter") 4< <(printf "$gitconfig")',
    'skein-sandbox',
    printfEscaped(seccompFilter()),
    printfEscaped(Buffer.from(gitconfig)),
    settings.binary ?? 'bwrap',
    ...plan.args,
    // The private home gets a .gitconfig with the user's name and email only (commits need them; the rest of theirs stays outside).
    ...(gitconfig && plan.privateHome ? ['--file', '4', path.join(plan.privateHome, '.gitconfig')] : []),
    // After every mount (nothing can be made inside a read-only one).
    ...plan.remountReadOnly.flatMap((p) => ['--remount-ro', p]),
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    // Run as root, bwrap keeps the caller's capabilities inside (CAP_SYS_ADMIN: mount, unshare of every kind); none are needed.
    '--cap-drop', 'ALL',
    '--die-with-parent',
    ...(settings.network ? [] : ['--unshare-net']),
    '--seccomp', '3',
    // The real path: the mounts are made there (a link on the way would not exist inside).
    '--chdir', plan.workDir,
    '--',
    ...argv,
  ];
  return { file: 'bash', args, release: plan.release };
}

let identity: string | undefined;

/** `[user]` name and email of the user's global git configuration, read once (git run with no repository and no system config). */
function userGitIdentity(): string {
  if (identity !== undefined) return identity;
  const lines: string[] = [];
  for (const key of ['name', 'email']) {
    const result = spawnSync('git', ['config', '--global', '--get', `user.${key}`], { encoding: 'utf8', timeout: 5000, cwd: '/', env: { ...currentToolEnvironment(), GIT_CONFIG_NOSYSTEM: '1' } });
    const value = result.status === 0 ? result.stdout.trim() : '';
    // A value is written quoted; one that would need more than that is left out.
    if (value && !/["\\\n]/.test(value)) lines.push(`\t${key} = "${value}"`);
  }
  identity = lines.length ? `[user]\n${lines.join('\n')}\n` : '';
  return identity;
}

/** bubblewrap cannot start here: skein refuses SKEIN_SANDBOX=workspace rather than run bash unconfined. */
export class SandboxUnavailableError extends Error {}

/** Why bubblewrap cannot give a sandbox here, and what would let it (when something would, short of not sandboxing). */
export interface SandboxProblem {
  why: string;
  fix?: string;
}

/** Exit code of the probe when bash finds no seccomp filter on itself. */
const NO_FILTER = 93;

/** bash builtins only: /proc/self/status says "Seccomp: 2" when a filter is in force. */
const FILTER_CHECK = `while read -r k v; do [ "$k" = Seccomp: ] && [ "$v" = 2 ] && exit 0; done < /proc/self/status; exit ${NO_FILTER}`;

const NO_SECCOMP_HERE: SandboxProblem = { why: `the seccomp filter knows x86_64 and aarch64, not ${process.arch}` };

/** What the probe's end says: nothing when the sandbox works. */
function problemOf(binary: string, exit: { code: number | null; signal?: string | null; error?: string; stderr: string }): SandboxProblem | undefined {
  if (exit.code === 0) return undefined;
  if (exit.code === NO_FILTER) return { why: 'the seccomp filter was not applied', fix: 'Use a bubblewrap with --seccomp (0.3 or later) on a kernel with seccomp' };
  const stderr = exit.stderr.trim();
  // bash found no such program.
  if (exit.error === undefined && exit.code === 127) return { why: `${binary} is not installed (Debian/Ubuntu: apt-get install bubblewrap)`, fix: 'Install bubblewrap' };
  const why = exit.error ?? (stderr || `${binary} exited with ${exit.code ?? exit.signal}`);
  return { why, fix: 'Allow unprivileged user namespaces (e.g. sysctl kernel.unprivileged_userns_clone=1)' };
}

/**
 * Runs a check in the sandbox once, at start: bwrap starts with every mount
 * and the seccomp filter, and the filter is in force. Throws
 * SandboxUnavailableError with what went wrong (missing binary, no user
 * namespaces, no seccomp, an architecture the filter does not know). Also
 * removes stand-ins a killed server left (their list is in the data folder).
 */
export function probeSandbox(settings: SandboxSettings, workDir: string): void {
  const refuse = ({ why, fix }: SandboxProblem) =>
    new SandboxUnavailableError(`SKEIN_SANDBOX=workspace: bubblewrap cannot start a sandbox here (${why}); skein will not run bash unconfined. ${fix ? `${fix}, or set` : 'Set'} SKEIN_SANDBOX=off.`);
  if (!seccompSupported()) throw refuse(NO_SECCOMP_HERE);
  if (settings.dataDir) usePlaceholderList(path.join(settings.dataDir, 'sandbox-placeholders.json'));
  const launch = sandboxCommand(settings, workDir, ['bash', '-c', FILTER_CHECK]);
  let result;
  try {
    // The tools' environment, as every sandbox gets: not the server's own (its keys would be bwrap's /proc/1/environ).
    result = spawnSync(launch.file, launch.args, { encoding: 'utf8', timeout: 10_000, stdio: ['ignore', 'pipe', 'pipe'], env: { ...currentToolEnvironment() } });
  } finally {
    launch.release();
  }
  const problem = problemOf(settings.binary ?? 'bwrap', { code: result.status, signal: result.signal, ...(result.error && { error: result.error.message }), stderr: result.stderr ?? '' });
  if (problem) throw refuse(problem);
}

/**
 * The same check, started off the event loop (spawn/off-loop.ts) for a
 * server that is running: what keeps the sandbox from starting, or nothing.
 * Plan mode asks it before its first command (sandbox/read-only.ts).
 */
export async function sandboxProblem(settings: SandboxSettings, workDir: string): Promise<SandboxProblem | undefined> {
  if (!seccompSupported()) return NO_SECCOMP_HERE;
  let launch;
  try {
    launch = sandboxCommand(settings, workDir, ['bash', '-c', FILTER_CHECK]);
  } catch (err) {
    return { why: `its mounts could not be set up: ${(err as Error).message}` };
  }
  try {
    const result = await execOffLoop(launch.file, launch.args, { cwd: '/', env: { ...currentToolEnvironment() }, timeout: 10_000 });
    // -1: killed (the message is the whole command line: not repeated), or bash itself could not start (the message says why).
    const killed = result.message?.startsWith('Command failed') === true;
    const error = killed ? 'the check was killed or did not end within 10 s' : (result.message ?? 'bash could not start');
    return problemOf(settings.binary ?? 'bwrap', { code: result.code, ...(result.code === -1 && { error }), stderr: result.stderr });
  } finally {
    launch.release();
  }
}
