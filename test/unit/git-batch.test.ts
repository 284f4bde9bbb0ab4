// How many programs git's work costs per tool call. Outside any git work
// tree, a checkpoint starts no git at all (no `.git` above the folder: git
// could not find one either). Inside one, a checkpoint is one batch: one
// hardening (config read, submodules listed), its git folder pinned for every
// command, 8 programs in all, where each command hardened on its own took 21.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Checkpoints } from '../../server/workspace/checkpoints.js';
import { mayBeInWorkTree, repoTop, workTreeBatch } from '../../server/workspace/git.js';
import { tempDir } from '../helpers/temp-dir.js';

const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
let log = '';
let savedPath: string | undefined;

/** Each git started: its GIT_DIR and its subcommand. */
const started = () => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8').trim().split('\n').filter(Boolean) : []);

beforeEach(() => {
  const bin = tempDir('git-batch-bin');
  log = path.join(bin, 'log');
  fs.writeFileSync(path.join(bin, 'git'), `#!/bin/sh\necho "$GIT_DIR|$1" >> '${log}'\nexec '${realGit}' "$@"\n`, { mode: 0o755 });
  savedPath = process.env.PATH;
  process.env.PATH = `${bin}${path.delimiter}${savedPath}`;
});

afterEach(() => {
  process.env.PATH = savedPath;
});

function repo(): string {
  const dir = fs.realpathSync(tempDir('git-batch-repo'));
  const plain = (...args: string[]) => execFileSync(realGit, ['-c', 'user.name=u', '-c', 'user.email=u@example.invalid', ...args], { cwd: dir, stdio: 'ignore' });
  plain('init', '--quiet');
  fs.writeFileSync(path.join(dir, 'a.txt'), 'one\n');
  plain('add', '-A');
  plain('commit', '--quiet', '-m', 'start');
  return dir;
}

describe("git's programs per tool call", () => {
  it('outside any work tree, a checkpoint and the repository checks start no git', async () => {
    const plain = tempDir('git-batch-plain');
    expect(mayBeInWorkTree(plain)).toBe(false);
    expect(await repoTop(plain)).toBeUndefined();
    expect(await workTreeBatch(plain)).toBeUndefined();
    const checkpoints = new Checkpoints(path.join(tempDir('git-batch-session'), 's'), plain, 's');
    fs.writeFileSync(path.join(plain, 'a.txt'), 'one\n');
    await checkpoints.before('bash', { command: 'true' }, 1);
    expect(started()).toEqual([]);
  });

  it('a `.git` anywhere above the folder (a folder or a gitfile) lets git decide', async () => {
    const top = tempDir('git-batch-gitfile');
    const below = path.join(top, 'a', 'b');
    fs.mkdirSync(below, { recursive: true });
    fs.writeFileSync(path.join(top, '.git'), 'gitdir: /nowhere\n');
    expect(mayBeInWorkTree(below)).toBe(true);
    // git is asked, and finds no work tree behind that pointer.
    expect(await repoTop(below)).toBeUndefined();
    expect(started().length).toBeGreaterThan(0);
    const real = repo();
    const sub = path.join(real, 'src', 'deep');
    fs.mkdirSync(sub, { recursive: true });
    expect(await repoTop(sub)).toBe(real);
  });

  it('in a work tree, one checkpoint is one batch: 8 programs, every one with the same pinned git folder', async () => {
    const dir = repo();
    const session = path.join(tempDir('git-batch-session'), 's');
    const checkpoints = new Checkpoints(session, dir, 's');
    fs.writeFileSync(path.join(dir, 'a.txt'), 'two\n');
    fs.writeFileSync(path.join(dir, 'new.txt'), 'new\n');
    await checkpoints.before('bash', { command: 'true' }, 5);
    // Less the version check, made once per git binary (each test has a wrapper of its own).
    const runs = started().filter((r) => !r.endsWith('|--version'));
    expect(runs.map((r) => r.split('|')[1])).toEqual(['rev-parse', 'config', 'ls-files', 'add', 'write-tree', 'rev-parse', 'commit-tree', 'update-ref']);
    const pinned = runs.slice(1).map((r) => r.split('|')[0]);
    expect(new Set(pinned)).toEqual(new Set([path.join(dir, '.git')]));
    // The checkpoint holds the folder as it was, and the user's index was only read.
    const commit = execFileSync(realGit, ['rev-parse', 'refs/skein/checkpoints/s'], { cwd: dir, encoding: 'utf8' }).trim();
    expect(execFileSync(realGit, ['show', `${commit}:new.txt`], { cwd: dir, encoding: 'utf8' })).toBe('new\n');
    expect(execFileSync(realGit, ['status', '--porcelain'], { cwd: dir, encoding: 'utf8' })).toBe(' M a.txt\n?? new.txt\n');
  });
});
