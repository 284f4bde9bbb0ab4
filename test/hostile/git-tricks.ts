// The git part of the hostile repository: every way a repository (or a model
// that wrote into it) can make git run a program, each planted in a real
// repository of its own under `repoDir/<trick>` (tricks exclude each other:
// one `.git`, one `core.fsmonitor`, hooks or hooksPath). Each program, when it
// runs, appends to `markerDir/<trick>`, a folder outside the repository.
// `repoDir` itself is a repository too (one commit) that ignores the trick
// folders, so the whole thing can be opened as one folder.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** How plain git, run by the user outside skein, makes a trick fire: the control that shows the trick is live. */
export type Control =
  | { kind: 'status' } // `git status` after a same-size edit of a.txt (git must read the file)
  | { kind: 'diff' } // `git diff HEAD`
  | { kind: 'worktree-add' } // `git worktree add -b <branch> <dir>`
  | { kind: 'commit' } // `git commit`
  | { kind: 'tty-diff' } // `git diff HEAD` with a terminal on stdout (pagers start only then)
  | { kind: 'ssh-fetch' } // `git ls-remote ssh://...`
  | { kind: 'credential' } // `git credential fill`
  | { kind: 'signed-commit' }; // `git commit -S`

export interface GitTrick {
  /** Also the folder name and the marker file's name. */
  name: string;
  /** The repository's top folder. */
  dir: string;
  /** Where a run leaves its mark (outside the repository). */
  marker: string;
  control: Control;
  /** Committed files (relative to `dir`) to edit to the same length before a control or a Changes request. */
  edits: string[];
  /** What else the Changes of the trick's folder list as modified after the edits (a dirty submodule). */
  alsoModified: string[];
  /** What the trick is, for the report. */
  what: string;
}

/** a.txt's committed content; tests edit it to the same length so that git has to read it. */
export const COMMITTED = 'aaa\n';
export const EDITED = 'bbb\n';
/** b.txt: rewritten with the same content (only its time changes), so git refreshes its index entry. */
export const UNCHANGED = 'same\n';

const GIT_ID = ['-c', 'user.name=hostile', '-c', 'user.email=hostile@example.invalid', '-c', 'init.defaultBranch=main', '-c', 'core.hooksPath=/dev/null'];

function gitIn(dir: string, ...args: string[]): string {
  return execFileSync('git', [...GIT_ID, ...args], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function write(file: string, text: string, mode?: number): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text, mode === undefined ? undefined : { mode });
}

/**
 * A program in the repository that marks `marker` when run. `pass`: it is a
 * filter (copies stdin to stdout); `file`: a textconv (prints its argument).
 */
function program(file: string, marker: string, role: 'mark' | 'pass' | 'file' = 'mark'): string {
  const tail = role === 'pass' ? 'exec cat\n' : role === 'file' ? 'exec cat "$1"\n' : 'exit 0\n';
  write(file, `#!/bin/sh\necho "ran: $0 $*" >> '${marker}'\n${tail}`, 0o755);
  return file;
}

/** Folders and files of the tricks that are no part of the repository's content (so Changes need not list them). */
const EXCLUDED = ['/.tricks/', '/tricks.gitconfig', '/dotgit/', '/odd/'];

/** A repository with a.txt and b.txt committed (and `files`, e.g. `.gitattributes` or hooks kept in the repository). */
function repository(dir: string, files: Record<string, string> = {}, gitdir?: string): void {
  fs.mkdirSync(dir, { recursive: true });
  if (gitdir) fs.mkdirSync(path.dirname(gitdir), { recursive: true });
  gitIn(dir, 'init', '--quiet', ...(gitdir ? ['--separate-git-dir', gitdir] : []));
  fs.appendFileSync(path.resolve(dir, gitIn(dir, 'rev-parse', '--git-path', 'info/exclude').trim()), `${EXCLUDED.join('\n')}\n`);
  write(path.join(dir, 'a.txt'), COMMITTED);
  write(path.join(dir, 'b.txt'), UNCHANGED);
  for (const [name, text] of Object.entries(files)) write(path.join(dir, name), text);
  gitIn(dir, 'add', '-A');
  gitIn(dir, 'commit', '--quiet', '-m', 'start');
}

/** The config that makes every kind of program run, in one file (for include tricks, a symlinked .git, ...). */
function everythingConfig(dir: string, marker: string): string {
  const p = (role: 'mark' | 'pass' | 'file', name: string) => program(path.join(dir, '.tricks', name), marker, role);
  return [
    `[core]\n\tfsmonitor = ${p('mark', 'fsmonitor')}\n\thooksPath = ${path.join(dir, '.tricks', 'hooks')}`,
    `[filter "evil"]\n\tclean = ${p('pass', 'clean')}\n\tsmudge = ${p('pass', 'smudge')}`,
    `[diff "evil"]\n\ttextconv = ${p('file', 'textconv')}`,
    '',
  ].join('\n');
}

