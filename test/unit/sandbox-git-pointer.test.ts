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
});
