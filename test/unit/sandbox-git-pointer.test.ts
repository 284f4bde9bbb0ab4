// How the sandbox reads a `.git` file that points elsewhere
// (server/tools/sandbox/git-metadata.ts), on hand-made folders: only a line
// that is exactly "gitdir: <path>" counts (a comment or another key naming a
// folder does not), line ends and spaces around the path are not part of it,
// and of the shared repository only the folders that exist become writable.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { gitdirOf, gitMounts } from '../../server/tools/sandbox/git-metadata.js';
import { tempDirsPerTest } from '../helpers/temp-dir.js';

const temp = tempDirsPerTest('gitptr');

describe('gitdirOf', () => {
  it('reads "gitdir: <path>" with a CRLF line end or trailing spaces, relative to the file’s folder', () => {
    const root = temp();
    const file = path.join(root, '.git');
    fs.writeFileSync(file, 'gitdir: ../admin  \r\n');
    expect(gitdirOf(file)).toBe(path.join(path.dirname(root), 'admin'));
    fs.writeFileSync(file, 'other: x\ngitdir: /abs/admin\n');
    expect(gitdirOf(file)).toBe('/abs/admin');
  });

  it('ignores a line that only contains the words, or has nothing after them', () => {
    const file = path.join(temp(), '.git');
    fs.writeFileSync(file, '# gitdir: /elsewhere\n');
    expect(gitdirOf(file)).toBeUndefined();
    fs.writeFileSync(file, 'gitdir: \n');
    expect(gitdirOf(file)).toBeUndefined();
  });
});

