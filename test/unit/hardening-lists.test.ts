// The static lists of server/workspace/git-hardening.ts, each entry enforced on
// a real repository (Stryker leaves static lists out: a mutant of one of them
// was never run). Every key the repository sets to a program is read back
// through real git with the server's hardening: git must see the value that
// runs nothing. The cases are generated from the exported lists (so a changed
// value or pattern fails its own case) and, for removals, from a list written
// out here by hand, from git's documentation (so a dropped entry fails too).
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { git, hardenedFor, withVariables, type Hardening } from '../../server/workspace/git.js';
import { EXEC_KEYS, FIXED, gitEnvironment, SUBCOMMAND_FLAGS } from '../../server/workspace/git-hardening.js';
import { tempDir } from '../helpers/temp-dir.js';

/** Every key a pattern of EXEC_KEYS names: `.+` is a subsection `Drv`, each alternative and each optional part taken. */
function samples(source: string): string[] {
  const body = source.replace(/^\^/, '').replace(/\$$/, '');
  const expand = (s: string): string[] => {
    const open = s.indexOf('(');
    if (open < 0) return [s.replace(/\.\+/g, 'Drv').replace(/\\\./g, '.')];
    let depth = 0;
    let close = open;
    for (; close < s.length; close++) {
      if (s[close] === '(') depth++;
      if (s[close] === ')' && --depth === 0) break;
    }
    const optional = s[close + 1] === '?';
    const inner = s.slice(open + 1, close);
    const alternatives = inner.split('|').flatMap(expand);
    const rest = expand(s.slice(close + (optional ? 2 : 1)));
    const head = expand(s.slice(0, open));
    return head.flatMap((h) => [...alternatives, ...(optional ? [''] : [])].flatMap((a) => rest.map((r) => h + a + r)));
  };
  return expand(body);
}

const EVIL = 'touch /tmp/skein-should-never-run';

/** Keys of git (and git-lfs) that name a program, from their documentation: each one set by a repository must be neutralised. */
const PROGRAM_KEYS = [
  'core.fsmonitor', 'core.hooksPath', 'core.pager', 'core.editor', 'sequence.editor', 'core.askPass', 'core.sshCommand',
  'diff.external', 'filter.lfs.clean', 'filter.lfs.smudge', 'filter.lfs.process', 'diff.pdf.command', 'diff.pdf.textconv',
  'merge.ours.driver', 'difftool.x.cmd', 'mergetool.x.cmd', 'pager.log', 'credential.helper', 'credential.https://example.com.helper',
  'gpg.program', 'gpg.ssh.program', 'gpg.ssh.defaultKeyCommand', 'core.alternateRefsCommand', 'core.gitProxy',
  'remote.origin.uploadpack', 'remote.origin.receivepack', 'remote.origin.vcs', 'protocol.ext.allow', 'uploadpack.packObjectsHook',
  'submodule.sub.update', 'lfs.customtransfer.x.path', 'lfs.extension.x.clean', 'lfs.extension.x.smudge', 'lfs.standalonetransferagent',
  'protocol.allow', 'hook.pre-commit.command', 'tar.tgz.command', 'trailer.sign.command', 'trailer.sign.cmd', 'imap.tunnel', 'sendemail.tocmd',
  'sendemail.x.cccmd', 'sendemail.smtpserver', 'guitool.x.cmd', 'browser.x.cmd', 'browser.x.path', 'man.x.cmd', 'man.x.path',
];

/** What the overrides may give git instead of a program: each runs nothing (a no-op, a refusal, nothing at all). */
const RUNS_NOTHING = new Set(['', 'false', 'none', 'never', ':', 'cat', '/dev/null']);

/** The flags each subcommand must get (git's documentation): no external diff, no textconv, no signature check. */
const NEEDED_FLAGS = [
  ['diff', '--no-ext-diff'], ['diff', '--no-textconv'],
  ['log', '--no-ext-diff'], ['log', '--no-textconv'], ['log', '--no-show-signature'],
  ['show', '--no-ext-diff'], ['show', '--no-textconv'], ['show', '--no-show-signature'],
] as const;

const generated = EXEC_KEYS.flatMap(([pattern, neutral]) => samples(pattern.source).map((key) => ({ key, neutral, pattern: pattern.source })));

let repo: string;
let hardening: Hardening;
const valueSeen = async (key: string, h: Hardening = hardening) => (await git(repo, ['config', '--get', key], [0, 1], h)).stdout.replace(/\n$/, '');

beforeAll(async () => {
  repo = tempDir('hardening-lists');
  await git(repo, ['init', '--quiet']);
  // The repository sets every key, each to a program (plain `git config` writes the local scope).
  const keys = new Set([...PROGRAM_KEYS, ...generated.map((g) => g.key), ...FIXED.map(([key]) => key)]);
  const config = path.join(repo, '.git', 'config');
  for (const key of keys) {
    const [section, ...restParts] = key.split('.');
    const variable = restParts.pop()!;
    const sub = restParts.join('.');
    fs.appendFileSync(config, `[${section}${sub ? ` "${sub}"` : ''}]\n\t${variable} = ${EVIL}\n`);
  }
  hardening = await hardenedFor(repo);
}, 60_000);

describe('git hardening: every pattern of EXEC_KEYS, each key it names set by the repository', () => {
  it('the repository\'s values are there: without the overrides git would use them', async () => {
    const bare: Hardening = { env: gitEnvironment([]), ignoreSubmodules: false };
    expect(await valueSeen('filter.Drv.clean', bare)).toBe(EVIL);
    expect(await valueSeen('remote.origin.vcs', bare)).toBe(EVIL);
  });

  it.each(generated.map((g) => [g.key, g.pattern, g] as const))('%s (%s): git sees the value that runs nothing', async (_, __, { key, neutral }) => {
    const seen = await valueSeen(key);
    expect(seen).toBe(neutral);
    expect(RUNS_NOTHING).toContain(seen);
  });
});

describe('git hardening: every program key of git\'s documentation (a list of its own: an entry dropped from EXEC_KEYS fails here)', () => {
  it.each(PROGRAM_KEYS)('%s set by the repository: git never sees its program', async (key) => {
    expect(await valueSeen(key)).not.toBe(EVIL);
  });
});

describe('git hardening: every FIXED setting', () => {
  it.each(FIXED.map(([key, value]) => [key, value] as const))('%s is "%s" whatever the repository says', async (key, value) => {
    const seen = await valueSeen(key);
    expect(seen).toBe(value);
    expect(RUNS_NOTHING).toContain(seen);
  });
});

describe('git hardening: every flag of SUBCOMMAND_FLAGS reaches git', () => {
  // The exported list's own entries, and the ones git's documentation says are needed (an entry dropped fails there).
  const cases = [...Object.entries(SUBCOMMAND_FLAGS).flatMap(([sub, flags]) => flags.map((flag) => [sub, flag] as const)), ...NEEDED_FLAGS];
  it.each(cases)('git %s gets %s', async (sub, flag) => {
    const trace = path.join(tempDir('hardening-trace'), 'trace');
    await git(repo, [sub], [0, 128], withVariables(hardening, { GIT_TRACE: trace }));
    const builtIn = fs.readFileSync(trace, 'utf8').split('\n').find((line) => line.includes(`built-in: git ${sub}`));
    expect(builtIn, fs.readFileSync(trace, 'utf8')).toBeDefined();
    expect(builtIn!.split(' ')).toContain(flag);
  });
});
