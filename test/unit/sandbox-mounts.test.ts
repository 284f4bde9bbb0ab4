// What the sandbox mounts (server/tools/sandbox/mounts.ts, git-metadata.ts,
// protected-paths.ts), read from the bwrap arguments it builds: the working
// folder writable and nothing else of the host's, the repository above it
// read-only, the data folder and the protected files never writable, a
// worktree's own git metadata writable and the files that point git
// elsewhere pinned. The real bwrap runs these in test/hostile/sandbox.test.ts;
// these are the fast checks of the plan itself.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { gitdirOf, gitMounts } from '../../server/tools/sandbox/git-metadata.js';
import { mountPlan, within } from '../../server/tools/sandbox/mounts.js';
import { isProtectedProjectPath, PROTECTED_PROJECT_PATHS } from '../../server/tools/sandbox/protected-paths.js';
import { tempDirsPerTest } from '../helpers/temp-dir.js';

const temp = tempDirsPerTest('mounts');

/** The [flag, ...paths] mounts of an argument list, e.g. ['--bind', '/w', '/w']. */
function mounts(args: string[]): string[][] {
  const out: string[][] = [];
  for (let i = 0; i < args.length; ) {
    const flag = args[i]!;
    const n = flag === '--tmpfs' || flag === '--dev' || flag === '--proc' ? 1 : 2;
    out.push(args.slice(i, i + 1 + n));
    i += 1 + n;
  }
  return out;
}
const has = (args: string[], ...mount: string[]) => mounts(args).some((m) => m.join('\0') === mount.join('\0'));
const indexOf = (args: string[], ...mount: string[]) => mounts(args).findIndex((m) => m.join('\0') === mount.join('\0'));
/** Every path bound writable. */
const writable = (args: string[]) => mounts(args).filter((m) => m[0] === '--bind').map((m) => m[1]);

function git(cwd: string, ...args: string[]): void {
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, stdio: 'ignore' });
}

describe('within', () => {
  it('is true for the folder itself and what is inside it, false for a sibling sharing its prefix and for its parent', () => {
    expect(within('/a/b', '/a/b')).toBe(true);
    expect(within('/a/b', '/a/b/c/d')).toBe(true);
    expect(within('/a/b', '/a/bc')).toBe(false);
    expect(within('/a/b', '/a')).toBe(false);
    expect(within('/a/b', '/x/y')).toBe(false);
  });
});

describe('isProtectedProjectPath', () => {
  it('is the .git folder and everything in it, and the project files at the top of the working folder', () => {
    const w = '/work/p';
    for (const rel of PROTECTED_PROJECT_PATHS) expect(isProtectedProjectPath(w, path.join(w, rel)), rel).toBe(true);
    expect(isProtectedProjectPath(w, '/work/p/.git/config')).toBe(true);
    expect(isProtectedProjectPath(w, '/work/p/.git/hooks/pre-commit')).toBe(true);
    expect(isProtectedProjectPath(w, '/work/p/sub/../.mcp.json')).toBe(true);
    expect(isProtectedProjectPath('/work/p/', '/work/p/AGENTS.md')).toBe(true);
  });

  it('is not a name that merely starts like one, a file of that name in a subfolder, the folder itself, or anything outside it', () => {
    const w = '/work/p';
    expect(isProtectedProjectPath(w, '/work/p/.gitignore')).toBe(false);
    expect(isProtectedProjectPath(w, '/work/p/.github/workflows/ci.yml')).toBe(false);
    expect(isProtectedProjectPath(w, '/work/p/AGENTS.md.bak')).toBe(false);
    expect(isProtectedProjectPath(w, '/work/p/docs/AGENTS.md')).toBe(false);
    expect(isProtectedProjectPath(w, '/work/p')).toBe(false);
    expect(isProtectedProjectPath(w, '/work/.git')).toBe(false);
    expect(isProtectedProjectPath(w, '/work/p-other/.git')).toBe(false);
    expect(isProtectedProjectPath(w, '/elsewhere/.mcp.json')).toBe(false);
  });
});

