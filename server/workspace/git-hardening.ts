// What keeps the server's own git from running a program the repository
// controls. A repository (or a model working in it) can write .git/config,
// config.worktree, files those include, .gitattributes and .git/hooks; git
// runs programs named there (fsmonitor, hooks, filter and diff drivers, ssh,
// credential helpers, pagers, gpg...). skein's git runs with:
// - a fixed set of overrides: no fsmonitor, no hooks, no pager, no network, no signing;
// - every exec-capable key set in a repository-controlled scope (local,
//   worktree, and files included from them) overridden, with the user's own
//   global value when there is one (so a globally installed git-lfs keeps
//   working) and with a value that runs nothing otherwise;
// - an environment with nothing that redirects git (GIT_DIR, GIT_EXEC_PATH,
//   GIT_SSH, GIT_EXTERNAL_DIFF, ...), no system config or attributes, no
//   optional locks, no secrets, and a PATH of absolute folders only.
// Overrides go through GIT_CONFIG_COUNT/KEY/VALUE, not `-c key=value`: a driver
// name may contain '=', which `-c` would split at the wrong place.
import path from 'node:path';
import { absolutePathEntries, currentToolEnvironment, toolEnvironment } from '../tools/env.js';

/** Set for every command, whatever any config says. */
export const FIXED: readonly [string, string][] = [
  ['core.fsmonitor', 'false'],
  ['core.hooksPath', '/dev/null'],
  ['core.pager', 'cat'],
  ['core.editor', ':'],
  ['sequence.editor', ':'],
  ['core.askPass', ''],
  ['core.sshCommand', ''],
  ['credential.helper', ''],
  ['diff.external', ''],
  ['protocol.allow', 'never'],
  // skein's own commits, merges and pushes never sign: signing runs gpg (or ssh-keygen), a program of the
  // user's that may wait on a key or an agent the server cannot reach, and would fail every commit.
  ['commit.gpgSign', 'false'],
  ['tag.gpgSign', 'false'],
  ['push.gpgSign', 'false'],
];

/** Keys that name a program git may run, and the value that runs nothing. */
export const EXEC_KEYS: readonly [RegExp, string][] = [
  [/^core\.fsmonitor$/, 'false'],
  [/^core\.hookspath$/, '/dev/null'],
  [/^core\.pager$/, 'cat'],
  [/^(core|sequence)\.editor$/, ':'],
  [/^core\.(askpass|sshcommand)$/, ''],
  [/^diff\.external$/, ''],
  [/^filter\..+\.(clean|smudge|process)$/, ''],
  [/^filter\..+\.required$/, 'false'],
  [/^diff\..+\.(command|textconv)$/, ''],
  [/^merge\..+\.driver$/, ''],
  [/^(difftool|mergetool)\..+\.cmd$/, ''],
  [/^pager\..+$/, 'false'],
  [/^credential\.(.+\.)?helper$/, ''],
  [/^gpg\.(.+\.)?program$/, ''],
  [/^gpg\.ssh\.defaultkeycommand$/, ''],
  [/^core\.(alternaterefscommand|gitproxy)$/, ''],
  [/^remote\..+\.(uploadpack|receivepack|vcs)$/, ''],
  [/^protocol\..+\.allow$/, 'never'],
  [/^uploadpack\.packobjectshook$/, ''],
  [/^submodule\..+\.update$/, 'none'],
  [/^log\.showsignature$/, 'false'],
  // Read by git-lfs (a filter the user may have installed globally) from the same config.
  [/^lfs\.customtransfer\..+\.path$/, ''],
  [/^lfs\.extension\..+\.(clean|smudge)$/, ''],
  [/^lfs\.standalonetransferagent$/, ''],
  // Config-defined hooks (git 2.50+); core.hooksPath does not cover them.
  [/^hook\..+\.command$/, ''],
  // Commands skein never runs (archive, trailers, imap-send, send-email, git gui, help), neutralised all the same.
  [/^tar\..+\.command$/, ''],
  [/^trailer\..+\.(command|cmd)$/, ''],
  [/^imap\.tunnel$/, ''],
  [/^sendemail\.(.+\.)?(tocmd|cccmd|smtpserver)$/, ''],
  [/^(guitool|browser|man)\..+\.(cmd|path)$/, ''],
];

/** Scopes the user owns; anything else (local, worktree, files they include) the repository can write. */
const USER_SCOPES = new Set(['global', 'system', 'command']);

export interface ConfigEntry {
  scope: string;
  key: string;
  value: string | undefined;
}

