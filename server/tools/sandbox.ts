// SKEIN_SANDBOX=workspace: bash runs under bubblewrap. The whole filesystem is
// read-only except the working folder and a private /tmp; the network is gone
// unless SKEIN_SANDBOX_NETWORK=on; a new PID namespace ends every process the
// command started when it exits (its pid 1 is bwrap's, and the kernel kills
// the rest of the namespace with it), and --die-with-parent ends it with skein.
import { spawnSync } from 'node:child_process';

export interface SandboxSettings {
  /** SKEIN_SANDBOX_NETWORK=on: keep the host's network. */
  network: boolean;
  /** The bubblewrap binary (default `bwrap` on PATH). */
  binary?: string;
}

export const SANDBOX_MODES = ['off', 'workspace'] as const;
export type SandboxMode = (typeof SANDBOX_MODES)[number];

/** The command line that runs `argv` inside the sandbox, working in `workDir`. */
export function sandboxCommand(settings: SandboxSettings, workDir: string, argv: readonly string[]): { file: string; args: string[] } {
  const args = [
    '--ro-bind', '/', '/',
    '--dev', '/dev',
    '--proc', '/proc',
    // Before the working folder: a folder under /tmp stays visible and writable.
    '--tmpfs', '/tmp',
    '--bind', workDir, workDir,
    '--unshare-pid',
    '--die-with-parent',
    ...(settings.network ? [] : ['--unshare-net']),
    '--chdir', workDir,
    '--',
    ...argv,
  ];
  return { file: settings.binary ?? 'bwrap', args };
}

/** bubblewrap cannot start here: skein refuses SKEIN_SANDBOX=workspace rather than run bash unconfined. */
export class SandboxUnavailableError extends Error {}

/**
 * Runs `true` in the sandbox once, at start. Throws SandboxUnavailableError
 * with what bubblewrap said (missing binary, no user namespaces, ...).
 */
export function probeSandbox(settings: SandboxSettings, workDir: string): void {
  const { file, args } = sandboxCommand(settings, workDir, ['true']);
  const result = spawnSync(file, args, { encoding: 'utf8', timeout: 10_000, stdio: ['ignore', 'pipe', 'pipe'] });
  if (result.status === 0) return;
  const why = result.error
    ? (result.error as NodeJS.ErrnoException).code === 'ENOENT'
      ? `${file} is not installed (Debian/Ubuntu: apt-get install bubblewrap)`
      : result.error.message
    : (result.stderr.trim() || `${file} exited with ${result.status ?? result.signal}`);
  throw new SandboxUnavailableError(
    `SKEIN_SANDBOX=workspace: bubblewrap cannot start a sandbox here (${why}); skein will not run bash unconfined. ` +
      'Allow unprivileged user namespaces (e.g. sysctl kernel.unprivileged_userns_clone=1), or set SKEIN_SANDBOX=off.',
  );
}
