// The decisions behind the server's git hardening (server/workspace/git-hardening.ts),
// on config lists written out by hand, so every case is exact and fast: only a
// scope the repository can write (local, worktree, an included file) is
// overridden; the user's own value (global or system, never skein's own
// command-line one, never a bare boolean) is what comes back, anything else runs
// nothing; names compare as git compares them (section and variable without
// case, the subsection exactly); a filter whose program was emptied is not
// required. The real-git checks of the same are in git-hardening.test.ts.
import { describe, expect, it } from 'vitest';
import { type ConfigEntry, gitEnvironment, overridesFor, parseConfigList } from '../../server/workspace/git-hardening.js';

const e = (scope: string, key: string, value?: string): ConfigEntry => ({ scope, key, value });
const overrides = (...entries: ConfigEntry[]) => new Map(overridesFor(entries));

describe('parseConfigList', () => {
  it('reads scope and key\\nvalue pairs; a bare boolean has no value; a value keeps its own newlines and "="', () => {
    expect(parseConfigList('local\0core.fsmonitor\nevil\0global\0x.flag\0local\0y.text\na\nb=c\0')).toEqual([e('local', 'core.fsmonitor', 'evil'), e('global', 'x.flag'), e('local', 'y.text', 'a\nb=c')]);
    expect(parseConfigList('local\0core.pager\n\0')).toEqual([e('local', 'core.pager', '')]);
    expect(parseConfigList('')).toEqual([]);
    // A truncated list (a scope without its item) adds nothing half-read.
    expect(parseConfigList('local\0a.b\nc\0global')).toEqual([e('local', 'a.b', 'c')]);
  });
});

describe('overridesFor', () => {
  it('overrides an exec key the repository sets (local, worktree or an included file) with one that runs nothing', () => {
    for (const scope of ['local', 'worktree', 'unknown']) {
      expect(overrides(e(scope, 'core.fsmonitor', '/repo/evil')), scope).toEqual(new Map([['core.fsmonitor', 'false']]));
    }
    expect(overrides(e('local', 'core.hooksPath', 'hooks'), e('local', 'credential.helper', '!evil'), e('local', 'remote.origin.uploadpack', 'evil'))).toEqual(
      new Map([
        ['core.hookspath', '/dev/null'],
        ['credential.helper', ''],
        ['remote.origin.uploadpack', ''],
      ]),
    );
  });

  it('leaves alone what only the user sets (global, system, command) and keys that run nothing', () => {
    expect(overridesFor([e('global', 'core.pager', 'less'), e('system', 'core.fsmonitor', 'x'), e('command', 'core.hooksPath', '/dev/null')])).toEqual([]);
    expect(overridesFor([e('local', 'core.bare', 'false'), e('local', 'user.name', 'u'), e('worktree', 'filter.x.other', 'y')])).toEqual([]);
  });

  it("gives back the user's global or system value, not skein's own command-line one nor a bare boolean", () => {
    expect(overrides(e('global', 'core.pager', 'less -R'), e('local', 'core.pager', 'evil')).get('core.pager')).toBe('less -R');
    expect(overrides(e('system', 'diff.external', 'mydiff'), e('local', 'diff.external', 'evil')).get('diff.external')).toBe('mydiff');
    expect(overrides(e('command', 'core.pager', 'cat-from-skein'), e('local', 'core.pager', 'evil')).get('core.pager')).toBe('cat');
    expect(overrides(e('global', 'core.fsmonitor'), e('local', 'core.fsmonitor', 'evil')).get('core.fsmonitor')).toBe('false');
  });

  it('compares section and variable without case and the subsection exactly, as git does', () => {
    expect(overrides(e('local', 'CORE.FSMonitor', 'evil'))).toEqual(new Map([['core.fsmonitor', 'false']]));
    // The user's "filter.LFS.clean" is not the repository's "filter.lfs.clean".
    const mixed = overrides(e('global', 'FILTER.LFS.CLEAN', 'git-lfs clean -- %f'), e('local', 'Filter.LFS.Clean', 'evil'), e('local', 'filter.lfs.clean', 'evil'));
    expect(mixed.get('filter.LFS.clean')).toBe('git-lfs clean -- %f');
    expect(mixed.get('filter.lfs.clean')).toBe('');
    // A subsection with dots and capitals stays whole.
    expect(overrides(e('local', 'diff.My.Tool.TextConv', 'evil'))).toEqual(new Map([['diff.My.Tool.textconv', '']]));
  });

  it('a filter program emptied by the override makes its driver not required, even where the user requires it', () => {
    expect(overrides(e('local', 'filter.own.smudge', 'evil'))).toEqual(
      new Map([
        ['filter.own.smudge', ''],
        ['filter.own.required', 'false'],
      ]),
    );
    const required = overrides(e('global', 'filter.lfs.required', 'true'), e('local', 'filter.lfs.process', 'evil'));
    expect(required.get('filter.lfs.process')).toBe('');
    expect(required.get('filter.lfs.required')).toBe('false');
    // The driver's name may hold dots: "a.b" is the driver, "clean" the variable.
    expect(overrides(e('local', 'filter.a.b.clean', 'evil')).get('filter.a.b.required')).toBe('false');
    // A diff driver named "filter.x" is no filter: nothing about a filter "x" is set.
    expect(overrides(e('local', 'diff.filter.x.textconv', 'evil'))).toEqual(new Map([['diff.filter.x.textconv', '']]));
  });

  it("a filter program the user installed keeps the user's required setting (git-lfs keeps working)", () => {
    const lfs = overrides(e('global', 'filter.lfs.clean', 'git-lfs clean -- %f'), e('global', 'filter.lfs.required', 'true'), e('local', 'filter.lfs.clean', 'evil'));
    expect(lfs.get('filter.lfs.clean')).toBe('git-lfs clean -- %f');
    expect(lfs.get('filter.lfs.required')).toBe('true');
    // Without a user "required": not required.
    expect(overrides(e('global', 'filter.lfs.clean', 'git-lfs clean'), e('local', 'filter.lfs.clean', 'evil')).get('filter.lfs.required')).toBe('false');
    // The repository's own "required = true" alone empties no program: the driver stays as the user set it.
    expect(overrides(e('global', 'filter.lfs.required', 'true'), e('local', 'filter.lfs.required', 'true')).get('filter.lfs.required')).toBe('true');
    expect(overrides(e('local', 'filter.x.required', 'true'))).toEqual(new Map([['filter.x.required', 'false']]));
  });
});

