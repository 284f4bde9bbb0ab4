// `skein run` with a `task` call: the child's events are printed with the
// parent's, tagged with the child's session id (`session` on each JSON line;
// indented lines in text), and a child's call waiting for approval is answered
// as the turn's own (--approve), through the parent's session.
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../server/cli/exit-codes.js';
import { jsonEvents, runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/server.js';

const SLOW = { timeout: 300_000 };
const dirs = () => ({ SKEIN_DATA_DIR: tempDir('cli-task-data'), SKEIN_WORKDIR: tempDir('cli-task-work') });
const task = (prompt: string) => `tool: task ${JSON.stringify({ description: 'a subtask', prompt })}`;

describe('skein run with a task call', () => {
  it("--json prints the child's events tagged with its session id; --approve answers the child's call", SLOW, async () => {
    const r = await runCli(['run', '--json', '--approve', 'bash', task('bash: echo child-was-here')], { ...dirs(), SKEIN_APPROVAL: 'on-write' });
    expect(r.code, r.stderr).toBe(EXIT.ok);
    const lines = jsonEvents(r.stdout) as (ReturnType<typeof jsonEvents>[number] & { session?: string })[];
    const started = lines.find((e) => e.kind === 'subagent' && e.phase === 'started');
    expect(started).toBeDefined();
    const child = started!.kind === 'subagent' ? started!.child : '';
    const own = lines.filter((e) => e.session === undefined);
    const ofChild = lines.filter((e) => e.session === child);
    // Every line is the parent's or this child's; each stream's seq is its own, gap-free.
    expect(own.length + ofChild.length).toBe(lines.length);
    expect(own.map((e) => e.seq)).toEqual(own.map((_, i) => own[0]!.seq + i));
    expect(ofChild.map((e) => e.seq)).toEqual(ofChild.map((_, i) => i + 1));
    expect(ofChild.find((e) => e.kind === 'user')).toMatchObject({ text: 'bash: echo child-was-here' });
    expect(ofChild.find((e) => e.kind === 'approval_decision')).toMatchObject({ decision: 'approve', by: 'user' });
    expect(ofChild.find((e) => e.kind === 'tool_result')).toMatchObject({ name: 'bash', isError: false });
    expect(ofChild.at(-1)).toMatchObject({ kind: 'state', to: 'WaitingForUserInput' });
    expect(r.stderr).toContain('approved bash');
    expect(own.find((e) => e.kind === 'tool_result' && e.name === 'task')).toMatchObject({ isError: false });
  });

  it('text mode shows the child under a mark with its agent and id', SLOW, async () => {
    const r = await runCli(['run', task('echo: hello from the child')], dirs());
    expect(r.code, r.stderr).toBe(EXIT.ok);
    expect(r.stdout).toMatch(/^ {2}│ \[general \S+\] hello from the child$/m);
    expect(r.stdout).toMatch(/^↳ general agent started in session \S+: a subtask$/m);
  });
});
