// Every answer an editor can give to session/request_permission, from the
// editor's side (the ACP SDK's own client), and the decision skein logged for
// it (the approval_decision event in the session log), not only its effect:
// each offered option, option ids skein never offered, and `cancelled`.
import fs from 'node:fs';
import path from 'node:path';
import { PROTOCOL_VERSION, type RequestPermissionRequest, type RequestPermissionResponse } from '@agentclientprotocol/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/server.js';
import { startAcp, type AcpRun } from './acp-client.js';

const runs: AcpRun[] = [];
afterEach(async () => {
  for (const run of runs.splice(0)) await run.close();
});

const SLOW = { timeout: 300_000 };

/** The approval_decision events of a call, as logged. */
function decisionsOf(dataDir: string, id: string, callId: string): Record<string, unknown>[] {
  return fs
    .readFileSync(path.join(dataDir, 'sessions', `${id}.jsonl`), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((e) => e.kind === 'approval_decision' && e.callId === callId);
}

/** A turn that never ends fails here, not at the test's timeout. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: no answer after ${ms} ms`)), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

const select = (optionId: string): RequestPermissionResponse => ({ outcome: { outcome: 'selected', optionId } });
const ofKind = (request: RequestPermissionRequest, kind: string) => request.options.find((o) => o.kind === kind)!.optionId;

describe('skein acp: each answer to request_permission', () => {
  it('sends the decision each option names, refuses option ids it never offered, and ends the turn on cancelled', SLOW, async () => {
    const dataDir = tempDir('acp-answers-data');
    const work = tempDir('acp-answers-work');
    const run = startAcp({ SKEIN_DATA_DIR: dataDir, SKEIN_WORKDIR: work, SKEIN_APPROVAL: 'on-write' });
    runs.push(run);
    await run.connection.agent.request('initialize', { protocolVersion: PROTOCOL_VERSION, clientCapabilities: { fs: { readTextFile: false, writeTextFile: false } } });
    const { sessionId: id } = await run.connection.agent.request('session/new', { cwd: work, mcpServers: [] });
    const prompt = (text: string) => run.connection.agent.request('session/prompt', { sessionId: id, prompt: [{ type: 'text', text }] });
    const lastCall = () => run.permissions.at(-1)!.toolCall.toolCallId;
    const write = (file: string, content: string) => `tool: write_file ${JSON.stringify({ path: file, content })}`;

    // Allow once: this call only. The same call again asks again.
    run.answerPermission = async (request) => select(ofKind(request, 'allow_once'));
    expect((await prompt(write('once.txt', 'one\n'))).stopReason).toBe('end_turn');
    expect(run.permissions[0]!.options.map((o) => [o.optionId, o.kind])).toEqual([
      ['approve', 'allow_once'],
      ['approve_session', 'allow_always'],
      ['deny', 'reject_once'],
    ]);
    expect(decisionsOf(dataDir, id, lastCall())).toEqual([expect.objectContaining({ decision: 'approve', by: 'user' })]);
    expect(decisionsOf(dataDir, id, lastCall())[0]).not.toHaveProperty('rule');
    expect((await prompt(write('once.txt', 'two\n'))).stopReason).toBe('end_turn');
    expect(run.permissions).toHaveLength(2);
    expect(decisionsOf(dataDir, id, lastCall())).toEqual([expect.objectContaining({ decision: 'approve', by: 'user' })]);
    expect(fs.readFileSync(path.join(work, 'once.txt'), 'utf8')).toBe('two\n');

    // Allow always: the session rule, logged with the decision; the same call again is decided by it, unasked.
    run.answerPermission = async (request) => select(ofKind(request, 'allow_always'));
    expect((await prompt(write('always.txt', 'one\n'))).stopReason).toBe('end_turn');
    expect(run.permissions).toHaveLength(3);
    expect(decisionsOf(dataDir, id, lastCall())).toEqual([expect.objectContaining({ decision: 'approve_session', by: 'user', rule: expect.objectContaining({ tool: 'write_file' }) })]);
    const before = fs.readFileSync(path.join(dataDir, 'sessions', `${id}.jsonl`), 'utf8').length;
    expect((await prompt(write('always.txt', 'two\n'))).stopReason).toBe('end_turn');
    expect(run.permissions).toHaveLength(3);
    const byRule = fs.readFileSync(path.join(dataDir, 'sessions', `${id}.jsonl`), 'utf8').slice(before);
    expect(byRule).toMatch(/"kind":"approval_decision"[^\n]*"decision":"approve"[^\n]*"by":"rule"/);

    // Reject once: denied, nothing written.
    run.answerPermission = async (request) => select(ofKind(request, 'reject_once'));
    expect((await prompt(write('rejected.txt', 'no\n'))).stopReason).toBe('end_turn');
    expect(decisionsOf(dataDir, id, lastCall())).toEqual([expect.objectContaining({ decision: 'deny', by: 'user' })]);
    expect(fs.existsSync(path.join(work, 'rejected.txt'))).toBe(false);

    // Option ids skein never offered (another agent's "reject always", a kind instead of an id, a near miss):
    // each refused, nothing decided, the call asked again; then a reject.
    const unknown = ['reject_always', 'allow_always', 'Approve', ''];
    const asked: string[] = [];
    run.answerPermission = async (request) => {
      asked.push(request.toolCall.toolCallId);
      return select(unknown[asked.length - 1] ?? ofKind(request, 'reject_once'));
    };
    expect((await within(prompt(write('unknown.txt', 'no\n')), 60_000, 'the turn answered with unknown ids')).stopReason).toBe('end_turn');
    expect(asked).toHaveLength(unknown.length + 1);
    expect(new Set(asked).size).toBe(1);
    expect(decisionsOf(dataDir, id, asked[0]!)).toEqual([expect.objectContaining({ decision: 'deny', by: 'user' })]);
    expect(fs.existsSync(path.join(work, 'unknown.txt'))).toBe(false);
    for (const optionId of unknown) expect(run.stderr()).toContain(`unknown option ${JSON.stringify(optionId)}`);

    // Cancelled (the editor's own dialog closed, no session/cancel): the call is denied by the cancel and the turn ends.
    run.answerPermission = async () => ({ outcome: { outcome: 'cancelled' } });
    expect((await within(prompt('bash: echo never-runs > cancelled.txt'), 60_000, 'the turn whose approval was cancelled')).stopReason).toBe('cancelled');
    expect(decisionsOf(dataDir, id, lastCall())).toEqual([expect.objectContaining({ decision: 'deny', by: 'cancel' })]);
    expect(fs.existsSync(path.join(work, 'cancelled.txt'))).toBe(false);

    // The session is not stuck: the next prompt runs.
    expect((await prompt('echo: still here')).stopReason).toBe('end_turn');
  });
});
