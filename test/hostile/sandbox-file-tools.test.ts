// write_file and edit_file run in skein itself, outside bubblewrap: under
// SKEIN_SANDBOX=workspace they must not write what the sandbox keeps
// read-only (git's config and hooks, .mcp.json, the instruction files), or a
// prompt-injected model would plant a hook the user's next `git commit` runs.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { editFileTool, writeFileTool } from '../../server/tools/files.js';
import { PROTECTED_PROJECT_PATHS, sandboxSettingsOf } from '../../server/tools/sandbox.js';
import type { ToolContext } from '../../server/tools/tool.js';
import { tempDir } from '../helpers/temp-dir.js';

function repo(): string {
  const work = tempDir('sandbox-file-tools');
  execFileSync('git', ['init', '-q', work]);
  fs.writeFileSync(path.join(work, 'AGENTS.md'), 'rules\n');
  fs.mkdirSync(path.join(work, 'sub/.git'), { recursive: true });
  fs.writeFileSync(path.join(work, 'sub/.git/config'), '[core]\n');
  fs.symlinkSync('.git/config', path.join(work, 'link-to-config'));
  return work;
}

function ctx(work: string, sandboxed: boolean): ToolContext {
  const sandbox = sandboxed ? sandboxSettingsOf({ sandbox: 'workspace', sandboxNetwork: false, dataDir: tempDir('sandbox-file-tools-data') }) : undefined;
  return { workDir: work, signal: new AbortController().signal, bashTimeoutMs: 20_000, outputLimit: 30_000, ...(sandbox && { sandbox }) };
}

const PROTECTED = ['.git/hooks/pre-commit', '.git/config', './x/../.git/config', '.GIT/config', 'link-to-config', '.mcp.json', 'AGENTS.md', 'CLAUDE.md', 'sub/.git/config'];

describe('file tools under SKEIN_SANDBOX=workspace', () => {
  for (const target of PROTECTED) {
    it(`write_file refuses ${target} and leaves it as it was`, async () => {
      const work = repo();
      const abs = path.resolve(work, target);
      const real = fs.existsSync(abs) ? fs.realpathSync(abs) : abs;
      const before = fs.existsSync(real) ? fs.readFileSync(real, 'utf8') : undefined;
      await expect(writeFileTool.run({ path: target, content: '#!/bin/sh\ntouch /tmp/pwned\n' }, ctx(work, true))).rejects.toThrow(/read-only under SKEIN_SANDBOX=workspace/);
      expect(fs.existsSync(real) ? fs.readFileSync(real, 'utf8') : undefined).toBe(before);
    });
  }

  // Generated from the list the sandbox mounts read-only: each entry, and a file inside it (a protected folder's content).
  it.each(PROTECTED_PROJECT_PATHS.flatMap((rel) => [rel, `${rel}/inside`]))('write_file refuses %s (an entry of PROTECTED_PROJECT_PATHS), writing nothing', async (target) => {
    const work = tempDir('sandbox-file-tools-list');
    await expect(writeFileTool.run({ path: target, content: 'planted\n' }, ctx(work, true))).rejects.toThrow(/read-only under SKEIN_SANDBOX=workspace/);
    expect(fs.existsSync(path.join(work, target))).toBe(false);
  });

  it('edit_file refuses .git/config (core.fsmonitor would run on the host)', async () => {
    const work = repo();
    const before = fs.readFileSync(path.join(work, '.git/config'), 'utf8');
    await expect(editFileTool.run({ path: '.git/config', old: '[core]', new: '[core]\n\tfsmonitor = touch /tmp/pwned' }, ctx(work, true))).rejects.toThrow(/read-only/);
    expect(fs.readFileSync(path.join(work, '.git/config'), 'utf8')).toBe(before);
  });

  it('other files are written as before; without the sandbox the protected ones are the approvals\' to guard', async () => {
    const work = repo();
    const ok = await writeFileTool.run({ path: 'src/a.ts', content: 'x\n' }, ctx(work, true));
    expect(ok.isError).toBe(false);
    expect(fs.readFileSync(path.join(work, 'src/a.ts'), 'utf8')).toBe('x\n');
    await writeFileTool.run({ path: 'AGENTS.md', content: 'new rules\n' }, ctx(work, false));
    expect(fs.readFileSync(path.join(work, 'AGENTS.md'), 'utf8')).toBe('new rules\n');
  });
});
