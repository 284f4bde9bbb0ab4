// What the user can do with a session's own worktree from the Changes panel:
// commit its changes on its branch skein/<id>, merge that branch into the
// main checkout's branch, apply its changes to the main checkout as a patch,
// discard them, push the branch. The user's actions, never the model's (no
// tool reaches this). Every git command is hardened (git.ts): the
// repository's hooks, filters, merge drivers and config run nothing. Nothing
// is lost: a merge that conflicts is aborted, a patch's conflicts stay marked
// in the files, a merge or patch that would touch the main checkout's
// uncommitted changes is refused before it starts.
import fs from 'node:fs';
import { readNoFollow } from '../host/door.js';
import os from 'node:os';
import path from 'node:path';
import type { Workspace, WorktreeActionResult } from '../../shared/protocol.js';
import { currentBranch, git, GitError, pinnedFor, repoTop, withVariables, type Hardening } from './git.js';
import { uncommitted } from './workspace.js';
import { gitNetwork, type NetworkLimits } from './git-network.js';

export type WorktreeAction = 'commit' | 'merge' | 'apply' | 'discard' | 'push';

/** Refused with nothing changed (HTTP 409); `code` and `files` say what was in the way. */
export class WorktreeActionError extends Error {
  override readonly name = 'WorktreeActionError';
  constructor(message: string, readonly code?: 'no_worktree' | 'nothing' | 'dirty_main' | 'merge_conflict' | 'no_remote' | 'uncommitted' | 'git_failed', readonly files?: string[]) {
    super(message);
  }
}

/** Used when the user has no git identity of their own (a fresh machine): git would refuse to commit. */
const FALLBACK_IDENTITY = { GIT_AUTHOR_NAME: 'skein', GIT_AUTHOR_EMAIL: 'skein@localhost', GIT_COMMITTER_NAME: 'skein', GIT_COMMITTER_EMAIL: 'skein@localhost' };

/** Pushing is the one network use: these transports only (never `ext::`, which runs a command). */
const PUSH_PROTOCOLS: [string, string][] = ['file', 'git', 'ssh', 'http', 'https'].map((p) => [`protocol.${p}.allow`, 'always']);
/** No prompt can be answered from the server: ssh fails at once rather than waiting for a passphrase or a host key. */
const PUSH_SSH: [string, string] = ['core.sshCommand', 'ssh -o BatchMode=yes'];

interface Own {
  worktree: string;
  branch: string;
  base: string;
  /** The folder the session was asked for: in the main checkout. */
  folder: string;
}

function own(workspace: Workspace | undefined): Own {
  if (!workspace?.worktree || !workspace.branch || !workspace.baseCommit) throw new WorktreeActionError('this session has no git worktree of its own: its changes are already in its folder', 'no_worktree');
  if (!fs.existsSync(workspace.worktree)) throw new WorktreeActionError(`the session's worktree is gone (${workspace.worktree} was removed)`, 'no_worktree');
  return { worktree: workspace.worktree, branch: workspace.branch, base: workspace.baseCommit, folder: workspace.folder };
}

/** `hardening` plus these config entries, after every other (the later one wins). */
function withConfig(hardening: Hardening, pairs: readonly [string, string][]): Hardening {
  const env = { ...hardening.env };
  let n = Number(env.GIT_CONFIG_COUNT ?? '0');
  for (const [key, value] of pairs) {
    env[`GIT_CONFIG_KEY_${n}`] = key;
    env[`GIT_CONFIG_VALUE_${n}`] = value;
    n++;
  }
  env.GIT_CONFIG_COUNT = String(n);
  return { ...hardening, env };
}

/** The user's own identity when git finds one, else skein's. */
async function committing(dir: string, hardening: Hardening): Promise<Hardening> {
  const known = await git(dir, ['var', 'GIT_COMMITTER_IDENT'], [0, 128], hardening).catch(() => ({ code: 128 }));
  const author = known.code === 0 ? await git(dir, ['var', 'GIT_AUTHOR_IDENT'], [0, 128], hardening).catch(() => ({ code: 128 })) : known;
  return known.code === 0 && author.code === 0 ? hardening : withVariables(hardening, FALLBACK_IDENTITY);
}

const lines = (out: string) => out.split('\n').filter(Boolean);

/** The main checkout: its top folder, hardening and branch. */
async function mainCheckout(o: Own): Promise<{ top: string; hardening: Hardening; branch: string | undefined }> {
  const top = await repoTop(o.folder);
  if (!top) throw new GitError(`${o.folder} is no longer in a git repository`);
  const hardening = await pinnedFor(top);
  return { top, hardening, branch: await currentBranch(top, hardening) };
}

