// SKEIN_APPROVAL through the real server and the predictable model: every
// path through WaitingForApproval (approve, approve for the session, deny
// with a reason, cancel, a new message, a restart), over REST and WebSocket,
// and the errors a wrong decision gets.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ApprovalRequestEvent, SessionSnapshot, SkeinEvent, ViewMessage } from '../../shared/protocol.js';
import { decisionOf, openRequests, resultOf, transitions, untilAsked } from '../helpers/approvals.js';
import { startChildServer } from '../helpers/child-server.js';
import { api, startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { TestClient } from '../helpers/ws-client.js';

const servers: TestServer[] = [];
const clients: TestClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  for (const s of servers.splice(0)) await s.close();
});

async function start(mode: string, dirs?: { dataDir: string; workDir: string }) {
  const server = await startTestServer({ SKEIN_APPROVAL: mode }, dirs);
  servers.push(server);
  const { body } = await api<{ id: string }>(server.url, '/api/sessions', { body: {} });
  const client = await TestClient.connect(server.url, body.id);
  clients.push(client);
  let turns = 0;
  return {
    server,
    id: body.id,
    client,
    send(text: string) {
      turns++;
      client.send({ type: 'user_message', text });
    },
    idle: () => client.untilIdle(turns, 30_000),
  };
}

type Run = Awaited<ReturnType<typeof start>>;

function decide(run: Run, callId: string, body: unknown) {
  return api<{ error?: string; accepted?: boolean }>(run.server.url, `/api/sessions/${run.id}/approvals/${encodeURIComponent(callId)}`, { body });
}

async function snapshot(run: Run): Promise<SessionSnapshot> {
  return (await api<SessionSnapshot>(run.server.url, `/api/sessions/${run.id}`)).body;
}

async function view(run: Run): Promise<ViewMessage[]> {
  return (await api<{ messages: ViewMessage[] }>(run.server.url, `/api/sessions/${run.id}/view`)).body.messages;
}

