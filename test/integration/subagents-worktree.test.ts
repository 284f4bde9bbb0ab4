// A child asked to work apart (`worktree: true` in the task call, or in its
// agent file) runs in a git worktree of its own on branch skein/<child id>:
// its writes land there, not in the parent's folder, and the task's result
// names the branch and what is left uncommitted. Outside git it is refused
// with the reason, as a session's own worktree is.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SkeinEvent } from '../../shared/protocol.js';
import type { LiveSession } from '../../server/agent/live-session.js';
import { parseAgentFile } from '../../server/subagents/agent-defs.js';
import { startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';

const servers: TestServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=skein test', '-c', 'user.email=test@example.invalid', '-c', 'init.defaultBranch=main', ...args], { cwd, encoding: 'utf8' });
}

async function turn(live: LiveSession, text: string): Promise<SkeinEvent[]> {
  const from = live.session.log.lastSeq;
  await live.session.userMessage(text);
  await until(() => live.session.log.since(from).some((e) => e.kind === 'state' && e.to === 'WaitingForUserInput'), 'the turn to end', 60_000);
  return live.session.log.since(from);
}

const write = (file: string) => `tool: write_file ${JSON.stringify({ path: file, content: 'from the child\n' })}`;
const task = (input: Record<string, unknown>) => `tool: task ${JSON.stringify(input)}`;

describe('a child in its own worktree', () => {
  it('writes on its own branch, not in the parent folder, and its result names the branch', async () => {
    const work = tempDir('subagent-worktree');
    git(work, 'init', '-q');
    fs.writeFileSync(path.join(work, 'README.md'), 'hello\n');
    git(work, 'add', '-A');
    git(work, 'commit', '-qm', 'first');
    const server = await startTestServer({ SKEIN_MODEL: 'predictable' }, { workDir: work });
    servers.push(server);
    const parent = server.sessions.create();
    const events = await turn(parent, task({ description: 'write apart', prompt: write('CHILD.txt'), worktree: true }));
    const result = events.find((e) => e.kind === 'tool_result' && e.name === 'task');
    expect(result).toMatchObject({ isError: false });
    const [listed] = server.sessions.list().filter((s) => s.parent?.session === parent.session.id);
    const child = server.sessions.get(listed!.id)!;
    const workspace = child.session.log.header.workspace!;
    expect(workspace.branch).toBe(`skein/${listed!.id}`);
    expect(workspace.worktree).toBeDefined();
    expect(fs.readFileSync(path.join(workspace.workDir, 'CHILD.txt'), 'utf8')).toBe('from the child\n');
    expect(fs.existsSync(path.join(work, 'CHILD.txt'))).toBe(false);
    expect(git(work, 'branch', '--list', `skein/${listed!.id}`)).toContain(`skein/${listed!.id}`);
    const output = result!.kind === 'tool_result' ? result!.output : '';
    expect(output).toContain(`on branch skein/${listed!.id}`);
    expect(output).toContain('1 file changed there and not committed: CHILD.txt');
    // Without asking, a child shares its parent's folder.
    await turn(parent, task({ description: 'write here', prompt: write('SHARED.txt') }));
    expect(fs.existsSync(path.join(work, 'SHARED.txt'))).toBe(true);
  }, 90_000);

  it('outside git, the call is refused with the reason and no child runs', async () => {
    const server = await startTestServer({ SKEIN_MODEL: 'predictable' });
    servers.push(server);
    const parent = server.sessions.create();
    const events = await turn(parent, task({ description: 'x', prompt: 'echo: x', worktree: true }));
    const result = events.find((e) => e.kind === 'tool_result' && e.name === 'task');
    expect(result).toMatchObject({ isError: true });
    expect(result!.kind === 'tool_result' && result!.output).toMatch(/not in a git repository/);
    const bad = await turn(parent, task({ description: 'x', prompt: 'echo: x', worktree: 'yes' }));
    expect(bad.find((e) => e.kind === 'tool_result' && e.name === 'task')).toMatchObject({ isError: true });
  }, 60_000);

  it("an agent file may ask for it (worktree: true), and says what is wrong with another value", () => {
    const head = '---\nname: builder\ndescription: builds apart\n';
    expect(parseAgentFile(`${head}worktree: true\n---\nBuild.\n`, 'builder.md', 'builder').worktree).toBe(true);
    expect(() => parseAgentFile(`${head}worktree: yes\n---\n`, 'builder.md', 'builder')).toThrow(/worktree must be true or false/);
  });
});