/**
 * Refused when the main checkout is in the middle of something of the user's
 * (a merge, rebase, cherry-pick or revert, files with unresolved conflicts):
 * skein's merge or patch would mix with it, and its abort would undo theirs.
 */
async function refuseUnfinished(main: { top: string; hardening: Hardening }): Promise<void> {
  const unmerged = lines((await git(main.top, ['diff', '--name-only', '--diff-filter=U'], [0], main.hardening)).stdout);
  const gitDir = (await git(main.top, ['rev-parse', '--absolute-git-dir'], [0], main.hardening)).stdout.trim();
  const doing = [['MERGE_HEAD', 'a merge'], ['rebase-merge', 'a rebase'], ['rebase-apply', 'a rebase'], ['CHERRY_PICK_HEAD', 'a cherry-pick'], ['REVERT_HEAD', 'a revert']].find(([f]) => fs.existsSync(path.join(gitDir, f!)))?.[1];
  if (doing || unmerged.length) {
    const what = doing ?? 'unresolved conflicts';
    throw new WorktreeActionError(`the main checkout (${main.top}) is in the middle of ${what}${unmerged.length ? ` (unresolved: ${list(unmerged)})` : ''}: finish or abort it there first; nothing was changed`, 'dirty_main', unmerged);
  }
}

/** What the Changes panel shows about the worktree: the base branch, commits, uncommitted files, the remote. */
export async function worktreeStatus(workspace: Workspace | undefined): Promise<{ baseBranch?: string; commits: number; uncommitted: number; remote?: string }> {
  const o = own(workspace);
  const hardening = await pinnedFor(o.worktree);
  const [commits, dirty, remote, main] = await Promise.all([
    git(o.worktree, ['rev-list', '--count', `${o.base}..HEAD`], [0], hardening),
    uncommitted(o.worktree, hardening),
    remoteOf(o, hardening),
    mainCheckout(o).catch(() => undefined),
  ]);
  return { ...(main?.branch && { baseBranch: main.branch }), commits: Number(commits.stdout.trim()) || 0, uncommitted: dirty.length, ...(remote && { remote }) };
}

/** The remote a push goes to: the branch's upstream's, else `origin`, else the only one; none: undefined. */
async function remoteOf(o: Own, hardening: Hardening): Promise<string | undefined> {
  const remotes = lines((await git(o.worktree, ['remote'], [0], hardening)).stdout);
  if (!remotes.length) return undefined;
  const upstream = (await git(o.worktree, ['config', '--get', `branch.${o.branch}.remote`], [0, 1], hardening)).stdout.trim();
  if (upstream && remotes.includes(upstream)) return upstream;
  return remotes.includes('origin') ? 'origin' : remotes[0];
}

/** Commits every change of the worktree (untracked files too) on the session's branch. */
export async function commitWorktree(workspace: Workspace | undefined, message: string): Promise<WorktreeActionResult> {
  const o = own(workspace);
  const hardening = await pinnedFor(o.worktree);
  const files = await uncommitted(o.worktree, hardening);
  if (!files.length) throw new WorktreeActionError('nothing to commit: the worktree has no uncommitted changes', 'nothing');
  await git(o.worktree, ['add', '-A', '--', ':/'], [0], hardening);
  await git(o.worktree, ['commit', '--quiet', '--no-verify', '-m', message], [0], await committing(o.worktree, hardening));
  const commit = (await git(o.worktree, ['rev-parse', 'HEAD'], [0], hardening)).stdout.trim();
  return { message: `Committed ${files.length} file${files.length === 1 ? '' : 's'} on ${o.branch} as ${commit.slice(0, 12)}.`, commit, files };
}

/**
 * Merges the session's branch into the main checkout's branch. Refused when
 * the worktree has uncommitted changes (commit them first), and when the main
 * checkout has uncommitted changes in files the merge would touch. On
 * conflicts the merge is aborted: both sides stay as they were, the files are
 * named (WorktreeActionError `merge_conflict`).
 */
