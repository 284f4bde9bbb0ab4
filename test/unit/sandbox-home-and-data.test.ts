// The sandbox's home and data folder in the cases sandbox-mounts.test.ts does
// not reach (server/tools/sandbox/mounts.ts): the home taken from the
// environment, a home that is /tmp, a working folder holding the home, the
// data folder named through a link or not made yet, a working folder inside
// the data folder, a repository root as the working folder, and a protected
// name that is a dangling link. Read from the bwrap arguments the plan builds.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { mountPlan } from '../../server/tools/sandbox/mounts.js';
import { tempDirsPerTest } from '../helpers/temp-dir.js';

const temp = tempDirsPerTest('hd');

/** The [flag, ...paths] mounts of an argument list. */
function mounts(args: string[]): string[][] {
  const out: string[][] = [];
  for (let i = 0; i < args.length; ) {
    const n = args[i] === '--tmpfs' || args[i] === '--dev' || args[i] === '--proc' ? 1 : 2;
    out.push(args.slice(i, i + 1 + n));
    i += 1 + n;
  }
  return out;
}
const indexOf = (args: string[], ...mount: string[]) => mounts(args).findIndex((m) => m.join('\0') === mount.join('\0'));
const has = (args: string[], ...mount: string[]) => indexOf(args, ...mount) >= 0;
const touching = (args: string[], p: string) => mounts(args).filter((m) => m.slice(1).some((x) => x === p || x.startsWith(`${p}/`)));

/** The plan's arguments, its stand-ins already released (the tests read only the arguments). */
function plan(input: Parameters<typeof mountPlan>[0]) {
  const p = mountPlan(input);
  p.release();
  return p;
}

describe('the sandbox home', () => {
  it("is the user's home when none is given: an empty tmpfs of its own", () => {
    const home = temp();
    // os.homedir() reads the process's real environment (a test worker's process.env is a copy).
    const spy = vi.spyOn(os, 'homedir').mockReturnValue(home);
    try {
      const p = plan({ workDir: temp() });
      expect(p.privateHome).toBe(home);
      expect(has(p.args, '--tmpfs', home)).toBe(true);
    } finally {
      spy.mockRestore();
    }
  });

  it('a home that is /tmp gets no tmpfs of its own (the sandbox /tmp is one already); one inside /tmp does', () => {
    const p = plan({ workDir: temp(), home: '/tmp' });
    expect(p.privateHome).toBeUndefined();
    expect(mounts(p.args).filter((m) => m.join(' ') === '--tmpfs /tmp')).toHaveLength(1);
    const inside = temp();
    expect(plan({ workDir: temp(), home: inside }).privateHome).toBe(inside);
  });

  it("a home that holds the server's own folder (and not /tmp) still gets its own tmpfs", () => {
    // The server's folder is under the home for a user who runs skein from a checkout in it.
    const home = process.cwd();
    const p = plan({ workDir: temp(), home });
    expect(p.privateHome).toBe(home);
    expect(has(p.args, '--tmpfs', home)).toBe(true);
  });

  it("a working folder that holds the home hides the home's credentials; one beside it does not", () => {
    const top = temp();
    const home = path.join(top, 'u');
    fs.mkdirSync(path.join(home, '.aws'), { recursive: true });
    fs.writeFileSync(path.join(home, '.git-credentials'), 'https://u:p@x');
    const p = plan({ workDir: top, home });
    expect(has(p.args, '--tmpfs', path.join(home, '.aws'))).toBe(true);
    expect(has(p.args, '--ro-bind', '/dev/null', path.join(home, '.git-credentials'))).toBe(true);
    const beside = plan({ workDir: temp(), home });
    expect(touching(beside.args, path.join(home, '.aws'))).toEqual([]);
  });
});