describe('gitMounts', () => {
  it('a folder without .git, or a checkout with its own .git folder: nothing beyond the caller’s read-only pin', () => {
    const plain = temp();
    expect(gitMounts(plain)).toEqual({ readOnly: [], writable: [], pinnedFiles: [] });
    git(plain, 'init', '-q');
    expect(gitMounts(plain)).toEqual({ readOnly: [], writable: [], pinnedFiles: [] });
  });

  it('a linked worktree: the repository read-only, its objects, refs and logs and its own admin folder writable, the pointer files pinned', () => {
    const repo = temp();
    git(repo, 'init', '-q');
    fs.writeFileSync(path.join(repo, 'f'), 'x');
    git(repo, 'add', 'f');
    git(repo, 'commit', '-qm', 'one');
    fs.rmSync(path.join(repo, '.git', 'logs'), { recursive: true, force: true });
    const tree = path.join(temp(), 'wt');
    git(repo, 'worktree', 'add', '-q', tree);
    const admin = gitdirOf(path.join(tree, '.git'))!;
    expect(admin).toBe(path.join(repo, '.git', 'worktrees', 'wt'));
    const common = path.join(repo, '.git');
    expect(gitMounts(tree)).toEqual({
      readOnly: [common],
      writable: [path.join(common, 'objects'), path.join(common, 'refs'), path.join(common, 'logs'), admin],
      pinnedFiles: ['commondir', 'gitdir', 'config.worktree'].map((f) => path.join(admin, f)),
    });
    // The logs folder is made for a repository that never logged (git writes reflogs there).
    expect(fs.statSync(path.join(common, 'logs')).isDirectory()).toBe(true);
  });

  it('a .git file naming a folder without commondir (a submodule’s git folder, under the enclosing .git/modules/): that folder read-only, nothing writable', () => {
    const top = temp();
    const modules = path.join(top, '.git', 'modules', 'sub');
    fs.mkdirSync(modules, { recursive: true });
    const root = path.join(top, 'sub');
    fs.mkdirSync(root);
    fs.writeFileSync(path.join(root, '.git'), `gitdir: ${modules}\n`);
    expect(gitMounts(root)).toEqual({ readOnly: [fs.realpathSync(modules)], writable: [], pinnedFiles: [] });
  });

  it('a .git file that names nothing, a missing folder, or a commondir that is no folder: nothing writable', () => {
    const root = temp();
    fs.writeFileSync(path.join(root, '.git'), 'not a pointer\n');
    expect(gitdirOf(path.join(root, '.git'))).toBeUndefined();
    expect(gitMounts(root).writable).toEqual([]);
    fs.writeFileSync(path.join(root, '.git'), 'gitdir: missing/admin\n');
    expect(gitdirOf(path.join(root, '.git'))).toBe(path.join(root, 'missing', 'admin'));
    expect(gitMounts(root)).toEqual({ readOnly: [], writable: [], pinnedFiles: [] });
    const admin = path.join(root, 'admin');
    fs.mkdirSync(admin);
    fs.writeFileSync(path.join(admin, 'commondir'), 'no-such-common\n');
    fs.writeFileSync(path.join(root, '.git'), 'gitdir: admin\n');
    expect(gitMounts(root)).toEqual({ readOnly: [], writable: [], pinnedFiles: [] });
    expect(gitdirOf(path.join(root, 'absent'))).toBeUndefined();
  });
});