describe('gitMounts', () => {
  it('a worktree whose shared repository lacks objects: only what exists is writable, logs made; commondir read with its line end', () => {
    const common = path.join(temp(), 'repo.git');
    fs.mkdirSync(path.join(common, 'refs'), { recursive: true });
    const admin = path.join(common, 'worktrees', 'w');
    fs.mkdirSync(admin, { recursive: true });
    fs.writeFileSync(path.join(admin, 'commondir'), '../..\r\n');
    const root = temp();
    fs.writeFileSync(path.join(root, '.git'), `gitdir: ${admin}\n`);
    fs.writeFileSync(path.join(admin, 'gitdir'), `${path.join(root, '.git')}\n`);
    expect(gitMounts(root)).toEqual({
      readOnly: [common],
      writable: [path.join(common, 'refs'), path.join(common, 'logs'), admin],
      pinnedFiles: ['commondir', 'gitdir', 'config.worktree'].map((f) => path.join(admin, f)),
    });
  });

  it('a .git that is a link (even to a valid pointer), or a gitdir that is a file: nothing writable', () => {
    const admin = temp();
    fs.writeFileSync(path.join(admin, 'commondir'), '.\n');
    const pointer = path.join(temp(), 'pointer');
    fs.writeFileSync(pointer, `gitdir: ${admin}\n`);
    const root = temp();
    fs.symlinkSync(pointer, path.join(root, '.git'));
    expect(gitMounts(root)).toEqual({ readOnly: [], writable: [], pinnedFiles: [] });
    const other = temp();
    const file = path.join(admin, 'file');
    fs.writeFileSync(file, '');
    fs.writeFileSync(path.join(other, '.git'), `gitdir: ${file}\n`);
    expect(gitMounts(other)).toEqual({ readOnly: [], writable: [], pinnedFiles: [] });
  });

  // The .git file is the repository's: it must not make the sandbox show (or let it write) a folder of the host.
  it('a .git file naming ~/.ssh, or another repository, or an admin folder of the repository\'s own making: nothing mounted', () => {
    const home = temp();
    fs.mkdirSync(path.join(home, '.ssh'));
    const root = temp();
    fs.writeFileSync(path.join(root, '.git'), `gitdir: ${path.join(home, '.ssh')}\n`);
    expect(gitMounts(root)).toEqual({ readOnly: [], writable: [], pinnedFiles: [] });
    // An admin folder inside the repository whose commondir names the user's other repository.
    const other = path.join(temp(), 'private.git');
    fs.mkdirSync(path.join(other, 'objects'), { recursive: true });
    fs.mkdirSync(path.join(root, 'fake-admin'));
    fs.writeFileSync(path.join(root, 'fake-admin', 'commondir'), `${other}\n`);
    fs.writeFileSync(path.join(root, 'fake-admin', 'gitdir'), `${path.join(root, '.git')}\n`);
    fs.writeFileSync(path.join(root, '.git'), 'gitdir: fake-admin\n');
    expect(gitMounts(root)).toEqual({ readOnly: [], writable: [], pinnedFiles: [] });
    // A real worktree admin folder of another checkout (its gitdir names that checkout, not this one).
    const admin = path.join(other, 'worktrees', 'theirs');
    fs.mkdirSync(admin, { recursive: true });
    fs.writeFileSync(path.join(admin, 'commondir'), '../..\n');
    fs.writeFileSync(path.join(admin, 'gitdir'), '/somewhere/else/.git\n');
    fs.writeFileSync(path.join(root, '.git'), `gitdir: ${admin}\n`);
    expect(gitMounts(root)).toEqual({ readOnly: [], writable: [], pinnedFiles: [] });
  });

  it('a submodule\'s git folder counts only inside an enclosing repository\'s .git/modules/', () => {
    const top = temp();
    const admin = path.join(top, '.git', 'modules', 'sub');
    fs.mkdirSync(admin, { recursive: true });
    const sub = path.join(top, 'sub');
    fs.mkdirSync(sub);
    fs.writeFileSync(path.join(sub, '.git'), 'gitdir: ../.git/modules/sub\n');
    expect(gitMounts(sub)).toEqual({ readOnly: [fs.realpathSync(admin)], writable: [], pinnedFiles: [] });
    const elsewhere = temp();
    fs.writeFileSync(path.join(sub, '.git'), `gitdir: ${elsewhere}\n`);
    expect(gitMounts(sub)).toEqual({ readOnly: [], writable: [], pinnedFiles: [] });
  });

  it("a .git link to a real worktree's pointer (which names the link's target back): nothing mounted, the link is not followed", () => {
    const common = path.join(temp(), 'repo.git');
    fs.mkdirSync(path.join(common, 'objects'), { recursive: true });
    const admin = path.join(common, 'worktrees', 'w');
    fs.mkdirSync(admin, { recursive: true });
    fs.writeFileSync(path.join(admin, 'commondir'), '../..\n');
    const worktree = temp();
    fs.writeFileSync(path.join(worktree, '.git'), `gitdir: ${admin}\n`);
    fs.writeFileSync(path.join(admin, 'gitdir'), `${path.join(worktree, '.git')}\n`);
    expect(gitMounts(worktree).writable).toContain(admin);
    const root = temp();
    fs.symlinkSync(path.join(worktree, '.git'), path.join(root, '.git'));
    expect(gitMounts(root)).toEqual({ readOnly: [], writable: [], pinnedFiles: [] });
  });

  it("a submodule nested deeper (libs/sub) counts; a folder merely named like modules (.git/modules-x/) does not", () => {
    const top = temp();
    const admin = path.join(top, '.git', 'modules', 'libs', 'sub');
    fs.mkdirSync(admin, { recursive: true });
    const sub = path.join(top, 'libs', 'sub');
    fs.mkdirSync(sub, { recursive: true });
    fs.writeFileSync(path.join(sub, '.git'), 'gitdir: ../../.git/modules/libs/sub\n');
    expect(gitMounts(sub)).toEqual({ readOnly: [fs.realpathSync(admin)], writable: [], pinnedFiles: [] });
    const lookalike = path.join(top, '.git', 'modules-x', 'sub');
    fs.mkdirSync(lookalike, { recursive: true });
    const other = path.join(top, 'other');
    fs.mkdirSync(other);
    fs.writeFileSync(path.join(other, '.git'), 'gitdir: ../.git/modules-x/sub\n');
    expect(gitMounts(other)).toEqual({ readOnly: [], writable: [], pinnedFiles: [] });
  });
});