describe('the data folder', () => {
  it('named through a link: its real path is hidden', () => {
    const work = temp();
    const real = path.join(work, 'data');
    fs.mkdirSync(real);
    const link = path.join(temp(), 'data-link');
    fs.symlinkSync(real, link);
    const p = plan({ workDir: work, dataDir: link });
    expect(indexOf(p.args, '--tmpfs', real)).toBeGreaterThan(indexOf(p.args, '--bind', work, work));
  });

  it('not made yet: its resolved path is hidden all the same', () => {
    const work = temp();
    const data = path.join(work, 'later');
    const p = plan({ workDir: work, dataDir: path.relative(process.cwd(), data) });
    expect(has(p.args, '--tmpfs', data)).toBe(true);
  });

  it('a working folder inside a data folder inside the repository: the data folder hidden under the repository, the working folder bound on top', () => {
    const repo = temp();
    execFileSync('git', ['init', '-q'], { cwd: repo });
    const data = path.join(repo, '.skein-data');
    const work = path.join(data, 'scratch');
    fs.mkdirSync(work, { recursive: true });
    fs.writeFileSync(path.join(data, 'token'), 'secret');
    const p = plan({ workDir: work, dataDir: data, home: temp() });
    const hidden = indexOf(p.args, '--tmpfs', data);
    expect(hidden).toBeGreaterThan(indexOf(p.args, '--ro-bind', repo, repo));
    expect(hidden).toBeLessThan(indexOf(p.args, '--bind', work, work));
    // Nothing hides the working folder after its bind.
    expect(mounts(p.args).slice(indexOf(p.args, '--bind', work, work) + 1).some((m) => m[0] === '--tmpfs' && (m[1] === data || m[1] === work))).toBe(false);
  });

  it('a repository inside the data folder: the data folder hidden before the repository is shown', () => {
    const data = temp();
    const repo = path.join(data, 'clones', 'r');
    const work = path.join(repo, 'pkg');
    fs.mkdirSync(work, { recursive: true });
    fs.mkdirSync(path.join(repo, '.git'));
    const p = plan({ workDir: work, dataDir: data, home: temp() });
    const hidden = indexOf(p.args, '--tmpfs', data);
    expect(hidden).toBeGreaterThanOrEqual(0);
    expect(hidden).toBeLessThan(indexOf(p.args, '--ro-bind', repo, repo));
  });

  it('a SKEIN_SANDBOX_READ folder that does not hold the data folder hides nothing', () => {
    const extra = temp();
    const data = temp();
    const p = plan({ workDir: temp(), dataDir: data, home: temp(), readOnly: [extra] });
    expect(touching(p.args, data)).toEqual([]);
  });
});

describe('the project', () => {
  it('a working folder that is the repository root is bound writable only, not read-only as well', () => {
    const repo = temp();
    execFileSync('git', ['init', '-q'], { cwd: repo });
    const p = plan({ workDir: repo, home: temp() });
    expect(has(p.args, '--bind', repo, repo)).toBe(true);
    expect(has(p.args, '--ro-bind', repo, repo)).toBe(false);
    expect(has(p.args, '--ro-bind', path.join(repo, '.git'), path.join(repo, '.git'))).toBe(true);
  });

  it("a worktree's shared repository is read-only under its writable parts, and a second release leaves another sandbox's stand-ins", () => {
    const common = path.join(temp(), 'repo.git');
    const admin = path.join(common, 'worktrees', 'w');
    fs.mkdirSync(path.join(common, 'objects'), { recursive: true });
    fs.mkdirSync(admin, { recursive: true });
    fs.writeFileSync(path.join(admin, 'commondir'), '../..\n');
    const work = temp();
    fs.writeFileSync(path.join(work, '.git'), `gitdir: ${admin}\n`);
    fs.writeFileSync(path.join(admin, 'gitdir'), `${path.join(work, '.git')}\n`);
    const first = mountPlan({ workDir: work, home: temp() });
    const second = mountPlan({ workDir: work, home: temp() });
    try {
      expect(indexOf(first.args, '--ro-bind', common, common)).toBeGreaterThanOrEqual(0);
      expect(indexOf(first.args, '--ro-bind', common, common)).toBeLessThan(indexOf(first.args, '--bind', admin, admin));
      first.release();
      first.release();
      // The second sandbox still runs: its stand-ins stay.
      expect(fs.existsSync(path.join(work, '.mcp.json'))).toBe(true);
      expect(fs.existsSync(path.join(admin, 'config.worktree'))).toBe(true);
    } finally {
      second.release();
    }
    expect(fs.existsSync(path.join(work, '.mcp.json'))).toBe(false);
  });

  it('a protected name that is a dangling link: no mount and no stand-in (the link is left as it is)', () => {
    const work = temp();
    fs.symlinkSync(path.join(work, 'nowhere'), path.join(work, '.mcp.json'));
    const p = mountPlan({ workDir: work, home: temp() });
    try {
      expect(touching(p.args, path.join(work, '.mcp.json'))).toEqual([]);
      expect(touching(p.args, path.join(work, 'nowhere'))).toEqual([]);
      expect(fs.lstatSync(path.join(work, '.mcp.json')).isSymbolicLink()).toBe(true);
    } finally {
      p.release();
    }
  });
});
