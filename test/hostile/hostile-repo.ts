// The hostile repository, whole: every trick of the suites beside it planted
// in one folder, as a cloned repository would carry them, plus git tricks on
// the top repository itself (each suite plants its own git tricks in a
// repository of its own, since they exclude each other). Every program a
// trick would run appends to a file in `markerDir`, outside the folder.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { plantApprovalTricks } from './approvals-tricks.js';
import { plantGitTricks, type GitTrick } from './git-tricks.js';
import { plantSandboxTricks, type SandboxTrick } from './sandbox-tricks.js';
import { LEAK_SCRIPT, plantSecretTricks } from './secrets-tricks.js';
import { plantMcpTricks, type PlantedMcpTricks } from './trust-tricks.js';

export interface HostileRepository {
  root: string;
  git: GitTrick[];
  mcp: PlantedMcpTricks;
  sandbox: Record<SandboxTrick, string>;
  leakScript: string;
  /** The top repository's own tricks: config keys and hooks that would run a program from the folder. */
  topTricks: string[];
}

export interface HostileOptions {
  markerDir: string;
  /** Where the server keeps its token (the leak script reads it from there). */
  dataDir: string;
  /** An http://127.0.0.1:PORT listener that must never hear from skein. */
  listenerUrl: string;
}

function gitIn(dir: string, ...args: string[]): void {
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: dir, stdio: 'ignore' });
}

/** A program in the folder that leaves `markerDir/<name>` when anything runs it (a filter passes its input through). */
function marking(root: string, markerDir: string, name: string, filter = false): string {
  const file = path.join(root, '.tricks', `top-${name}`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `#!/bin/sh\necho "ran $0" >> '${path.join(markerDir, `top-${name}`)}'\n${filter ? 'exec cat\n' : 'exit 0\n'}`, { mode: 0o755 });
  return file;
}

export function plantHostileRepository(root: string, opts: HostileOptions): HostileRepository {
  fs.mkdirSync(opts.markerDir, { recursive: true });
  const git = plantGitTricks(root, opts.markerDir);
  plantApprovalTricks(root);
  const mcp = plantMcpTricks(root, { markerDir: opts.markerDir, listenerUrl: opts.listenerUrl });
  const sandbox = plantSandboxTricks(root);
  // Last: its AGENTS.md (run the leak script) replaces the approvals' harmless one.
  plantSecretTricks(root, opts.dataDir);
  // The top repository's own config and hooks, the ones skein meets first.
  gitIn(root, 'config', 'core.fsmonitor', marking(root, opts.markerDir, 'fsmonitor'));
  const hooks = path.join(root, '.tricks', 'hooks');
  fs.mkdirSync(hooks, { recursive: true });
  for (const hook of ['post-checkout', 'reference-transaction', 'post-index-change', 'pre-commit']) fs.copyFileSync(marking(root, opts.markerDir, hook), path.join(hooks, hook));
  gitIn(root, 'config', 'core.hooksPath', hooks);
  gitIn(root, 'config', 'filter.evil.clean', marking(root, opts.markerDir, 'clean', true));
  gitIn(root, 'config', 'filter.evil.smudge', marking(root, opts.markerDir, 'smudge', true));
  gitIn(root, 'config', 'diff.evil.textconv', marking(root, opts.markerDir, 'textconv', true));
  gitIn(root, 'config', 'core.sshCommand', marking(root, opts.markerDir, 'ssh'));
  fs.writeFileSync(path.join(root, '.gitattributes'), '*.txt filter=evil diff=evil\n');
  const topTricks = ['core.fsmonitor', 'core.hooksPath (post-checkout, reference-transaction, post-index-change, pre-commit)', 'filter.evil.clean/smudge', 'diff.evil.textconv', 'core.sshCommand'];
  return { root, git, mcp, sandbox, leakScript: LEAK_SCRIPT, topTricks };
}
