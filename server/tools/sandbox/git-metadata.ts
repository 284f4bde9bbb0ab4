// What of git's metadata the sandbox may write. Like Codex's workspace-write,
// a checkout's own .git is read-only: from inside the sandbox git can read
// (status, diff, log) but not commit there. Any write to a .git folder would
// do: besides config and hooks, git reads `commondir` (it moves the whole
// repository elsewhere, with a config of the sandbox's making), a
// rebase-merge/ todo list runs its `exec` lines on `git rebase --continue`,
// and the index is replaced by renaming a file in .git itself, so no finer
// split keeps commits possible and the rest safe.
//
// A worktree session (its .git is a file: "gitdir: <repo>/.git/worktrees/<id>")
// can commit: its own admin folder is writable apart from the files that
// point git elsewhere or configure it (commondir, gitdir, config.worktree),
// and so are the shared objects, refs and logs; the shared config, hooks,
// info and everything else of the repository stay read-only.
import fs from 'node:fs';
import path from 'node:path';

export interface GitMounts {
  /** Read-only binds, in order (a later one may sit inside an earlier one). */
  readOnly: string[];
  /** Writable binds, after readOnly. */
  writable: string[];
  /** Read-only after the writable ones; missing ones get an empty-file stand-in. */
  pinnedFiles: string[];
}

const NONE: GitMounts = { readOnly: [], writable: [], pinnedFiles: [] };

/** The admin folder a `.git` file names ("gitdir: ..."), resolved from the file's folder. */
export function gitdirOf(dotGitFile: string): string | undefined {
  try {
    const text = fs.readFileSync(dotGitFile, 'utf8');
    const match = /^gitdir: (.+)$/m.exec(text);
    return match ? path.resolve(path.dirname(dotGitFile), match[1]!.trim()) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The git mounts for a project root that holds `.git`: nothing beyond the
 * read-only pin of `.git` itself (done by the caller), except for a linked
 * worktree, whose own metadata and the shared objects/refs/logs are writable.
 */
export function gitMounts(root: string): GitMounts {
  const dotGit = path.join(root, '.git');
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(dotGit);
  } catch {
    return NONE;
  }
  if (!stat.isFile()) return NONE;
  const named = gitdirOf(dotGit);
  if (!named || !isDir(named)) return NONE;
  const admin = fs.realpathSync(named);
  let commondir: string;
  try {
    commondir = fs.readFileSync(path.join(admin, 'commondir'), 'utf8').trim();
  } catch {
    // No commondir: a submodule's git folder, read-only as a checkout's .git; only where git puts one (an enclosing repository's .git/modules/).
    return isSubmoduleAdmin(admin, root) ? { readOnly: [admin], writable: [], pinnedFiles: [] } : NONE;
  }
  // The .git file is the repository's to write: it could name ~/.ssh or another repository's git folder, which
  // the sandbox would then show (or let it write). Only a worktree git made counts: its admin folder is
  // <common>/worktrees/<name>, and its own gitdir file points back at this .git.
  if (!isDir(path.resolve(admin, commondir))) return NONE;
  const common = fs.realpathSync(path.resolve(admin, commondir));
  if (path.dirname(admin) !== path.join(common, 'worktrees') || !pointsBackTo(admin, dotGit)) return NONE;
  // Git writes reflogs under logs/; a repository that never logged has none yet.
  fs.mkdirSync(path.join(common, 'logs'), { recursive: true });
  const shared = ['objects', 'refs', 'logs'].map((p) => path.join(common, p)).filter(isDir);
  return {
    readOnly: [common],
    writable: [...shared, admin],
    pinnedFiles: ['commondir', 'gitdir', 'config.worktree'].map((f) => path.join(admin, f)),
  };
}

/** True when `<admin>/gitdir` names this `.git` file (git writes it so, and checks it the same way). */
function pointsBackTo(admin: string, dotGit: string): boolean {
  try {
    const named = path.resolve(admin, fs.readFileSync(path.join(admin, 'gitdir'), 'utf8').trim());
    return fs.realpathSync(named) === fs.realpathSync(dotGit);
  } catch {
    return false;
  }
}

/** True when `admin` is inside `<folder>/.git/modules/` of a folder enclosing `root`. */
function isSubmoduleAdmin(admin: string, root: string): boolean {
  for (let dir = path.dirname(fs.realpathSync(root)); ; dir = path.dirname(dir)) {
    const modules = path.join(dir, '.git', 'modules') + path.sep;
    if (admin.startsWith(modules)) return true;
    if (path.dirname(dir) === dir) return false;
  }
}

function isDir(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}