export async function mergeWorktree(workspace: Workspace | undefined, sessionId: string): Promise<WorktreeActionResult> {
  const o = own(workspace);
  const hardening = await pinnedFor(o.worktree);
  const pending = await uncommitted(o.worktree, hardening);
  if (pending.length) throw new WorktreeActionError(`the worktree has uncommitted changes (${list(pending)}): commit them first, then merge`, 'uncommitted', pending);
  const main = await mainCheckout(o);
  await refuseUnfinished(main);
  if (!main.branch) throw new WorktreeActionError(`the main checkout (${main.top}) is on a detached HEAD: check out the branch to merge into there first`);
  const ahead = Number((await git(main.top, ['rev-list', '--count', `${main.branch}..${o.branch}`], [0], main.hardening)).stdout.trim());
  if (!ahead) throw new WorktreeActionError(`nothing to merge: ${main.branch} already has every commit of ${o.branch}`, 'nothing');
  const touched = lines((await git(main.top, ['diff', '--name-only', '--no-renames', `${main.branch}...${o.branch}`], [0], main.hardening)).stdout);
  const inTheWay = (await uncommitted(main.top, main.hardening)).filter((f) => touched.includes(f));
  if (inTheWay.length) throw new WorktreeActionError(`the main checkout has uncommitted changes in files the merge would touch (${list(inTheWay)}): commit or stash them there first; nothing was merged`, 'dirty_main', inTheWay);
  const merging = await committing(main.top, main.hardening);
  let merged;
  try {
    merged = await git(main.top, ['merge', '--no-ff', '--no-edit', '-m', `Merge ${o.branch} (skein session ${sessionId})`, o.branch], [0, 1], merging);
  } catch (err) {
    // Any other failure (a lock, a ref that cannot be written): the main checkout is put back as it was, never left mid-merge
    // (refuseUnfinished made sure no merge of the user's was under way to be aborted with it).
    await git(main.top, ['merge', '--abort'], [0, 128], main.hardening).catch(() => undefined);
    if (err instanceof GitError) throw new WorktreeActionError(`merging ${o.branch} into ${main.branch} failed, the merge was aborted and nothing changed: ${err.message}`, 'git_failed');
    throw err;
  }
  if (merged.code !== 0) {
    const conflicts = lines((await git(main.top, ['diff', '--name-only', '--diff-filter=U'], [0], main.hardening)).stdout);
    await git(main.top, ['merge', '--abort'], [0], main.hardening);
    throw new WorktreeActionError(`merging ${o.branch} into ${main.branch} conflicts in ${list(conflicts)}: the merge was aborted, both branches are as they were; resolve it in a terminal (git merge ${o.branch}) or change the session's branch first`, 'merge_conflict', conflicts);
  }
  const commit = (await git(main.top, ['rev-parse', 'HEAD'], [0], main.hardening)).stdout.trim();
  return { message: `Merged ${o.branch} into ${main.branch} (${touched.length} file${touched.length === 1 ? '' : 's'}) as ${commit.slice(0, 12)}.`, commit, files: touched };
}

/**
 * Applies the session's changes since its start (committed, uncommitted and
 * untracked) to the main checkout with `git apply --3way`: what applies is
 * staged there; a conflict leaves both sides marked in the file, listed.
 */
export async function applyWorktree(workspace: Workspace | undefined): Promise<WorktreeActionResult> {
  const o = own(workspace);
  const hardening = await pinnedFor(o.worktree);
  const tree = await snapshotTree(o.worktree, hardening);
  const files = lines((await git(o.worktree, ['diff', '--name-only', '--no-renames', o.base, tree], [0], hardening)).stdout);
  if (!files.length) throw new WorktreeActionError('nothing to apply: the worktree has no changes since the session started', 'nothing');
  const patch = (await git(o.worktree, ['diff', '--binary', '--no-color', '--no-renames', o.base, tree], [0], hardening)).stdout;
  const main = await mainCheckout(o);
  await refuseUnfinished(main);
  const temp = fs.mkdtempSync(path.join(os.tmpdir(), 'skein-patch-'));
  const file = path.join(temp, 'session.patch');
  try {
    fs.writeFileSync(file, patch);
    try {
      await git(main.top, ['apply', '--3way', '--whitespace=nowarn', file], [0], main.hardening);
    } catch (err) {
      if (!(err instanceof GitError)) throw err;
      const conflicts = lines((await git(main.top, ['diff', '--name-only', '--diff-filter=U'], [0], main.hardening)).stdout).filter((f) => files.includes(f));
      // Nothing applied (git apply is all or nothing unless it went three-way): git's own words say why.
      if (!conflicts.length) throw new WorktreeActionError(`the patch does not apply to the main checkout, nothing was changed: ${err.message.replaceAll(file, 'the patch')}`, 'dirty_main');
      return { message: `Applied the session's changes to ${main.top} with conflicts in ${list(conflicts)}: both sides are kept there between conflict markers, to resolve.`, files, conflicts };
    }
  } finally {
    fs.rmSync(temp, { recursive: true, force: true });
  }
  return { message: `Applied the session's changes (${files.length} file${files.length === 1 ? '' : 's'}) to ${main.top}${main.branch ? ` on ${main.branch}` : ''}, staged, not committed.`, files };
}

