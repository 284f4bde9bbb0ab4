// GET /api/sessions/:id/changes: the files changed in a session's folder since
// it started, each with its diff against the starting commit (committed and
// uncommitted changes, untracked files as added). Read-only: git's index is
// never touched. Every git command here is hardened (git.ts): the repository's
// filters, diff drivers, fsmonitor and hooks run nothing.
import type { ChangedFile, ChangesReport, Workspace } from '../../shared/protocol.js';
import { git, pinnedFor } from './git.js';

/** A diff longer than this is cut (the panel shows it; the rest is one `git diff` away). */
export const MAX_FILE_DIFF_CHARS = 100_000;
/** At most this many files are listed. */
export const MAX_FILES = 500;

const STATUS: Record<string, ChangedFile['status']> = { A: 'added', M: 'modified', D: 'deleted', R: 'renamed', T: 'modified', C: 'added' };

/**
 * `only`: the files the session changed, for a folder it shares with other
 * sessions (session-paths.ts): nothing else is listed.
 */
export async function changesOf(workspace: Workspace | undefined, fallbackDir: string, only?: ReadonlySet<string>): Promise<ChangesReport> {
  const workDir = workspace?.workDir ?? fallbackDir;
  const base = workspace?.baseCommit;
  if (!workspace?.repo || !base) return { git: false, workDir, files: [] };
  const report: ChangesReport = { git: true, workDir, ...(workspace.branch && { branch: workspace.branch }), baseCommit: base, files: [], ...(only && { sessionOnly: true }) };
  // Paths relative to the repository's top; only what is under the session's folder.
  const scope = ['--', '.'];
  // One read of the repository's config for the whole batch, its git folder pinned.
  const hardening = await pinnedFor(workDir);
  const nameStatus = await git(workDir, ['diff', '--no-color', '--name-status', '-z', '--find-renames', base, ...scope], [0], hardening);
  const fields = nameStatus.stdout.split('\0').filter((f, i, all) => f !== '' || i < all.length - 1);
  const tracked: { path: string; status: ChangedFile['status'] }[] = [];
  for (let i = 0; i < fields.length; ) {
    const code = fields[i++]!;
    if (!code) continue;
    const letter = code[0]!;
    if (letter === 'R' || letter === 'C') i++; // the old path; the new one follows
    const file = fields[i++];
    if (file && (!only || only.has(file))) tracked.push({ path: file, status: STATUS[letter] ?? 'modified' });
  }
  const untracked = (await git(workDir, ['ls-files', '-z', '--others', '--exclude-standard', '--full-name', ...scope], [0], hardening)).stdout.split('\0').filter((f) => f && (!only || only.has(f)));
  const top = workspace.repo;
  for (const file of tracked.slice(0, MAX_FILES)) {
    const { stdout } = await git(top, ['diff', '--no-color', '--find-renames', base, '--', file.path], [0], hardening);
    report.files.push(cut({ ...file, diff: stdout }));
  }
  for (const file of untracked.slice(0, Math.max(0, MAX_FILES - report.files.length))) {
    // exit code 1: "there are differences", which is the point.
    const { stdout } = await git(top, ['diff', '--no-color', '--no-index', '--', '/dev/null', file], [0, 1], hardening);
    report.files.push(cut({ path: file, status: 'untracked', diff: stdout }));
  }
  report.files.sort((a, b) => a.path.localeCompare(b.path));
  return report;
}

function cut(file: ChangedFile): ChangedFile {
  return file.diff.length > MAX_FILE_DIFF_CHARS ? { ...file, diff: file.diff.slice(0, MAX_FILE_DIFF_CHARS), truncated: true } : file;
}