describe('gitEnvironment', () => {
  it('sets what keeps system files, prompts, pagers and locks out, in the C locale', () => {
    expect(gitEnvironment([], { PATH: '/usr/bin' })).toMatchObject({ GIT_CONFIG_NOSYSTEM: '1', GIT_ATTR_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0', GIT_PAGER: 'cat', GIT_OPTIONAL_LOCKS: '0', LC_ALL: 'C' });
  });

  it('drops every variable that points git at other files or programs, and keeps the rest', () => {
    const base = { PATH: '/usr/bin', HOME: '/home/u', LANG: 'de_DE.UTF-8', GIT_DIR: '/x', GIT_WORK_TREE: '/x', SSH_ASKPASS: '/evil', SSH_AUTH_SOCK: '/sock', GPG_AGENT_INFO: 'x', PAGER: 'evil', EDITOR: 'evil', VISUAL: 'evil', LESSOPEN: '|evil %s', LESSCLOSE: 'evil', SSH_ASKPASS_REQUIRE: 'never' };
    const env = gitEnvironment([], base);
    for (const name of ['GIT_DIR', 'GIT_WORK_TREE', 'SSH_ASKPASS', 'SSH_AUTH_SOCK', 'GPG_AGENT_INFO', 'PAGER', 'EDITOR', 'VISUAL', 'LESSOPEN', 'LESSCLOSE']) expect(env[name], name).toBeUndefined();
    expect(env.HOME).toBe('/home/u');
    // Only the exact names: a longer one is not git's.
    expect(env.SSH_ASKPASS_REQUIRE).toBe('never');
  });

  it('has an empty PATH when the server has none, never a relative one', () => {
    expect(gitEnvironment([], {}).PATH).toBe('');
  });

  it("passes the overrides first and skein's fixed settings last, so a fixed one wins over any value", () => {
    const env = gitEnvironment([['core.pager', 'less'], ['filter.a=b.clean', '']], { PATH: '/usr/bin' });
    const count = Number(env.GIT_CONFIG_COUNT);
    const pairs = Array.from({ length: count }, (_, i) => [env[`GIT_CONFIG_KEY_${i}`], env[`GIT_CONFIG_VALUE_${i}`]]);
    expect(pairs.slice(0, 2)).toEqual([['core.pager', 'less'], ['filter.a=b.clean', '']]);
    expect(pairs.filter(([k]) => k === 'core.pager').at(-1)).toEqual(['core.pager', 'cat']);
    expect(pairs).toContainEqual(['core.fsmonitor', 'false']);
    expect(pairs).toContainEqual(['core.hooksPath', '/dev/null']);
    expect(pairs).toContainEqual(['protocol.allow', 'never']);
    expect(env[`GIT_CONFIG_KEY_${count}`]).toBeUndefined();
  });
});
