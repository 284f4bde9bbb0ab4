// The sandbox's lists of credentials it hides (server/tools/sandbox/mounts.ts),
// each entry enforced under the real bubblewrap: a working folder that is the
// home folder, holding every credential path of HOME_SECRETS (as a folder and
// as a file, since either may be what a tool keeps there), none readable from
// a sandboxed bash; every /etc secret empty inside. Cases are generated from
// the exported lists, and from a list written out here of the credentials
// the user's tools keep (so an entry dropped from the code fails too).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bashTool } from '../../server/tools/bash.js';
import { killAllToolProcesses } from '../../server/tools/processes.js';
import { ETC_SECRETS, HOME_SECRETS, mountPlan } from '../../server/tools/sandbox/mounts.js';
import type { ToolContext } from '../../server/tools/tool.js';
import { tempDir } from '../helpers/temp-dir.js';

afterAll(() => killAllToolProcesses());

/** Where the tools the user runs keep credentials in the home folder (ssh, AWS, GnuPG, kubectl, docker, Azure, gcloud, gh, netrc, git, npm, PyPI, cargo, skein). */
const CREDENTIALS = ['.ssh', '.aws', '.gnupg', '.kube', '.docker', '.azure', '.config/gcloud', '.config/gh', '.netrc', '.git-credentials', '.npmrc', '.pypirc', '.cargo/credentials.toml', '.skein'];

/** What /etc keeps that no sandboxed command needs: password hashes, old passwords, TLS private keys, systemd credentials. */
const ETC_CREDENTIALS = ['/etc/shadow', '/etc/shadow-', '/etc/gshadow', '/etc/gshadow-', '/etc/security/opasswd', '/etc/ssl/private', '/etc/credstore', '/etc/credstore.encrypted'];

const SECRET = 'do-not-show-0123456789';

async function run(home: string, command: string, sandboxed: boolean): Promise<string> {
  const ctx: ToolContext = { workDir: home, signal: new AbortController().signal, bashTimeoutMs: 30_000, outputLimit: 100_000, ...(sandboxed && { sandbox: { network: false, home, dataDir: tempDir('secret-paths-data') } }) };
  return (await bashTool.run({ command }, ctx)).output;
}

/** A home folder that is the working folder, holding `rel` as a folder (with a key in it) or as a file. */
function homeWith(rel: string, as: 'folder' | 'file'): string {
  const home = tempDir('secret-paths-home');
  const p = path.join(home, rel);
  fs.mkdirSync(as === 'folder' ? p : path.dirname(p), { recursive: true });
  fs.writeFileSync(as === 'folder' ? path.join(p, 'key') : p, `${SECRET}\n`);
  return home;
}

const READ = (rel: string) => `cat '${rel}' '${rel}/key' 2>/dev/null; echo end`;

describe('credentials in the home folder, hidden from a sandboxed bash (the working folder is the home)', () => {
  const cases = [...new Set([...HOME_SECRETS, ...CREDENTIALS])].flatMap((rel) => [[rel, 'folder'] as const, [rel, 'file'] as const]);
  it.each(cases)('%s as a %s: not readable inside (the control: readable outside)', async (rel, as) => {
    const home = homeWith(rel, as);
    expect(await run(home, READ(rel), false)).toContain(SECRET);
    const inside = await run(home, READ(rel), true);
    expect(inside).toContain('end');
    expect(inside).not.toContain(SECRET);
  }, 60_000);
});

describe('secrets in /etc, empty inside the sandbox', () => {
  it.each(ETC_SECRETS)('%s', async (file) => {
    const home = tempDir('secret-paths-etc');
    // A file reads as /dev/null, a folder as an empty one; absent on this machine: nothing to show either.
    const inside = await run(home, `cat '${file}' 2>/dev/null | wc -c; if [ -d '${file}' ]; then ls -A '${file}' | wc -l; else echo 0; fi`, true);
    expect(inside.trim().split('\n').slice(-2).map(Number)).toEqual([0, 0]);
  }, 60_000);
});

// Running as root, the kernel may keep a root-only file from the sandbox's mapped user anyway: the mounts are
// what hides it for everyone, so each entry present on this machine is checked in the sandbox's plan as well.
describe('secrets in /etc, each covered by a mount of the sandbox', () => {
  it.each([...new Set([...ETC_SECRETS, ...ETC_CREDENTIALS])].filter((f) => fs.existsSync(f)))('%s is mounted over (/dev/null or an empty tmpfs), after /etc itself', (file) => {
    const plan = mountPlan({ workDir: tempDir('secret-paths-plan'), home: tempDir('secret-paths-plan-home') });
    try {
      const args = `\0${plan.args.join('\0')}\0`;
      // Whole arguments only (NUL on both sides): /etc/shadow- must not pass for /etc/shadow.
      const over = fs.statSync(file).isDirectory() ? `\0--tmpfs\0${file}\0` : `\0--ro-bind\0/dev/null\0${file}\0`;
      expect(args).toContain(over);
      expect(args.indexOf(over)).toBeGreaterThan(args.indexOf('\0--ro-bind\0/etc\0/etc\0'));
    } finally {
      plan.release();
    }
  });
});