describe('mountPlan', () => {
  it('binds the working folder writable and nothing else; system folders read-only, /etc secrets hidden, a private /tmp, /dev, /proc and home', () => {
    const work = temp();
    const home = temp();
    const plan = mountPlan({ workDir: work, home });
    try {
      expect(plan.workDir).toBe(work);
      expect(plan.privateHome).toBe(home);
      expect(writable(plan.args)).toEqual([work]);
      expect(has(plan.args, '--bind', work, work)).toBe(true);
      expect(has(plan.args, '--ro-bind', '/usr', '/usr')).toBe(true);
      if (fs.existsSync('/etc/shadow')) expect(has(plan.args, '--ro-bind', '/dev/null', '/etc/shadow')).toBe(true);
      for (const m of [['--dev', '/dev'], ['--proc', '/proc'], ['--tmpfs', '/tmp'], ['--tmpfs', '/var/tmp'], ['--tmpfs', home]]) expect(has(plan.args, ...m), m.join(' ')).toBe(true);
      // Nothing of the host's root, /run, /root or /home is shown.
      for (const m of mounts(plan.args)) expect(['/', '/run', '/root', '/home', '/var/run', '/mnt']).not.toContain(m.at(-1));
      // /etc/shadow's /dev/null comes after /etc itself (a later mount covers an earlier one).
      if (fs.existsSync('/etc/shadow')) expect(indexOf(plan.args, '--ro-bind', '/dev/null', '/etc/shadow')).toBeGreaterThan(indexOf(plan.args, '--ro-bind', '/etc', '/etc'));
    } finally {
      plan.release();
    }
  });

  it('a home that is / or in a system folder gets no tmpfs of its own (it would cover the system)', () => {
    const work = temp();
    for (const home of ['/', '/usr/share', '/etc']) {
      const plan = mountPlan({ workDir: work, home });
      expect(plan.privateHome, home).toBeUndefined();
      expect(has(plan.args, '--tmpfs', home), home).toBe(false);
      plan.release();
    }
  });

  it('the protected files are read-only on top of the writable folder; an absent one gets a stand-in that release removes (once)', () => {
    const work = temp();
    fs.writeFileSync(path.join(work, 'AGENTS.md'), 'be nice');
    const plan = mountPlan({ workDir: work, home: temp() });
    const bindAt = indexOf(plan.args, '--bind', work, work);
    for (const rel of PROTECTED_PROJECT_PATHS) {
      const p = path.join(work, rel);
      expect(indexOf(plan.args, '--ro-bind', p, p), rel).toBeGreaterThan(bindAt);
      expect(fs.existsSync(p), rel).toBe(true);
    }
    // The stand-ins are empty read-only folders; the real file is left alone.
    expect(fs.statSync(path.join(work, '.mcp.json')).isDirectory()).toBe(true);
    plan.release();
    plan.release();
    expect(fs.existsSync(path.join(work, '.mcp.json'))).toBe(false);
    expect(fs.existsSync(path.join(work, '.git'))).toBe(false);
    expect(fs.readFileSync(path.join(work, 'AGENTS.md'), 'utf8')).toBe('be nice');
  });

  it('a protected name that is a link: its target is pinned when inside the project, never when outside', () => {
    const work = temp();
    fs.writeFileSync(path.join(work, 'real.md'), 'x');
    fs.symlinkSync(path.join(work, 'real.md'), path.join(work, 'AGENTS.md'));
    const outside = path.join(temp(), 'out.md');
    fs.writeFileSync(outside, 'y');
    fs.symlinkSync(outside, path.join(work, 'CLAUDE.md'));
    const plan = mountPlan({ workDir: work, home: temp() });
    try {
      expect(has(plan.args, '--ro-bind', path.join(work, 'real.md'), path.join(work, 'real.md'))).toBe(true);
      expect(has(plan.args, '--ro-bind', path.join(work, 'AGENTS.md'), path.join(work, 'AGENTS.md'))).toBe(false);
      expect(mounts(plan.args).some((m) => m.includes(outside) || m.includes(path.join(work, 'CLAUDE.md')))).toBe(false);
    } finally {
      plan.release();
    }
  });

  it('a working folder inside a repository: the repository read-only under the writable folder; the data folder inside it an empty tmpfs', () => {
    const repo = temp();
    git(repo, 'init', '-q');
    const work = path.join(repo, 'pkg');
    fs.mkdirSync(work);
    const data = path.join(repo, '.skein-data');
    fs.mkdirSync(data);
    const plan = mountPlan({ workDir: work, dataDir: data, home: temp() });
    try {
      expect(indexOf(plan.args, '--ro-bind', repo, repo)).toBeGreaterThanOrEqual(0);
      expect(indexOf(plan.args, '--ro-bind', repo, repo)).toBeLessThan(indexOf(plan.args, '--bind', work, work));
      expect(writable(plan.args)).toEqual([work]);
      expect(indexOf(plan.args, '--tmpfs', data)).toBeGreaterThan(indexOf(plan.args, '--ro-bind', repo, repo));
    } finally {
      plan.release();
    }
  });

  it('the data folder inside the working folder is an empty tmpfs after the bind; one outside the project is not mounted at all', () => {
    const work = temp();
    const inside = path.join(work, 'data');
    fs.mkdirSync(inside);
    const plan = mountPlan({ workDir: work, dataDir: inside, home: temp() });
    expect(indexOf(plan.args, '--tmpfs', inside)).toBeGreaterThan(indexOf(plan.args, '--bind', work, work));
    plan.release();
    const outside = temp();
    const other = mountPlan({ workDir: work, dataDir: outside, home: temp() });
    expect(mounts(other.args).some((m) => m.includes(outside))).toBe(false);
    other.release();
  });

  it('a worktree session inside the data folder: the data folder hidden first, the worktree bound on top', () => {
    const data = temp();
    const work = path.join(data, 'worktrees', 's1');
    fs.mkdirSync(work, { recursive: true });
    const plan = mountPlan({ workDir: work, dataDir: data, home: temp() });
    try {
      const hidden = indexOf(plan.args, '--tmpfs', data);
      expect(hidden).toBeGreaterThanOrEqual(0);
      expect(hidden).toBeLessThan(indexOf(plan.args, '--bind', work, work));
    } finally {
      plan.release();
    }
  });

  it('a repository that is the home folder is not shown to a working folder inside it; a working folder that is home hides its tools’ credentials', () => {
    const home = temp();
    git(home, 'init', '-q');
    fs.mkdirSync(path.join(home, '.ssh'));
    fs.writeFileSync(path.join(home, '.netrc'), 'machine x password y');
    const work = path.join(home, 'code');
    fs.mkdirSync(work);
    const plan = mountPlan({ workDir: work, home });
    try {
      expect(has(plan.args, '--ro-bind', home, home)).toBe(false);
      expect(writable(plan.args)).toEqual([work]);
    } finally {
      plan.release();
    }
    const inHome = mountPlan({ workDir: home, home });
    try {
      expect(has(inHome.args, '--tmpfs', path.join(home, '.ssh'))).toBe(true);
      expect(indexOf(inHome.args, '--ro-bind', '/dev/null', path.join(home, '.netrc'))).toBeGreaterThan(indexOf(inHome.args, '--bind', home, home));
      expect(has(inHome.args, '--tmpfs', path.join(home, '.aws'))).toBe(false);
    } finally {
      inHome.release();
    }
    // The working folder outside home: home's files are not its business (the private home covers them).
    const away = mountPlan({ workDir: temp(), home });
    expect(has(away.args, '--tmpfs', path.join(home, '.ssh'))).toBe(false);
    away.release();
  });

  it('SKEIN_SANDBOX_READ folders are read-only (absent ones skipped), and a data folder inside one is hidden', () => {
    const work = temp();
    const extra = temp();
    const data = path.join(extra, 'data');
    fs.mkdirSync(data);
    const plan = mountPlan({ workDir: work, dataDir: data, home: temp(), readOnly: [extra, '/no/such/folder'] });
    try {
      expect(has(plan.args, '--ro-bind', extra, extra)).toBe(true);
      expect(mounts(plan.args).some((m) => m.includes('/no/such/folder'))).toBe(false);
      expect(indexOf(plan.args, '--tmpfs', data)).toBeGreaterThan(indexOf(plan.args, '--ro-bind', extra, extra));
    } finally {
      plan.release();
    }
  });

  it('a linked worktree: its admin folder and the shared objects writable, its pointer files pinned after them (stand-ins for absent ones)', () => {
    const repo = temp();
    git(repo, 'init', '-q');
    fs.writeFileSync(path.join(repo, 'f'), 'x');
    git(repo, 'add', 'f');
    git(repo, 'commit', '-qm', 'one');
    const tree = path.join(temp(), 'wt');
    git(repo, 'worktree', 'add', '-q', tree);
    const admin = path.join(repo, '.git', 'worktrees', 'wt');
    const plan = mountPlan({ workDir: tree, home: temp() });
    try {
      expect(writable(plan.args)).toEqual([tree, path.join(repo, '.git', 'objects'), path.join(repo, '.git', 'refs'), path.join(repo, '.git', 'logs'), admin]);
      const adminAt = indexOf(plan.args, '--bind', admin, admin);
      for (const f of ['commondir', 'gitdir', 'config.worktree']) expect(indexOf(plan.args, '--ro-bind', path.join(admin, f), path.join(admin, f)), f).toBeGreaterThan(adminAt);
      expect(fs.existsSync(path.join(admin, 'config.worktree'))).toBe(true);
    } finally {
      plan.release();
    }
    expect(fs.existsSync(path.join(admin, 'config.worktree'))).toBe(false);
    expect(fs.existsSync(path.join(admin, 'commondir'))).toBe(true);
  });

  it('plan mode (readOnlyProject): a linked worktree with a data folder inside it binds nothing writable and makes no stand-in; every tmpfs but /tmp and /var/tmp, and the root, to be made read-only', () => {
    const repo = temp();
    git(repo, 'init', '-q');
    fs.writeFileSync(path.join(repo, 'f'), 'x');
    git(repo, 'add', 'f');
    git(repo, 'commit', '-qm', 'one');
    const tree = path.join(temp(), 'wt');
    git(repo, 'worktree', 'add', '-q', tree);
    const admin = path.join(repo, '.git', 'worktrees', 'wt');
    const home = temp();
    const dataDir = path.join(tree, '.data');
    const before = fs.readdirSync(tree).sort();
    const plan = mountPlan({ workDir: tree, home, dataDir, readOnlyProject: true });
    try {
      expect(writable(plan.args)).toEqual([]);
      expect(has(plan.args, '--ro-bind', tree, tree)).toBe(true);
      expect(has(plan.args, '--ro-bind', admin, admin)).toBe(true);
      // No stand-in for the absent protected files nor the pointer files: nothing can create them anyway.
      expect(fs.readdirSync(tree).sort()).toEqual(before);
      expect(fs.existsSync(path.join(admin, 'config.worktree'))).toBe(false);
      expect(plan.remountReadOnly).toEqual(expect.arrayContaining(['/', home, dataDir]));
      expect(plan.remountReadOnly).not.toContain('/tmp');
      expect(plan.remountReadOnly).not.toContain('/var/tmp');
      // The writable variant remounts nothing.
      const rw = mountPlan({ workDir: tree, home, dataDir });
      rw.release();
      expect(rw.remountReadOnly).toEqual([]);
    } finally {
      plan.release();
    }
  });
});