/** Parses `git config --list --show-scope -z`: `scope\0key\nvalue\0` (no `\nvalue` for a bare boolean). */
export function parseConfigList(out: string): ConfigEntry[] {
  const fields = out.split('\0');
  const entries: ConfigEntry[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const scope = fields[i]!;
    const item = fields[i + 1]!;
    const nl = item.indexOf('\n');
    entries.push(nl < 0 ? { scope, key: item, value: undefined } : { scope, key: item.slice(0, nl), value: item.slice(nl + 1) });
  }
  return entries;
}

/** Section and variable names are case-insensitive, a subsection is not: `filter.LFS.Clean` → `filter.LFS.clean`. */
// With one dot or none the middle slice is empty (indexOf is -1 for both when there is none): all lower-cased.
function normalKey(key: string): string {
  const first = key.indexOf('.');
  const last = key.lastIndexOf('.');
  return `${key.slice(0, first).toLowerCase()}${key.slice(first, last)}${key.slice(last).toLowerCase()}`;
}

function neutralValue(key: string): string | undefined {
  // The patterns take any subsection, so matching the lower-cased key is enough.
  const lower = key.toLowerCase();
  return EXEC_KEYS.find(([pattern]) => pattern.test(lower))?.[1];
}

/**
 * The overrides for one repository's effective config: each exec-capable key
 * a repository-controlled scope sets, back to the user's global value or to
 * one that runs nothing. A filter driver whose program had to be emptied also
 * gets `required=false`, so git skips it rather than failing on every file.
 * (git ignores clean/smudge once `process` is set at all, even to nothing:
 * an emptied `process` disables the user's clean/smudge of that driver too.)
 */
export function overridesFor(entries: readonly ConfigEntry[]): [string, string][] {
  const userValue = new Map<string, string>();
  for (const e of entries) if (USER_SCOPES.has(e.scope) && e.scope !== 'command' && e.value !== undefined) userValue.set(normalKey(e.key), e.value);
  const out = new Map<string, string>();
  const emptied = new Set<string>();
  for (const e of entries) {
    if (USER_SCOPES.has(e.scope)) continue;
    const key = normalKey(e.key);
    const neutral = neutralValue(key);
    if (neutral === undefined) continue;
    const user = userValue.get(key);
    out.set(key, user ?? neutral);
    const filter = /^filter\.(.+)\.([^.]+)$/.exec(key);
    if (filter) {
      out.set(`filter.${filter[1]}.required`, userValue.get(`filter.${filter[1]}.required`) ?? 'false');
      // (A repository's own `required` emptied here is 'false' already: adding it to `emptied` changes nothing.)
      if (user === undefined) emptied.add(filter[1]!);
    }
  }
  for (const name of emptied) out.set(`filter.${name}.required`, 'false');
  return [...out];
}

/** Names git reads from the environment to find its files, programs or config: none of the server's may reach it. */
const DROPPED = /^(GIT_|SSH_ASKPASS$|SSH_AUTH_SOCK$|GPG_AGENT_INFO$|PAGER$|EDITOR$|VISUAL$|LESSOPEN$|LESSCLOSE$)/;

/** The environment for git: the tools' scrubbed one, nothing of git's own, the fixed settings and `overrides`. */
export function gitEnvironment(overrides: readonly [string, string][], base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(base === process.env ? currentToolEnvironment() : toolEnvironment(base))) if (!DROPPED.test(name)) env[name] = value;
  // A relative PATH entry ('.', '') would find programs in the repository git runs in.
  env.PATH = absolutePathEntries(base.PATH ?? '');
  Object.assign(env, {
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_ATTR_NOSYSTEM: '1',
    GIT_TERMINAL_PROMPT: '0',
    GIT_PAGER: 'cat',
    // A read must not take the index lock (or write the index) under a model's own git commands.
    GIT_OPTIONAL_LOCKS: '0',
    LC_ALL: 'C',
  });
  // Later entries win: the fixed ones come last.
  const all = [...overrides, ...FIXED];
  env.GIT_CONFIG_COUNT = String(all.length);
  all.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = key;
    env[`GIT_CONFIG_VALUE_${i}`] = value;
  });
  return env;
}

/** Options git gets right after these subcommands: no external diff program, no textconv, no signature check. */
export const SUBCOMMAND_FLAGS: Readonly<Record<string, readonly string[]>> = {
  diff: ['--no-ext-diff', '--no-textconv'],
  log: ['--no-ext-diff', '--no-textconv', '--no-show-signature'],
  show: ['--no-ext-diff', '--no-textconv', '--no-show-signature'],
};