describe('SKEIN_APPROVAL=on-write', () => {
  it('approve: bash waits in WaitingForApproval with its command shown, runs once approved, and the turn goes on', async () => {
    const run = await start('on-write');
    run.send('bash: echo approved-run > marker.txt; echo done');
    const request = await untilAsked(run.client);
    expect(request).toMatchObject({ name: 'bash', preview: { kind: 'command', text: 'echo approved-run > marker.txt; echo done' }, rule: { tool: 'bash', command: 'echo approved-run > marker.txt; echo done' } });
    expect((await snapshot(run)).state).toBe('WaitingForApproval');
    // Nothing ran while it waited.
    expect(fs.existsSync(path.join(run.server.workDir, 'marker.txt'))).toBe(false);
    expect((await decide(run, request.callId, { decision: 'approve' })).status).toBe(202);
    const events = await run.idle();
    expect(resultOf(events, request.callId)).toMatchObject({ isError: false, output: expect.stringContaining('done') });
    expect(fs.readFileSync(path.join(run.server.workDir, 'marker.txt'), 'utf8')).toBe('approved-run\n');
    expect(decisionOf(events, request.callId)).toMatchObject({ decision: 'approve', by: 'user' });
    expect(transitions(events)).toEqual([
      'WaitingForUserInput>SendingToLLM', 'SendingToLLM>ProcessingLLMResponse', 'ProcessingLLMResponse>RunningTools',
      'RunningTools>WaitingForApproval', 'WaitingForApproval>RunningTools',
      'RunningTools>SendingToLLM', 'SendingToLLM>ProcessingLLMResponse', 'ProcessingLLMResponse>EndOfTurn', 'EndOfTurn>WaitingForUserInput',
    ]);
    // The log order: the call, its request, the wait, the decision, the result.
    const order = events.filter((e) => ['tool_call', 'approval_request', 'approval_decision', 'tool_result'].includes(e.kind)).map((e) => e.kind);
    expect(order).toEqual(['tool_call', 'approval_request', 'approval_decision', 'tool_result']);
  });

  it('approve for this session: the same bash command runs without asking again (a rule, logged); another command asks', async () => {
    const run = await start('on-write');
    run.send('bash: echo same');
    const first = await untilAsked(run.client);
    expect((await decide(run, first.callId, { decision: 'approve_session' })).status).toBe(202);
    await run.idle();
    expect(decisionOf(run.client.events, first.callId)).toMatchObject({ decision: 'approve_session', rule: { tool: 'bash', command: 'echo same' } });
    run.send('bash: echo same');
    const events = await run.idle();
    const second = events.filter((e) => e.kind === 'tool_call').at(-1)!;
    expect(second.kind === 'tool_call' && decisionOf(events, second.callId)).toMatchObject({ decision: 'approve', by: 'rule', rule: { tool: 'bash', command: 'echo same' } });
    expect(events.filter((e) => e.kind === 'approval_request')).toHaveLength(1);
    expect(resultOf(events, second.kind === 'tool_call' ? second.callId : '')?.output).toContain('same');
    // Exact command: a different one is asked again.
    run.send('bash: echo same; echo other');
    const third = await untilAsked(run.client);
    expect(third.input).toEqual({ command: 'echo same; echo other' });
    await decide(run, third.callId, { decision: 'deny' });
    await run.idle();
    // The rule is in the log: after a restart the same command still runs without asking.
    run.client.close();
    await run.server.close();
    servers.splice(servers.indexOf(run.server), 1);
    const again = await startTestServer({ SKEIN_APPROVAL: 'on-write' }, { dataDir: run.server.dataDir, workDir: run.server.workDir });
    servers.push(again);
    const client = await TestClient.connect(again.url, run.id);
    clients.push(client);
    const before = (await api<SessionSnapshot>(again.url, `/api/sessions/${run.id}`)).body.lastSeq;
    client.send({ type: 'user_message', text: 'bash: echo same' });
    const after = await client.until(() => client.events.some((e) => e.seq > before && e.kind === 'state' && e.to === 'WaitingForUserInput') && client.events.filter((e) => e.seq > before), 'the turn after the restart');
    expect(after.filter((e) => e.kind === 'approval_request')).toEqual([]);
    expect(after.find((e) => e.kind === 'approval_decision')).toMatchObject({ by: 'rule', rule: { tool: 'bash', command: 'echo same' } });
  }, 60_000);

  it('deny with a reason: nothing is written, the model receives the reason in the tool result, and the diff was shown', async () => {
    const run = await start('on-write');
    fs.writeFileSync(path.join(run.server.workDir, 'notes.txt'), 'alpha\nbeta\n');
    run.send('tool: edit_file {"path":"notes.txt","old":"beta","new":"gamma"}');
    const request = await untilAsked(run.client);
    expect(request.preview.kind).toBe('diff');
    expect(request.preview.text).toContain('-beta');
    expect(request.preview.text).toContain('+gamma');
    expect(request.rule).toEqual({ tool: 'edit_file', path: 'notes.txt' });
    expect((await decide(run, request.callId, { decision: 'deny', reason: 'keep beta, it is referenced elsewhere' })).status).toBe(202);
    const events = await run.idle();
    expect(fs.readFileSync(path.join(run.server.workDir, 'notes.txt'), 'utf8')).toBe('alpha\nbeta\n');
    expect(resultOf(events, request.callId)).toMatchObject({ isError: true, output: 'denied by the user: keep beta, it is referenced elsewhere' });
    expect(decisionOf(events, request.callId)).toMatchObject({ decision: 'deny', by: 'user', reason: 'keep beta, it is referenced elsewhere' });
    const toolMessage = (await view(run)).find((m) => m.role === 'tool' && m.toolCallId === request.callId);
    expect(toolMessage?.content).toContain('keep beta, it is referenced elsewhere');
    // A new file's diff is against nothing.
    run.send('tool: write_file {"path":"new.txt","content":"fresh\\n"}');
    const write = await untilAsked(run.client);
    expect(write.preview).toMatchObject({ kind: 'diff', text: expect.stringContaining('+fresh') });
    expect(write.preview.text).toContain('/dev/null');
    await decide(run, write.callId, { decision: 'approve' });
    await run.idle();
    expect(fs.readFileSync(path.join(run.server.workDir, 'new.txt'), 'utf8')).toBe('fresh\n');
  });

  it('cancel while waiting: the call gets "denied: cancelled" and the turn ends as cancelled', async () => {
    const run = await start('on-write');
    run.send('bash: echo never-runs > cancelled.txt');
    const request = await untilAsked(run.client);
    expect((await api(run.server.url, `/api/sessions/${run.id}/cancel`, { body: {} })).status).toBe(202);
    const events = await run.idle();
    expect(resultOf(events, request.callId)).toMatchObject({ isError: true, output: 'denied: cancelled' });
    expect(decisionOf(events, request.callId)).toMatchObject({ decision: 'deny', by: 'cancel', reason: 'cancelled' });
    expect(transitions(events).slice(-2)).toEqual(['WaitingForApproval>Cancelled', 'Cancelled>WaitingForUserInput']);
    expect(fs.existsSync(path.join(run.server.workDir, 'cancelled.txt'))).toBe(false);
    // Nothing is pending any more.
    expect((await decide(run, request.callId, { decision: 'approve' })).status).toBe(409);
  });

  it('a new message while waiting denies the call with its text as the reason, then reaches the model as a user message', async () => {
    const run = await start('on-write');
    run.send('bash: rm -rf build');
    const request = await untilAsked(run.client);
    // Typed while waiting: it denies, and the same turn goes on with it.
    run.client.send({ type: 'user_message', text: 'echo: no, keep the build folder' });
    const events = await run.idle();
    expect(decisionOf(events, request.callId)).toMatchObject({ decision: 'deny', by: 'message', reason: 'echo: no, keep the build folder' });
    expect(resultOf(events, request.callId)?.output).toBe('denied by the user: echo: no, keep the build folder');
    // The model answered the message (the predictable model echoes it) in the same turn.
    const last = events.filter((e) => e.kind === 'agent').at(-1);
    expect(last?.kind === 'agent' && last.text).toBe('no, keep the build folder');
    const messages = await view(run);
    const toolAt = messages.findIndex((m) => m.role === 'tool' && m.toolCallId === request.callId);
    const userAt = messages.findIndex((m) => m.role === 'user' && m.content === 'echo: no, keep the build folder');
    expect(toolAt).toBeGreaterThan(0);
    expect(userAt).toBeGreaterThan(toolAt);
  });

  it('a restart while waiting keeps the request pending: the agent comes back in WaitingForApproval and a WebSocket approval goes on', async () => {
    const run = await start('on-write');
    run.send('bash: echo after-restart');
    const request = await untilAsked(run.client);
    run.client.close();
    await run.server.close();
    servers.splice(servers.indexOf(run.server), 1);
    const again = await startTestServer({ SKEIN_APPROVAL: 'on-write' }, { dataDir: run.server.dataDir, workDir: run.server.workDir });
    servers.push(again);
    expect(again.warnings).toEqual([]);
    const snap = (await api<SessionSnapshot>(again.url, `/api/sessions/${run.id}`)).body;
    expect(snap.state).toBe('WaitingForApproval');
    // Waiting again from the moment the session loaded: a decision now would be taken (not a 409).
    expect(again.sessions.get(run.id)?.agent.approvals.waitingFor).toBe(request.callId);
    const client = await TestClient.connect(again.url, run.id);
    clients.push(client);
    expect(openRequests(await client.until(() => client.events.length >= snap.lastSeq && client.events, 'the replay')).map((r) => r.callId)).toEqual([request.callId]);
    // A malformed frame is refused and loses nothing: the call still waits.
    client.send({ type: 'approval', callId: request.callId, decision: 'maybe' });
    await client.until(() => client.frames.find((f) => f.type === 'error'), 'an error frame');
    expect(client.frames.find((f) => f.type === 'error')).toEqual({ type: 'error', message: '"decision" must be one of approve, approve_session, deny' });
    client.send({ type: 'approval', callId: 'call_nope', decision: 'approve' });
    await client.until(() => client.frames.filter((f) => f.type === 'error').length >= 2, 'a second error frame');
    expect(client.frames.filter((f) => f.type === 'error')[1]).toMatchObject({ message: expect.stringContaining(`the call waiting now is ${request.callId}`) });
    client.send({ type: 'approval', callId: request.callId, decision: 'approve' });
    const events = await client.until(() => client.events.some((e) => e.kind === 'state' && e.to === 'WaitingForUserInput' && e.seq > snap.lastSeq) && client.events, 'the turn to end');
    expect(resultOf(events, request.callId)).toMatchObject({ isError: false, output: expect.stringContaining('after-restart') });
    // No interrupted-turn error: the wait was not lost work.
    expect(events.filter((e) => e.kind === 'error')).toEqual([]);
    expect(transitions(events).filter((t) => t.startsWith('WaitingForApproval'))).toEqual(['WaitingForApproval>RunningTools']);
  });

  it('a crash (SIGKILL) while waiting keeps the request pending too', async () => {
    const dirs = { SKEIN_DATA_DIR: tempDir('approval-crash'), SKEIN_WORKDIR: tempDir('approval-crash-work'), SKEIN_TOKEN: 'approval-crash-test-token-0123456789', SKEIN_APPROVAL: 'on-write' };
    const headers = { authorization: `Bearer ${dirs.SKEIN_TOKEN}` };
    const first = await startChildServer(dirs);
    let request: ApprovalRequestEvent | undefined;
    let id = '';
    try {
      id = (await api<{ id: string }>(first.url, '/api/sessions', { body: {}, headers })).body.id;
      await api(first.url, `/api/sessions/${id}/messages`, { body: { text: 'bash: echo survived > crash.txt' }, headers });
      const client = await TestClient.connect(first.url, id);
      request = await untilAsked(client);
      client.close();
    } finally {
      await first.kill('SIGKILL');
    }
    const again = await startTestServer({ SKEIN_APPROVAL: 'on-write', SKEIN_TOKEN: dirs.SKEIN_TOKEN }, { dataDir: dirs.SKEIN_DATA_DIR, workDir: dirs.SKEIN_WORKDIR });
    servers.push(again);
    expect((await api<SessionSnapshot>(again.url, `/api/sessions/${id}`)).body.state).toBe('WaitingForApproval');
    const client = await TestClient.connect(again.url, id);
    clients.push(client);
    expect((await untilAsked(client)).callId).toBe(request.callId);
    expect((await api(again.url, `/api/sessions/${id}/approvals/${request.callId}`, { body: { decision: 'approve' } })).status).toBe(202);
    await client.until(() => client.events.some((e) => e.kind === 'state' && e.to === 'WaitingForUserInput'), 'the turn to end', 30_000);
    expect(fs.readFileSync(path.join(dirs.SKEIN_WORKDIR, 'crash.txt'), 'utf8')).toBe('survived\n');
  }, 90_000);

  it('REST refuses bad decisions clearly and loses nothing', async () => {
    const run = await start('on-write');
    run.send('bash: echo still-pending');
    const request = await untilAsked(run.client);
    expect(await decide(run, request.callId, { decision: 'yes' })).toEqual({ status: 400, body: { error: '"decision" must be one of approve, approve_session, deny' } });
    expect(await decide(run, request.callId, { decision: 'approve', reason: 'because' })).toEqual({ status: 400, body: { error: '"reason" goes only with "deny"' } });
    expect(await decide(run, request.callId, { decision: 'deny', reason: 42 })).toEqual({ status: 400, body: { error: '"reason" must be a string' } });
    expect((await decide(run, 'call_other', { decision: 'approve' })).status).toBe(409);
    expect((await api(run.server.url, `/api/sessions/nope/approvals/${request.callId}`, { body: { decision: 'approve' } })).status).toBe(404);
    expect((await snapshot(run)).state).toBe('WaitingForApproval');
    expect((await decide(run, request.callId, { decision: 'approve' })).status).toBe(202);
    expect(resultOf(await run.idle(), request.callId)?.output).toContain('still-pending');
  });

  it('reads, search_history and compact_history do not ask; never asks for nothing; always asks for reads too', async () => {
    const run = await start('on-write');
    fs.writeFileSync(path.join(run.server.workDir, 'a.txt'), 'hello\n');
    run.send('read: a.txt');
    await run.idle();
    run.send('tool: search_history {"query":"hello"}');
    await run.idle();
    run.send('tool: compact_history {"focus":"x"}');
    let events = await run.idle();
    expect(events.filter((e) => e.kind.startsWith('approval'))).toEqual([]);

    const never = await start('never');
    never.send('bash: echo free');
    events = await never.idle();
    expect(events.filter((e: SkeinEvent) => e.kind.startsWith('approval'))).toEqual([]);

    const always = await start('always');
    fs.writeFileSync(path.join(always.server.workDir, 'a.txt'), 'hello\n');
    always.send('read: a.txt');
    const request = await untilAsked(always.client);
    expect(request).toMatchObject({ name: 'read_file', preview: { kind: 'input' } });
    await decide(always, request.callId, { decision: 'approve' });
    expect(resultOf(await always.idle(), request.callId)?.output).toContain('hello');
  }, 90_000);
});
