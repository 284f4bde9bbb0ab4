// A child asked to work apart (`worktree: true` in the task call or its agent
// file) gets a git worktree of its own, made as any session's
// (workspace/workspace.ts: branch skein/<child id> under the data folder's
// worktrees/), from its parent's folder; a parent that has its own worktree
// passes its branch on, so the child starts from the parent's last commit.
// The task's result names the branch and what is left uncommitted there.
import type { Workspace } from '../../shared/protocol.js';
import type { Config } from '../config.js';
import { createWorkspace, uncommitted } from '../workspace/workspace.js';
import { pinnedFor } from '../workspace/git.js';

export async function childWorktree(host: { config: Config; roots(): readonly string[] }, parent: Workspace | undefined, id: string): Promise<Workspace> {
  const folder = parent?.folder ?? host.config.workDir;
  return createWorkspace(host.roots(), host.config.dataDir, id, { folder, worktree: true, ...(parent?.worktree && parent.branch && { startPoint: parent.branch }) });
}

/** A line for the task's result: where the child's work is, and whether it is committed. */
export async function worktreeNote(workspace: Workspace | undefined): Promise<string> {
  if (!workspace?.worktree) return '';
  let left = '';
  try {
    const files = await uncommitted(workspace.worktree, await pinnedFor(workspace.worktree));
    left = files.length ? `; ${files.length} file${files.length === 1 ? '' : 's'} changed there and not committed: ${files.slice(0, 10).join(', ')}${files.length > 10 ? ', …' : ''}` : '; nothing left uncommitted there';
  } catch {
    // The worktree cannot be read (removed meanwhile): the branch is still named.
  }
  return `(it worked in its own git worktree, on branch ${workspace.branch} at ${workspace.workDir}${left})`;
}