/** Resets the worktree to the session's starting commit: uncommitted and untracked work and the branch's commits since are gone. */
export async function discardWorktree(workspace: Workspace | undefined): Promise<WorktreeActionResult> {
  const o = own(workspace);
  const hardening = await pinnedFor(o.worktree);
  const tree = await snapshotTree(o.worktree, hardening);
  const files = lines((await git(o.worktree, ['diff', '--name-only', '--no-renames', o.base, tree], [0], hardening)).stdout);
  await git(o.worktree, ['reset', '--hard', '--quiet', o.base], [0], hardening);
  await git(o.worktree, ['clean', '-d', '--force', '--quiet', '--', ':/'], [0], hardening);
  return { message: `Discarded the session's changes: ${o.branch} is back at ${o.base.slice(0, 12)}${files.length ? ` (${list(files)})` : ''}.`, commit: o.base, files };
}

/** Pushes the session's branch to the repository's remote; stopped (GitStoppedError) after `limits.timeoutMs` or on `limits.signal`. */
export async function pushWorktree(workspace: Workspace | undefined, limits: NetworkLimits): Promise<WorktreeActionResult> {
  const o = own(workspace);
  const hardening = await pinnedFor(o.worktree);
  const remote = await remoteOf(o, hardening);
  if (!remote) throw new WorktreeActionError('the repository has no remote to push to', 'no_remote');
  const ref = `refs/heads/${o.branch}`;
  // Hooks stay off (core.hooksPath, --no-verify); the user's ssh agent is theirs to use for their own push.
  const env = { ...(process.env.SSH_AUTH_SOCK && { SSH_AUTH_SOCK: process.env.SSH_AUTH_SOCK }) };
  // A remote on this machine is another repository whose receive-pack git starts here, without skein's overrides
  // (git clears them for a local transport): its hooks are turned off on its command line.
  const url = (await git(o.worktree, ['remote', 'get-url', '--push', '--', remote], [0], hardening)).stdout.trim();
  const local = isLocalUrl(url) ? [`--receive-pack=git -c core.hooksPath=/dev/null -c core.fsmonitor=false receive-pack`] : [];
  await gitNetwork(o.worktree, ['push', '--quiet', '--no-verify', ...local, '--', remote, `${ref}:${ref}`], withVariables(withConfig(hardening, [...PUSH_PROTOCOLS, PUSH_SSH]), env), limits);
  const commit = (await git(o.worktree, ['rev-parse', 'HEAD'], [0], hardening)).stdout.trim();
  return { message: `Pushed ${o.branch} (${commit.slice(0, 12)}) to ${remote}.`, commit };
}

/** A path or file:// URL (git's rule: a ':' before any '/' is an scp-like host:path, `://` a URL). */
export function isLocalUrl(url: string): boolean {
  if (url.startsWith('file://')) return true;
  if (url.includes('://')) return false;
  const colon = url.indexOf(':');
  const slash = url.indexOf('/');
  return colon < 0 || (slash >= 0 && slash < colon);
}

/** The worktree as it is now, as a tree, through a copy of its index (its own index is only read). */
async function snapshotTree(worktree: string, hardening: Hardening): Promise<string> {
  const temp = fs.mkdtempSync(path.join(os.tmpdir(), 'skein-index-'));
  const index = path.join(temp, 'index');
  try {
    const itsIndex = path.join(hardening.env.GIT_DIR!, 'index');
    // Read without following a link (the index lives in the repository's .git, which is repository content).
    let bytes: Buffer | undefined;
    try {
      bytes = readNoFollow(itsIndex);
    } catch {
      bytes = undefined; // a link or no folder: git builds the index again from the files
    }
    if (bytes) fs.writeFileSync(index, bytes);
    const withIndex = withVariables(hardening, { GIT_INDEX_FILE: index });
    await git(worktree, ['add', '-A', '--', ':/'], [0], withIndex);
    return (await git(worktree, ['write-tree'], [0], withIndex)).stdout.trim();
  } finally {
    fs.rmSync(temp, { recursive: true, force: true });
  }
}

function list(files: readonly string[]): string {
  return `${files.slice(0, 5).join(', ')}${files.length > 5 ? `, and ${files.length - 5} more` : ''}`;
}
