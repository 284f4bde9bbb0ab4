// `skein trust` on a project's agent files (.skein/agents/*.md): it shows the
// agent each would define (tools, model, mode, instructions), trusts nothing
// without a terminal's answer or --yes, records the exact content (the
// agent is then defined for `task` calls), shows the diff when the file
// changes, and --revoke forgets it.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { loadAgents } from '../../server/subagents/agent-files.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/server.js';

vi.setConfig({ testTimeout: 300_000 });

const CONTENT = '---\nname: reviewer\ndescription: reviews code\ntools: read_file, grep\nmodel: claude-haiku-4-5\nmode: plan\n---\nYou review code and list problems.\n';

describe('skein trust with agent files', () => {
  it('shows the agent, trusts it with --yes, asks again with a diff after a change, and revokes it', async () => {
    const dataDir = tempDir('data');
    const workDir = tempDir('work');
    const file = path.join(workDir, '.skein', 'agents', 'reviewer.md');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, CONTENT);
    const trust = (...args: string[]) => runCli(['trust', ...args, '--data-dir', dataDir], {});
    const defined = () => loadAgents(dataDir, workDir).agents.has('reviewer');

    // Not a terminal and no --yes: shown, not trusted.
    const refused = await trust(workDir);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toContain(path.join(fs.realpathSync(workDir), '.skein', 'agents', 'reviewer.md'));
    expect(refused.stdout).toContain('not trusted (never decided)');
    expect(refused.stdout).toContain('It defines the agent reviewer: reviews code');
    expect(refused.stdout).toContain('tools: read_file, grep');
    expect(refused.stdout).toContain('model: claude-haiku-4-5; mode: plan; may start children: no');
    expect(refused.stdout).toMatch(/instructions:\n\s+You review code and list problems\./);
    expect(refused.stderr).toMatch(/not a terminal: nothing was trusted/);
    expect(defined()).toBe(false);

    const trusted = await trust(workDir, '--yes');
    expect(trusted.code).toBe(0);
    expect(trusted.stdout).toMatch(/Trusted .*reviewer\.md \(sha256 [0-9a-f]{64}\)\. A `task` call may name the agent reviewer/);
    expect(defined()).toBe(true);
    expect((await trust('--list')).stdout).toMatch(/\.skein\/agents\/reviewer\.md {2}trusted .* \(the file is unchanged\)/);
    expect((await trust(workDir, '--yes')).stdout).toContain('Already trusted: nothing to do.');

    // Changed: untrusted again, shown with the diff from the trusted content.
    fs.writeFileSync(file, CONTENT.replace('list problems', 'run anything'));
    expect(defined()).toBe(false);
    const changed = await trust(workDir);
    expect(changed.code).toBe(2);
    expect(changed.stdout).toContain('not trusted: it changed since you decided on it');
    expect(changed.stdout).toMatch(/Changes since you trusted it:\n\s+--- a\/\.skein\/agents\/reviewer\.md/);
    expect(changed.stdout).toMatch(/^\s+-You review code and list problems\./m);
    expect(changed.stdout).toMatch(/^\s+\+You review code and run anything\./m);
    expect(defined()).toBe(false);

    expect((await trust(workDir, '--yes')).code).toBe(0);
    expect(defined()).toBe(true);
    const revoked = await trust('--revoke', workDir);
    expect(revoked.stdout).toMatch(/revoked: .*reviewer\.md is no longer trusted \(its agent is no longer defined\)/);
    expect(defined()).toBe(false);
  });

  it('an agent file that does not parse cannot be trusted; the .mcp.json beside it is still decided on', async () => {
    const dataDir = tempDir('data');
    const workDir = tempDir('work');
    fs.mkdirSync(path.join(workDir, '.skein', 'agents'), { recursive: true });
    fs.writeFileSync(path.join(workDir, '.skein', 'agents', 'broken.md'), '---\nname: broken\n---\nno description\n');
    fs.writeFileSync(path.join(workDir, '.mcp.json'), '{"mcpServers": {}}');
    const result = await runCli(['trust', workDir, '--yes', '--data-dir', dataDir], {});
    expect(result.code).toBe(2);
    expect(result.stdout).toMatch(/cannot be trusted as it is: .*broken\.md: a description is required/);
    expect(result.stdout).toMatch(/Trusted .*\.mcp\.json/);
    expect(result.stderr).toMatch(/broken\.md cannot be trusted as it is/);
    const decided = JSON.parse(fs.readFileSync(path.join(dataDir, 'trust.json'), 'utf8')) as { folders: Record<string, Record<string, unknown>> };
    expect(Object.keys(Object.values(decided.folders)[0]!)).toEqual(['.mcp.json']);
  });
});