function hooks(hooksDir: string, marker: string): void {
  for (const hook of ['post-checkout', 'pre-commit', 'post-index-change', 'reference-transaction', 'post-commit']) program(path.join(hooksDir, hook), marker);
}

/** Plants every git trick; returns them with the control that makes each fire in plain git. */
export function plantGitTricks(repoDir: string, markerDir: string): GitTrick[] {
  fs.mkdirSync(markerDir, { recursive: true });
  repository(repoDir, { '.gitignore': '/*/\n/.odd-gitdirs/\n' });
  const tricks: GitTrick[] = [];
  const add = (name: string, what: string, control: Control, plant: (dir: string, marker: string) => void) => {
    const dir = path.join(repoDir, name);
    const marker = path.join(markerDir, name);
    plant(dir, marker);
    tricks.push({ name, dir, marker, control, what, edits: name === 'submodule' ? ['a.txt', 'sub/a.txt'] : ['a.txt'], alsoModified: name === 'submodule' ? ['sub'] : [] });
  };
  const config = (dir: string, ...pairs: string[]) => {
    for (let i = 0; i < pairs.length; i += 2) gitIn(dir, 'config', pairs[i]!, pairs[i + 1]!);
  };
  const attributes = '*.txt filter=evil diff=evil\n';

  add('core.fsmonitor', 'core.fsmonitor set to a program in the working folder', { kind: 'status' }, (dir, marker) => {
    repository(dir);
    config(dir, 'core.fsmonitor', program(path.join(dir, '.tricks', 'fsmonitor'), marker));
  });
  add('hooks.fsmonitor-watchman', '.git/hooks/fsmonitor-watchman, with core.fsmonitor naming it as git\'s sample does', { kind: 'status' }, (dir, marker) => {
    repository(dir);
    program(path.join(dir, '.git', 'hooks', 'fsmonitor-watchman'), marker);
    config(dir, 'core.fsmonitor', '.git/hooks/fsmonitor-watchman');
  });
  for (const [hook, control] of [
    ['post-checkout', { kind: 'worktree-add' }],
    ['reference-transaction', { kind: 'worktree-add' }],
    ['post-index-change', { kind: 'status' }],
    ['pre-commit', { kind: 'commit' }],
  ] as const) {
    add(`hooks.${hook}`, `.git/hooks/${hook}`, control, (dir, marker) => {
      repository(dir);
      program(path.join(dir, '.git', 'hooks', hook), marker);
    });
  }
  add('core.hooksPath', 'core.hooksPath pointing at a folder of the repository (post-checkout, reference-transaction, post-index-change, pre-commit)', { kind: 'worktree-add' }, (dir, marker) => {
    hooks(path.join(dir, '.githooks'), marker);
    repository(dir);
    config(dir, 'core.hooksPath', '.githooks');
  });
  add('filter.clean', '.gitattributes filter driver: clean', { kind: 'status' }, (dir, marker) => {
    repository(dir, { '.gitattributes': attributes });
    config(dir, 'filter.evil.clean', program(path.join(dir, '.tricks', 'clean'), marker, 'pass'));
  });
  add('filter.smudge', '.gitattributes filter driver: smudge (a checkout)', { kind: 'worktree-add' }, (dir, marker) => {
    repository(dir, { '.gitattributes': attributes });
    config(dir, 'filter.evil.smudge', program(path.join(dir, '.tricks', 'smudge'), marker, 'pass'));
  });
  add('filter.process', '.gitattributes filter driver: a long-running process filter', { kind: 'diff' }, (dir, marker) => {
    repository(dir, { '.gitattributes': attributes });
    config(dir, 'filter.evil.process', program(path.join(dir, '.tricks', 'process'), marker));
  });
  add('filter.required', 'a required clean filter (an emptied one would be fatal)', { kind: 'diff' }, (dir, marker) => {
    repository(dir, { '.gitattributes': attributes });
    config(dir, 'filter.evil.clean', program(path.join(dir, '.tricks', 'clean'), marker, 'pass'), 'filter.evil.required', 'true');
  });
  add('filter.name-with-equals', 'a filter driver named "x=y" (a `-c filter.x=y.clean=` override would be parsed as key filter.x)', { kind: 'diff' }, (dir, marker) => {
    repository(dir, { '.gitattributes': '*.txt filter=x=y\n' });
    config(dir, 'filter.x=y.clean', program(path.join(dir, '.tricks', 'clean'), marker, 'pass'));
  });
  add('diff.textconv', '.gitattributes diff driver: textconv', { kind: 'diff' }, (dir, marker) => {
    repository(dir, { '.gitattributes': attributes });
    config(dir, 'diff.evil.textconv', program(path.join(dir, '.tricks', 'textconv'), marker, 'file'));
  });
  add('diff.command', '.gitattributes diff driver: command', { kind: 'diff' }, (dir, marker) => {
    repository(dir, { '.gitattributes': attributes });
    config(dir, 'diff.evil.command', program(path.join(dir, '.tricks', 'diff'), marker));
  });
  add('diff.external', 'diff.external', { kind: 'diff' }, (dir, marker) => {
    repository(dir);
    config(dir, 'diff.external', program(path.join(dir, '.tricks', 'diff'), marker));
  });
  add('core.pager', 'core.pager and pager.diff', { kind: 'tty-diff' }, (dir, marker) => {
    repository(dir);
    const pager = program(path.join(dir, '.tricks', 'pager'), marker, 'pass');
    config(dir, 'core.pager', pager, 'pager.diff', pager);
  });
  add('core.sshCommand', 'core.sshCommand', { kind: 'ssh-fetch' }, (dir, marker) => {
    repository(dir);
    config(dir, 'core.sshCommand', program(path.join(dir, '.tricks', 'ssh'), marker), 'remote.origin.url', 'ssh://example.invalid/repo.git');
  });
  add('credential.helper', 'credential.helper', { kind: 'credential' }, (dir, marker) => {
    repository(dir);
    config(dir, 'credential.helper', program(path.join(dir, '.tricks', 'credential'), marker));
  });
  add('gpg.program', 'gpg.program with commit.gpgSign', { kind: 'signed-commit' }, (dir, marker) => {
    repository(dir);
    config(dir, 'gpg.program', program(path.join(dir, '.tricks', 'gpg'), marker), 'commit.gpgSign', 'true', 'user.signingKey', 'hostile');
  });
  add('include.path', 'include.path pulling a config file of the working folder (fsmonitor, hooksPath, filter, textconv)', { kind: 'status' }, (dir, marker) => {
    repository(dir, { '.gitattributes': attributes });
    write(path.join(dir, 'tricks.gitconfig'), everythingConfig(dir, marker));
    hooks(path.join(dir, '.tricks', 'hooks'), marker);
    config(dir, 'include.path', '../tricks.gitconfig');
  });
  add('includeIf', 'includeIf "gitdir:..." pulling a config file of the working folder', { kind: 'status' }, (dir, marker) => {
    repository(dir, { '.gitattributes': attributes });
    write(path.join(dir, 'tricks.gitconfig'), everythingConfig(dir, marker));
    hooks(path.join(dir, '.tricks', 'hooks'), marker);
    config(dir, `includeIf.gitdir:${dir}/.path`, path.join(dir, 'tricks.gitconfig'));
  });
  add('config.worktree', 'extensions.worktreeConfig with the programs in config.worktree', { kind: 'status' }, (dir, marker) => {
    repository(dir, { '.gitattributes': attributes });
    // Extensions count only in a version 1 repository.
    config(dir, 'core.repositoryFormatVersion', '1', 'extensions.worktreeConfig', 'true');
    fs.appendFileSync(path.join(dir, '.git', 'config.worktree'), everythingConfig(dir, marker));
    hooks(path.join(dir, '.tricks', 'hooks'), marker);
  });
  add('symlinked-git', 'a .git that is a symlink to a folder of the repository, whose config runs programs', { kind: 'status' }, (dir, marker) => {
    repository(dir, { '.gitattributes': attributes });
    fs.renameSync(path.join(dir, '.git'), path.join(dir, 'dotgit'));
    fs.symlinkSync('dotgit', path.join(dir, '.git'));
    fs.appendFileSync(path.join(dir, 'dotgit', 'info', 'exclude'), '/dotgit/\n');
    fs.appendFileSync(path.join(dir, 'dotgit', 'config'), everythingConfig(dir, marker));
    hooks(path.join(dir, '.tricks', 'hooks'), marker);
  });
  add('gitdir-file', 'a .git file whose gitdir: points into an odd folder of the repository', { kind: 'status' }, (dir, marker) => {
    repository(dir, { '.gitattributes': attributes }, path.join(dir, 'odd', 'place.git'));
    fs.appendFileSync(path.join(dir, 'odd', 'place.git', 'info', 'exclude'), '/odd/\n');
    fs.appendFileSync(path.join(dir, 'odd', 'place.git', 'config'), everythingConfig(dir, marker));
    hooks(path.join(dir, '.tricks', 'hooks'), marker);
  });
  add('gitdir-file-outside', "a .git file whose gitdir: points out of the folder (into the enclosing repository's folder)", { kind: 'status' }, (dir, marker) => {
    const gitdir = path.join(repoDir, '.odd-gitdirs', 'place.git');
    repository(dir, { '.gitattributes': attributes }, gitdir);
    fs.appendFileSync(path.join(gitdir, 'config'), everythingConfig(dir, marker));
    hooks(path.join(dir, '.tricks', 'hooks'), marker);
  });
  add('submodule', 'a submodule whose own config has a clean filter (git status looks into submodules with a git of their own)', { kind: 'status' }, (dir, marker) => {
    repository(path.join(dir, 'sub'), { '.gitattributes': attributes });
    config(path.join(dir, 'sub'), 'filter.evil.clean', program(path.join(dir, 'sub', '.tricks', 'clean'), marker, 'pass'));
    repository(dir);
  });
  return tricks;
}
