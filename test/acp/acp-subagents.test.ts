// A `task` call seen from an editor through `skein acp` (the official ACP SDK
// is the client): the child's steps and tokens arrive as `tool_call_update`s
// of the task call while it runs, the child's approval request reaches the
// editor as a permission request on that call, and the editor's answer is the
// child's decision (logged in the child's own log); the task call then
// completes with the child's answer, after its last progress update.
import fs from 'node:fs';
import path from 'node:path';
import { PROTOCOL_VERSION, type SessionNotification } from '@agentclientprotocol/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/server.js';
import { startAcp, type AcpRun } from './acp-client.js';

const SLOW = { timeout: 300_000 };
const runs: AcpRun[] = [];
afterEach(async () => {
  for (const run of runs.splice(0)) await run.close();
});

type CallUpdate = { sessionUpdate: string; toolCallId: string; status?: string; content?: { content?: { text?: string } }[]; _meta?: { skein?: Record<string, unknown> } };

function eventsOf(dataDir: string, id: string): Record<string, unknown>[] {
  return fs
    .readFileSync(path.join(dataDir, 'sessions', `${id}.jsonl`), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((e) => 'kind' in e);
}

describe('skein acp: a task call', () => {
  it("shows the child's progress as updates of the task call, and asks the editor about the child's approval", SLOW, async () => {
    const dataDir = tempDir('acp-task-data');
    const work = tempDir('acp-task-work');
    const run = startAcp({ SKEIN_DATA_DIR: dataDir, SKEIN_WORKDIR: work, SKEIN_APPROVAL: 'on-write' });
    runs.push(run);
    await run.connection.agent.request('initialize', { protocolVersion: PROTOCOL_VERSION, clientCapabilities: { fs: { readTextFile: false, writeTextFile: false } } });
    const { sessionId: id } = await run.connection.agent.request('session/new', { cwd: work, mcpServers: [] });
    run.answerPermission = async () => ({ outcome: { outcome: 'selected', optionId: 'approve' } });
    const input = { description: 'run a command', prompt: 'bash: echo from-the-child' };
    const prompted = run.connection.agent.request('session/prompt', { sessionId: id, prompt: [{ type: 'text', text: `tool: task ${JSON.stringify(input)}` }] });
    // A child whose approval never reaches the editor waits for ever: fail here, not at the test's timeout.
    const { stopReason } = await Promise.race([prompted, new Promise<never>((_, reject) => setTimeout(() => reject(new Error('the task turn did not end')), 120_000).unref())]);
    expect(stopReason).toBe('end_turn');

    const calls = run.updates.filter((u: SessionNotification) => u.sessionId === id).map((u) => u.update as unknown as CallUpdate);
    const taskCall = calls.find((u) => u.sessionUpdate === 'tool_call' && u._meta?.skein?.tool === 'task')!;
    expect(taskCall).toBeDefined();
    const ofTask = calls.filter((u) => u.sessionUpdate === 'tool_call_update' && u.toolCallId === taskCall.toolCallId);
    const progress = ofTask.filter((u) => u._meta?.skein?.subagent);
    // The child's last step and its tokens, as the task call's updates.
    const child = (progress[0]!._meta!.skein!.subagent as { child: string }).child;
    expect(progress.map((u) => u.status)).toEqual(progress.map(() => 'in_progress'));
    expect(progress.some((u) => /bash: echo from-the-child/.test(u.content?.[0]?.content?.text ?? ''))).toBe(true);
    const last = progress.at(-1)!._meta!.skein!.subagent as { tokens: number; agent: string };
    expect(last).toMatchObject({ agent: 'general', child });
    expect(last.tokens).toBeGreaterThan(0);
    expect(progress.at(-1)!.content![0]!.content!.text).toMatch(/general agent \(session .+\): .+ · [\d,]+ tokens/);
    // Its result is the last word on the call: no progress after it.
    expect(ofTask.at(-1)).toMatchObject({ status: 'completed' });
    expect(ofTask.at(-1)!.content!.map((c) => c.content?.text ?? '').join('\n')).toContain('from-the-child');

    // The child's call was asked about on the task call, and the editor's answer is the child's decision.
    expect(run.permissions).toHaveLength(1);
    const asked = run.permissions[0]!;
    expect(asked.toolCall.toolCallId).toBe(taskCall.toolCallId);
    expect(asked.toolCall.title).toBe('general agent: echo from-the-child');
    expect(asked.toolCall._meta?.skein).toMatchObject({ subagent: { child, tool: 'bash' } });
    const decided = eventsOf(dataDir, child).filter((e) => e.kind === 'approval_decision');
    expect(decided).toEqual([expect.objectContaining({ decision: 'approve', by: 'user' })]);
    expect(eventsOf(dataDir, child).find((e) => e.kind === 'tool_result')).toMatchObject({ name: 'bash', isError: false });
  });
});
