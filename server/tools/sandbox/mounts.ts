// The filesystem a sandboxed process sees, as bwrap arguments. Not `/`: an
// empty root (bwrap's own tmpfs) with the system folders read-only, a private
// /tmp and home, a fresh /dev and /proc, the project (read-only up to its
// repository root, writable from the working folder down) and nothing else:
// no other home, /root, /run, /var/run (where host sockets live), /mnt,
// /media, /srv, the data folder (the token, every session's log, other
// sessions' worktrees), nor the host's /proc. Plan mode's read-only variant
// (`readOnlyProject`) shows the same, with the working folder and git's
// metadata read-only too and every tmpfs but /tmp and /var/tmp made read-only
// once set up: nothing a command does reaches the host.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gitMounts } from './git-metadata.js';
import { holdPlaceholder } from './placeholders.js';
import { PROTECTED_PROJECT_PATHS } from './protected-paths.js';

/** Read-only, when present: what programs, libraries and their configuration need. */
const SYSTEM_FOLDERS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc', '/opt', '/nix/store', '/snap'];

/** In /etc but nobody's business inside the sandbox: password hashes, host keys, stored credentials. */
export const ETC_SECRETS = ['/etc/shadow', '/etc/shadow-', '/etc/gshadow', '/etc/gshadow-', '/etc/security/opasswd', '/etc/ssl/private', '/etc/credstore', '/etc/credstore.encrypted'];

/** Hidden when the working folder is the home folder (or holds it): credentials of the user's tools. */
export const HOME_SECRETS = ['.ssh', '.aws', '.gnupg', '.kube', '.docker', '.azure', '.config/gcloud', '.config/gh', '.netrc', '.git-credentials', '.npmrc', '.pypirc', '.cargo/credentials.toml', '.skein'];

export interface MountInput {
  workDir: string;
  /** Hidden even when it lies inside the working folder (SKEIN_DATA_DIR). */
  dataDir?: string;
  home?: string;
  /** Extra folders shown read-only (SKEIN_SANDBOX_READ). */
  readOnly?: readonly string[];
  /** Plan mode: the working folder read-only as well; only /tmp and /var/tmp stay writable (private, gone after the command). */
  readOnlyProject?: boolean;
}

/** The sandbox's own scratch folders: writable in every variant (a tmpfs of its own). */
const SCRATCH = ['/tmp', '/var/tmp'];

export interface MountPlan {
  args: string[];
  /** The working folder's real path, where it is mounted. */
  workDir: string;
  /** The sandbox's own empty home, when it has one. */
  privateHome: string | undefined;
  /** Mounts to make read-only once everything is in place (`--remount-ro`, last: nothing can be mounted inside them after). */
  remountReadOnly: string[];
  /** Ends the placeholders this plan holds; call when the sandboxed process has exited. */
  release(): void;
}

/** `inner` is `outer` or inside it. */
export function within(outer: string, inner: string): boolean {
  const rel = path.relative(outer, inner);
  // The folder itself gives '' (neither '..' nor absolute).
  return !rel.startsWith('..') && !path.isAbsolute(rel);
}

function exists(p: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(p);
  } catch {
    return undefined;
  }
}

/** The nearest folder from `dir` up that holds `.git`. */
function repoRootOf(dir: string): string | undefined {
  for (let d = dir; ; d = path.dirname(d)) {
    if (exists(path.join(d, '.git'))) return d;
    if (path.dirname(d) === d) return undefined;
  }
}

function systemArgs(): string[] {
  const args = systemFolderArgs(SYSTEM_FOLDERS);
  for (const secret of [...ETC_SECRETS, ...sshHostKeys()]) args.push(...hide(secret));
  args.push(...resolvConfArgs(safeRealpath('/etc/resolv.conf')));
  return args;
}

/** Each of `dirs` that exists, read-only; one that is a link stays the same link. */
export function systemFolderArgs(dirs: readonly string[]): string[] {
  const args: string[] = [];
  for (const dir of dirs) {
    const stat = exists(dir);
    if (!stat) continue;
    // Merged /usr: /bin -> usr/bin stays a link, as on the host.
    if (stat.isSymbolicLink()) args.push('--symlink', fs.readlinkSync(dir), dir);
    else args.push('--ro-bind', dir, dir);
  }
  return args;
}

/** systemd-resolved links /etc/resolv.conf into /run, which is hidden: the one file it points to is shown. */
export function resolvConfArgs(resolv: string | undefined): string[] {
  return resolv && !SYSTEM_FOLDERS.some((dir) => within(dir, resolv)) ? ['--ro-bind', resolv, resolv] : [];
}

/** The host's private keys in `dir` (the public ones may stay). */
export function sshHostKeys(dir = '/etc/ssh'): string[] {
  try {
    return fs.readdirSync(dir).filter((f) => /^ssh_host_.*_key$/.test(f)).map((f) => path.join(dir, f));
  } catch {
    return [];
  }
}

/** A file becomes /dev/null, a folder an empty tmpfs; nothing when absent. */
function hide(p: string): string[] {
  const stat = exists(p);
  if (!stat) return [];
  return stat.isDirectory() ? ['--tmpfs', p] : ['--ro-bind', '/dev/null', p];
}

