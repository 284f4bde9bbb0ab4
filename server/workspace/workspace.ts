// A session's folder: one of the projects (the folders the user chose,
// SKEIN_WORKDIR's roots first) or a folder inside one,
// and, when asked and the folder is in a git repository, a worktree of its
// own on a new branch `skein/<id>` under <data dir>/worktrees/<id>, so that
// sessions working at once never share files.
import fs from 'node:fs';
import path from 'node:path';
import type { Workspace } from '../../shared/protocol.js';
import { currentBranch, git, hardenedFor, headCommit, pinnedFor, repoTop, type Hardening } from './git.js';

/** A folder or worktree that cannot be used; the message says why (HTTP 400). */
export class WorkspaceError extends Error {
  override readonly name = 'WorkspaceError';
}

/** The worktree has uncommitted work and removal was not forced (HTTP 409). */
export class DirtyWorktreeError extends Error {
  override readonly name = 'DirtyWorktreeError';
  constructor(readonly worktree: string, readonly files: string[]) {
    super(`the worktree ${worktree} has uncommitted changes (${files.length} file${files.length === 1 ? '' : 's'}: ${files.slice(0, 5).join(', ')}${files.length > 5 ? ', …' : ''}); nothing was removed. Commit them, or remove it anyway with force`);
  }
}

export interface WorkspaceRequest {
  /** Absolute, or relative to the first root; absent: the first root. */
  folder?: string;
  /** Ask for the session's own worktree on branch skein/<id>. */
  worktree?: boolean;
  /** No `worktree` asked either way and SKEIN_WORKTREE is on: its own worktree when the folder is in a repository with a commit. */
  preferWorktree?: boolean;
  /** What the worktree's branch starts from (default: the folder's HEAD). */
  startPoint?: string;
}

export function worktreesDir(dataDir: string): string {
  return path.join(dataDir, 'worktrees');
}

export function branchOf(id: string): string {
  return `skein/${id}`;
}

/** Resolves and checks the folder against the roots: it must be one of them or inside one. */
export function resolveFolder(roots: readonly string[], requested: string | undefined): string {
  if (!roots.length) throw new WorkspaceError('no project folder exists any more: add one in the web UI (+ New session → Folder → Add folder)');
  const folder = path.resolve(roots[0]!, requested ?? '.');
  if (!fs.existsSync(folder) || !fs.statSync(folder).isDirectory()) throw new WorkspaceError(`"folder": ${folder} is not an existing folder`);
  const real = fs.realpathSync(folder);
  const inside = roots.some((root) => {
    const rel = path.relative(fs.realpathSync(root), real);
    return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
  });
  if (!inside) throw new WorkspaceError(`"folder": ${folder} is not inside a project (the folders you chose for skein: ${roots.join(', ')}); add it in the web UI (+ New session → Folder → Add folder), or open it from your editor and allow it`);
  return folder;
}

export async function createWorkspace(roots: readonly string[], dataDir: string, id: string, request: WorkspaceRequest = {}): Promise<Workspace> {
  const folder = resolveFolder(roots, request.folder);
  const repo = await repoTop(folder);
  if (!request.worktree) {
    if (!repo) return { folder, workDir: folder };
    const hardening = await hardenedFor(folder);
    const [branch, baseCommit] = await Promise.all([currentBranch(folder, hardening), headCommit(folder, hardening)]);
    // The default (SKEIN_WORKTREE=on) in a repository that has a commit to start from; a folder outside git, or a new repository, is shared.
    if (request.preferWorktree && request.worktree === undefined && baseCommit) return createWorkspace(roots, dataDir, id, { ...request, worktree: true });
    return { folder, workDir: folder, repo, ...(branch && { branch }), ...(baseCommit && { baseCommit }) };
  }
  if (!repo) throw new WorkspaceError(`"worktree": ${folder} is not in a git repository, so it cannot have a worktree of its own`);
  const hardening = await hardenedFor(folder);
  const start = request.startPoint ?? (await headCommit(folder, hardening));
  if (start?.startsWith('-')) throw new WorkspaceError(`"worktree": the start point ${start} is not a commit or branch name`);
  if (!start) throw new WorkspaceError(`"worktree": the repository ${repo} has no commit yet to start a branch from`);
  const worktree = path.join(worktreesDir(dataDir), id);
  fs.mkdirSync(worktreesDir(dataDir), { recursive: true });
  const branch = branchOf(id);
  // The checkout inside runs as a child git with the same environment: no smudge filter, no post-checkout hook.
  await git(repo, ['worktree', 'add', '--quiet', '-b', branch, '--', worktree, start], [0], hardening);
  // The same place inside the worktree as the folder asked for inside the repository.
  const workDir = path.join(worktree, path.relative(repo, fs.realpathSync(folder)));
  fs.mkdirSync(workDir, { recursive: true });
  const baseCommit = await headCommit(worktree, hardening);
  return { folder, workDir, repo: worktree, branch, ...(baseCommit && { baseCommit }), worktree };
}

/** Files with uncommitted changes (untracked ones included) in a worktree. */
export async function uncommitted(worktree: string, hardening?: Hardening): Promise<string[]> {
  const { stdout } = await git(worktree, ['status', '--porcelain', '--untracked-files=all'], [0], hardening);
  return stdout.split('\n').filter(Boolean).map((line) => line.slice(3));
}

/**
 * Removes a session's worktree. Uncommitted work is never removed silently:
 * without `force` a dirty worktree is refused (DirtyWorktreeError). The branch
 * stays, so committed work is kept (`git branch -D skein/<id>` deletes it).
 */
export async function removeWorktree(worktree: string, force: boolean): Promise<void> {
  if (!fs.existsSync(worktree)) return;
  const hardening = await pinnedFor(worktree);
  const dirty = await uncommitted(worktree, hardening);
  if (dirty.length && !force) throw new DirtyWorktreeError(worktree, dirty);
  // Run from the repository's git folder: git does not remove the worktree it runs in, and the
  // folder above the git folder need not be the main worktree (a `.git` file may point anywhere).
  const { stdout } = await git(worktree, ['rev-parse', '--path-format=absolute', '--git-common-dir'], [0], hardening);
  const common = stdout.trim();
  // Both folders' config: git's own clean check runs `git status` in the worktree as a child, with this environment.
  await git(common, ['worktree', 'remove', ...(dirty.length ? ['--force'] : []), '--', worktree], [0], await hardenedFor(worktree, common));
}
