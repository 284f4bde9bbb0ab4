// The config reading behind the server's git hardening, on real git output:
// odd values and names parse; only what the repository sets is overridden;
// the user's own value comes back; an emptied filter is not required; the
// environment carries nothing of git's own and no relative PATH entry.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { git, GitError, hardenedFor, pinnedFor } from '../../server/workspace/git.js';
import { gitEnvironment, overridesFor, parseConfigList } from '../../server/workspace/git-hardening.js';
import { tempDir } from '../helpers/temp-dir.js';

function listConfig(home: string, localConfig: string, globalConfig = ''): string {
  const repo = tempDir('hardening-repo');
  execFileSync('git', ['init', '--quiet'], { cwd: repo });
  fs.appendFileSync(path.join(repo, '.git', 'config'), localConfig);
  fs.writeFileSync(path.join(home, '.gitconfig'), globalConfig);
  return execFileSync('git', ['config', '--list', '--show-scope', '-z'], { cwd: repo, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: home, GIT_CONFIG_NOSYSTEM: '1' } });
}

describe('git hardening: config', () => {
  it('parses real output: a bare boolean, a value over two lines, a subsection with dots, "=" and capitals', () => {
    const out = listConfig(tempDir('hardening-home'), '[x]\n\tflag\n[y]\n\ttext = "one\\ntwo"\n[filter "A.b=C"]\n\tClean = run me\n');
    const entries = parseConfigList(out).filter((e) => e.scope === 'local');
    expect(entries).toContainEqual({ scope: 'local', key: 'x.flag', value: undefined });
    expect(entries).toContainEqual({ scope: 'local', key: 'y.text', value: 'one\ntwo' });
    expect(entries).toContainEqual({ scope: 'local', key: 'filter.A.b=C.clean', value: 'run me' });
  });

  it("overrides only exec keys the repository sets, with the user's value where there is one", () => {
    const out = listConfig(
      tempDir('hardening-home'),
      '[core]\n\tfsmonitor = evil\n\tbare = false\n[filter "lfs"]\n\tclean = evil\n[filter "own"]\n\tsmudge = evil\n\trequired = true\n[diff "d"]\n\ttextconv = evil\n[credential]\n\thelper = evil\n',
      '[filter "lfs"]\n\tclean = git-lfs clean -- %f\n\trequired = true\n',
    );
    const overrides = new Map(overridesFor(parseConfigList(out)));
    expect(overrides.get('filter.lfs.clean')).toBe('git-lfs clean -- %f');
    expect(overrides.get('filter.lfs.required')).toBe('true');
    expect(overrides.get('filter.own.smudge')).toBe('');
    expect(overrides.get('filter.own.required')).toBe('false');
    expect(overrides.get('diff.d.textconv')).toBe('');
    expect(overrides.get('credential.helper')).toBe('');
    expect(overrides.get('core.fsmonitor')).toBe('false');
    expect(overrides.has('core.bare')).toBe(false);
    // Nothing for keys only the user set.
    expect([...overrides.keys()].every((k) => !k.startsWith('user.'))).toBe(true);
  });

  it('an emptied process filter makes the driver not required, even if the user requires it', () => {
    const out = listConfig(tempDir('hardening-home'), '[filter "lfs"]\n\tprocess = evil\n', '[filter "lfs"]\n\tclean = git-lfs clean -- %f\n\trequired = true\n');
    const overrides = new Map(overridesFor(parseConfigList(out)));
    expect(overrides.get('filter.lfs.process')).toBe('');
    expect(overrides.get('filter.lfs.required')).toBe('false');
  });

  it("the environment has none of git's variables from the server, no relative PATH entry, and the overrides last", () => {
    const env = gitEnvironment([['filter.x.clean', '']], { PATH: `.:/usr/bin::bin:${path.sep}opt${path.sep}x`, HOME: '/home/u', GIT_DIR: '/elsewhere', GIT_EXEC_PATH: '/evil', GIT_SSH_COMMAND: 'evil', GIT_CONFIG_PARAMETERS: "'core.fsmonitor'='evil'", GITHUB_TOKEN: 'secret-value', PAGER: 'evil' });
    expect(env.PATH).toBe('/usr/bin:/opt/x');
    expect(env.HOME).toBe('/home/u');
    for (const name of ['GIT_DIR', 'GIT_EXEC_PATH', 'GIT_SSH_COMMAND', 'GIT_CONFIG_PARAMETERS', 'GITHUB_TOKEN', 'PAGER']) expect(env[name]).toBeUndefined();
    expect(env).toMatchObject({ GIT_CONFIG_NOSYSTEM: '1', GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0', GIT_CONFIG_KEY_0: 'filter.x.clean', GIT_CONFIG_VALUE_0: '' });
    const count = Number(env.GIT_CONFIG_COUNT);
    const keys = Array.from({ length: count }, (_, i) => env[`GIT_CONFIG_KEY_${i}`]);
    expect(keys).toContain('core.fsmonitor');
    expect(keys).toContain('core.hooksPath');
  });

  it('refuses a git older than 2.31 (it would ignore every override), naming the version', async () => {
    const old = tempDir('old-git');
    fs.writeFileSync(path.join(old, 'git'), '#!/bin/sh\necho "git version 2.30.2"\n', { mode: 0o755 });
    const saved = process.env.PATH;
    process.env.PATH = `${old}${path.delimiter}${saved}`;
    try {
      const attempt = git(tempDir('old-git-work'), ['status']);
      await expect(attempt).rejects.toThrow(GitError);
      await expect(attempt).rejects.toThrow(/2\.31 or newer is needed.*2\.30\.2/);
    } finally {
      process.env.PATH = saved;
    }
  });

  it('finds git in PATH again when the one found is gone or PATH changed', async () => {
    const real = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
    const first = tempDir('git-first');
    const second = tempDir('git-second');
    const log = path.join(tempDir('git-which'), 'log');
    const wrapper = (name: string) => `#!/bin/sh\necho ${name} >> '${log}'\nexec '${real}' "$@"\n`;
    fs.writeFileSync(path.join(first, 'git'), wrapper('first'), { mode: 0o755 });
    fs.writeFileSync(path.join(second, 'git'), wrapper('second'), { mode: 0o755 });
    const work = tempDir('git-which-work');
    const saved = process.env.PATH;
    const used = () => fs.readFileSync(log, 'utf8').trim().split('\n').at(-1);
    try {
      process.env.PATH = `${first}${path.delimiter}${second}${path.delimiter}${saved}`;
      await git(work, ['init', '--quiet']);
      expect(used()).toBe('first');
      fs.rmSync(path.join(first, 'git'));
      await git(work, ['status', '--short']);
      expect(used()).toBe('second');
      process.env.PATH = `${first}${path.delimiter}${saved}`;
      fs.writeFileSync(path.join(first, 'git'), wrapper('first again'), { mode: 0o755 });
      await git(work, ['status', '--short']);
      expect(used()).toBe('first again');
    } finally {
      process.env.PATH = saved;
    }
  });

  it("a batch's git folder is pinned: a .git file rewritten mid-batch does not bring in a config the overrides were not made for", async () => {
    const plain = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.name=u', '-c', 'user.email=u@example.invalid', ...args], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    const repo = tempDir('pin-repo');
    plain(repo, 'init', '--quiet');
    fs.writeFileSync(path.join(repo, 'a.txt'), 'aaa\n');
    plain(repo, 'add', '-A');
    plain(repo, 'commit', '--quiet', '-m', 'start');
    const worktree = path.join(tempDir('pin-worktree'), 'wt');
    plain(repo, 'worktree', 'add', '--quiet', '-b', 'wt', worktree);
    // Another git folder (a clone, so its index has a.txt too), whose config and attributes run a filter on every file.
    const evil = path.join(tempDir('pin-evil'), 'clone');
    plain(repo, 'clone', '--quiet', repo, evil);
    const marker = path.join(tempDir('pin-marker'), 'ran');
    fs.writeFileSync(path.join(evil, 'clean'), `#!/bin/sh\necho ran >> '${marker}'\ncat\n`, { mode: 0o755 });
    plain(evil, 'config', 'filter.x.clean', path.join(evil, 'clean'));
    fs.writeFileSync(path.join(evil, '.git', 'info', 'attributes'), '* filter=x\n');
    const redirect = () => fs.writeFileSync(path.join(worktree, '.git'), `gitdir: ${path.join(evil, '.git')}\n`);
    const edit = (when: number) => {
      fs.writeFileSync(path.join(worktree, 'a.txt'), 'bbb\n');
      fs.utimesSync(path.join(worktree, 'a.txt'), when, when);
    };
    const original = fs.readFileSync(path.join(worktree, '.git'), 'utf8');

    // Control: overrides read before the redirect, not pinned: the other folder's filter runs.
    const unpinned = await hardenedFor(worktree);
    redirect();
    edit(2_000_000_000);
    await git(worktree, ['diff', '--stat'], [0], unpinned).catch(() => undefined);
    expect(fs.existsSync(marker)).toBe(true);
    fs.rmSync(marker);

    fs.writeFileSync(path.join(worktree, '.git'), original);
    const pinned = await pinnedFor(worktree);
    redirect();
    edit(2_000_000_100);
    const { stdout } = await git(worktree, ['diff', '--stat'], [0], pinned);
    expect(stdout).toContain('a.txt');
    expect(fs.existsSync(marker)).toBe(false);
  });
});