/** The folder of the node running skein, when it is not in a system folder (nvm and the like): sandboxed tools may need the same node. */
export function runtimeFolder(execPath = process.execPath): string | undefined {
  const prefix = path.dirname(path.dirname(fs.realpathSync(execPath)));
  if (prefix === '/' || SYSTEM_FOLDERS.some((dir) => within(dir, prefix))) return undefined;
  return prefix;
}

export function mountPlan(input: MountInput): MountPlan {
  const workDir = fs.realpathSync(input.workDir);
  const dataDir = input.dataDir && exists(input.dataDir) ? fs.realpathSync(input.dataDir) : input.dataDir && path.resolve(input.dataDir);
  const home = input.home ? path.resolve(input.home) : os.homedir();
  const releases: (() => void)[] = [];
  const readOnlyProject = input.readOnlyProject === true;
  // Plan mode binds nothing writable: a `--bind` becomes a `--ro-bind`.
  const bind = readOnlyProject ? '--ro-bind' : '--bind';
  const args = [...systemArgs(), '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp', '--tmpfs', '/var/tmp'];
  // An empty, writable home of its own (programs expect one); the real one shows only where the project is.
  // ('/' holds /tmp: the last test covers it.)
  const homeIsSystem = SYSTEM_FOLDERS.some((dir) => within(dir, home)) || within(home, '/tmp');
  if (!homeIsSystem) args.push('--tmpfs', home);
  const runtime = runtimeFolder();
  if (runtime) args.push('--ro-bind', runtime, runtime);
  for (const extra of input.readOnly ?? []) if (exists(extra)) args.push('--ro-bind', extra, extra);

  // The repository the working folder is in, read-only (git needs the whole tree); not when that would show the home folder.
  const repoRoot = repoRootOf(workDir);
  const showRepo = repoRoot !== undefined && repoRoot !== workDir && repoRoot !== '/' && !within(repoRoot, home);
  const projectRoot = showRepo ? repoRoot : workDir;
  const dataInsideProject = dataDir !== undefined && within(projectRoot, dataDir) && !within(dataDir, workDir);
  const projectInsideData = dataDir !== undefined && within(dataDir, projectRoot);
  // A worktree session lives in <data dir>/worktrees/<id>: the data folder goes first, the worktree on top.
  if (projectInsideData) args.push('--tmpfs', dataDir);
  if (showRepo) args.push('--ro-bind', repoRoot, repoRoot);
  // A working folder inside a data folder that is itself inside the repository: hidden between the two.
  if (dataDir !== undefined && !projectInsideData && within(dataDir, workDir)) args.push('--tmpfs', dataDir);
  args.push(bind, workDir, workDir);

  // The repository's git metadata: read-only, apart from a worktree's own (git-metadata.ts).
  const gitRoot = repoRoot ?? workDir;
  const git = gitMounts(gitRoot);
  for (const p of git.readOnly) args.push('--ro-bind', p, p);
  for (const p of git.writable) args.push(bind, p, p);
  // Pins and stand-ins guard files inside writable mounts; read-only, there are none (and the folder stays untouched).
  for (const p of readOnlyProject ? [] : git.pinnedFiles) {
    releases.push(holdPlaceholder(p, 'file'));
    args.push('--ro-bind', p, p);
  }
  // The protected files of the working folder, read-only; an absent one gets an empty folder to mount on.
  for (const rel of readOnlyProject ? [] : PROTECTED_PROJECT_PATHS) {
    const p = path.join(workDir, rel);
    const stat = exists(p);
    if (stat?.isSymbolicLink()) {
      // A mount lands on the link's target: pin that when it is inside the project (the link itself stays replaceable; see docs/sandbox-and-security.md).
      const target = safeRealpath(p);
      if (target && within(projectRoot, target)) args.push('--ro-bind', target, target);
      continue;
    }
    // A stand-in where it is absent; an existing one is left as it is (holdPlaceholder does nothing then).
    releases.push(holdPlaceholder(p, 'folder'));
    args.push('--ro-bind', p, p);
  }
  // The data folder inside the project: an empty tmpfs over it (the token, the logs, other sessions' worktrees).
  if (dataInsideProject) args.push('--tmpfs', dataDir);
  if (dataDir && input.readOnly?.some((extra) => within(extra, dataDir))) args.push('--tmpfs', dataDir);
  if (within(workDir, home)) {
    for (const rel of HOME_SECRETS) args.push(...hide(path.join(home, rel)));
  }
  return {
    args,
    workDir,
    privateHome: homeIsSystem ? undefined : home,
    // bwrap's own root, the empty home and the tmpfs that hide things: writable only in the variant that writes anyway.
    remountReadOnly: readOnlyProject ? ['/', ...tmpfsMounts(args).filter((p) => !SCRATCH.includes(p))] : [],
    // Each release runs once however often it is called (placeholders.ts), so this may be called again.
    release() {
      for (const r of releases) r();
    },
  };
}

/** Where `args` mount a tmpfs, each once, in order. */
function tmpfsMounts(args: readonly string[]): string[] {
  const found = new Set<string>();
  args.forEach((arg, i) => {
    if (arg === '--tmpfs') found.add(args[i + 1]!);
  });
  return [...found];
}

function safeRealpath(p: string): string | undefined {
  try {
    return fs.realpathSync(p);
  } catch {
    return undefined;
  }
}
