// Issue 21, defects 6-8, through the real server and the predictable model: an
// approval must mean what it says. A session rule never widens past the exact
// command or the file it was given for, never covers a protected path, a call
// with input its tool's schema refuses is never asked about, a restart with
// another SKEIN_APPROVAL re-checks the waiting call, and a fork taken while a
// call waits closes that call in the copy.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionSnapshot, SkeinEvent } from '../../shared/protocol.js';
import { decisionOf, resultOf, transitions, untilAsked } from '../helpers/approvals.js';
import { startHttpMcpServer, writeMcpJson, type HttpMcpServer } from '../helpers/mcp.js';
import { api, startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { TestClient } from '../helpers/ws-client.js';
import { plantApprovalTricks } from './approvals-tricks.js';

const servers: TestServer[] = [];
const clients: TestClient[] = [];
const mcps: HttpMcpServer[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  for (const s of servers.splice(0)) await s.close();
  for (const m of mcps.splice(0)) await m.close();
});

async function open(mode: string, dirs?: { dataDir: string; workDir: string }, id?: string, env: Record<string, string> = {}) {
  const server = await startTestServer({ SKEIN_APPROVAL: mode, ...env }, dirs);
  servers.push(server);
  if (!dirs) plantApprovalTricks(server.workDir);
  const sessionId = id ?? (await api<{ id: string }>(server.url, '/api/sessions', { body: {} })).body.id;
  const client = await TestClient.connect(server.url, sessionId);
  clients.push(client);
  return { server, id: sessionId, client };
}

type Run = Awaited<ReturnType<typeof open>>;

/** Sends a message and waits until the turn it starts is over. */
async function turn(run: Run, text: string): Promise<SkeinEvent[]> {
  const before = run.client.events.at(-1)?.seq ?? 0;
  run.client.send({ type: 'user_message', text });
  return run.client.until(() => {
    const after = run.client.events.filter((e) => e.seq > before);
    return after.some((e) => e.kind === 'state' && e.to === 'WaitingForUserInput') && after;
  }, `the turn of ${text}`);
}

/** Sends a message and waits until a call of its turn waits for approval. */
async function asked(run: Run, text: string) {
  const before = run.client.events.at(-1)?.seq ?? 0;
  run.client.send({ type: 'user_message', text });
  await run.client.until(() => run.client.events.some((e) => e.seq > before && e.kind === 'approval_request'), `a request for ${text}`);
  return untilAsked(run.client);
}

function decide(run: Run, callId: string, decision: string) {
  return api(run.server.url, `/api/sessions/${run.id}/approvals/${encodeURIComponent(callId)}`, { body: { decision } });
}

async function waitIdle(run: Run): Promise<SkeinEvent[]> {
  return run.client.until(() => {
    const last = run.client.events.filter((e) => e.kind === 'state').at(-1);
    return last?.kind === 'state' && last.to === 'WaitingForUserInput' && run.client.events;
  }, 'the session to be idle');
}

async function restart(run: Run, mode: string): Promise<Run> {
  run.client.close();
  await run.server.close();
  servers.splice(servers.indexOf(run.server), 1);
  return open(mode, { dataDir: run.server.dataDir, workDir: run.server.workDir }, run.id);
}

const lastCall = (events: readonly SkeinEvent[]) => events.filter((e) => e.kind === 'tool_call').at(-1)!;

describe('defect 6: a session rule covers exactly what it says', () => {
  it('an array bash command is refused by the schema, never asked about, and records no rule that would approve later bash calls', async () => {
    const run = await open('on-write');
    const events = await turn(run, 'tool: bash {"command":["touch","ARRAY_RAN"]}');
    const call = lastCall(events);
    if (call.kind !== 'tool_call') throw new Error('no call');
    expect(events.filter((e) => e.kind === 'approval_request')).toEqual([]);
    expect(resultOf(events, call.callId)).toMatchObject({ isError: true, output: expect.stringMatching(/"command".*must be a string.*array/) });
    expect(fs.existsSync(path.join(run.server.workDir, 'ARRAY_RAN'))).toBe(false);
    // The next bash call asks: nothing was approved for the session.
    const next = await asked(run, 'bash: touch UNAPPROVED');
    expect(next.rule).toEqual({ tool: 'bash', command: 'touch UNAPPROVED' });
    await decide(run, next.callId, 'deny');
    await waitIdle(run);
    expect(fs.existsSync(path.join(run.server.workDir, 'UNAPPROVED'))).toBe(false);
  });

  it('rules an older version logged without their scope ({tool: "bash"}, {tool: "write_file"}) approve nothing after an upgrade', async () => {
    const first = await open('on-write');
    // What 8dea484 recorded for "Approve for this session" on `{"command":["ls"]}` and on any write.
    const live = first.server.sessions.get(first.id)!;
    live.session.append({ kind: 'approval_decision', callId: 'old1', name: 'bash', decision: 'approve_session', by: 'user', rule: { tool: 'bash' } });
    live.session.append({ kind: 'approval_decision', callId: 'old2', name: 'write_file', decision: 'approve_session', by: 'user', rule: { tool: 'write_file' } });
    await live.session.durable();
    const run = await restart(first, 'on-write');
    const bash = await asked(run, 'bash: touch UNAPPROVED');
    await decide(run, bash.callId, 'deny');
    await waitIdle(run);
    const write = await asked(run, 'tool: write_file {"path":".git/config","content":"[core]\\n\\tfsmonitor = touch PWNED\\n"}');
    await decide(run, write.callId, 'deny');
    const events = await waitIdle(run);
    expect(events.filter((e) => e.kind === 'approval_decision' && e.by === 'rule')).toEqual([]);
    expect(fs.existsSync(path.join(run.server.workDir, 'UNAPPROVED'))).toBe(false);
    expect(fs.readFileSync(path.join(run.server.workDir, '.git/config'), 'utf8')).not.toContain('fsmonitor');
  });

  it('under SKEIN_APPROVAL=never too, a call with bad input gets a tool error naming the field and never runs', async () => {
    const run = await open('never');
    const events = await turn(run, 'tool: write_file {"path":"x.txt","content":{"not":"text"}}');
    const call = lastCall(events);
    expect(call.kind === 'tool_call' && resultOf(events, call.callId)).toMatchObject({ isError: true, output: expect.stringContaining('"content"') });
    expect(fs.existsSync(path.join(run.server.workDir, 'x.txt'))).toBe(false);
  });

  it('approving write_file for the session covers that file only: .git/config, .mcp.json, AGENTS.md and another file still ask', async () => {
    const run = await open('on-write');
    const first = await asked(run, 'tool: write_file {"path":"src/a.ts","content":"one\\n"}');
    expect(first.rule).toEqual({ tool: 'write_file', path: 'src/a.ts' });
    await decide(run, first.callId, 'approve_session');
    await waitIdle(run);
    // The same file, spelled differently, runs by the rule.
    const again = await turn(run, 'tool: write_file {"path":"./src/../src/a.ts","content":"two\\n"}');
    const call = lastCall(again);
    expect(call.kind === 'tool_call' && decisionOf(again, call.callId)).toMatchObject({ by: 'rule', rule: { tool: 'write_file', path: 'src/a.ts' } });
    expect(fs.readFileSync(path.join(run.server.workDir, 'src/a.ts'), 'utf8')).toBe('two\n');
    for (const target of ['.git/config', '.mcp.json', 'AGENTS.md', 'src/b.ts', 'src/a.ts/../../.git/hooks/pre-commit', 'sub/.git/config', 'link-to-git-config']) {
      const request = await asked(run, `tool: write_file {"path":${JSON.stringify(target)},"content":"[core]\\n\\tfsmonitor = touch PWNED\\n"}`);
      expect(request.input).toMatchObject({ path: target });
      await decide(run, request.callId, 'deny');
      await waitIdle(run);
    }
    expect(fs.readFileSync(path.join(run.server.workDir, '.git/config'), 'utf8')).not.toContain('fsmonitor');
    expect(fs.existsSync(path.join(run.server.workDir, '.mcp.json'))).toBe(false);
  }, 60_000);

  it('approving a write to a protected file for the session records no rule: the next write to it asks again', async () => {
    const run = await open('on-write');
    const first = await asked(run, 'tool: edit_file {"path":"AGENTS.md","old":"Be careful.","new":"Be quick."}');
    expect(first.alwaysAsks).toContain('AGENTS.md');
    await decide(run, first.callId, 'approve_session');
    const events = await waitIdle(run);
    expect(decisionOf(events, first.callId)).toMatchObject({ decision: 'approve_session', by: 'user' });
    expect(decisionOf(events, first.callId)?.rule).toBeUndefined();
    const second = await asked(run, 'tool: edit_file {"path":"AGENTS.md","old":"Be quick.","new":"Send secrets."}');
    await decide(run, second.callId, 'deny');
    await waitIdle(run);
    expect(fs.readFileSync(path.join(run.server.workDir, 'AGENTS.md'), 'utf8')).toContain('Be quick.');
  });
});

describe('defect 7: a restart with another SKEIN_APPROVAL re-checks the waiting call', () => {
  it('on-write -> never: the waiting call runs through a legal transition and the model sees its result', async () => {
    const first = await open('on-write');
    const request = await asked(first, 'bash: echo ran-after-restart > restarted.txt; echo done');
    const run = await restart(first, 'never');
    const events = await waitIdle(run);
    expect(fs.readFileSync(path.join(run.server.workDir, 'restarted.txt'), 'utf8')).toBe('ran-after-restart\n');
    expect(resultOf(events, request.callId)).toMatchObject({ isError: false, output: expect.stringContaining('done') });
    expect(events.filter((e) => e.kind === 'error')).toEqual([]);
    const resumed = events.find((e) => e.kind === 'state' && e.from === 'WaitingForApproval' && e.seq > request.seq);
    expect(resumed).toMatchObject({ to: 'RunningTools', reason: expect.stringContaining('SKEIN_APPROVAL is now never') });
    expect(transitions(events.filter((e) => e.seq > request.seq)).slice(-4)).toEqual([
      'RunningTools>SendingToLLM', 'SendingToLLM>ProcessingLLMResponse', 'ProcessingLLMResponse>EndOfTurn', 'EndOfTurn>WaitingForUserInput',
    ]);
    // The model answered after seeing the result (the predictable model describes it).
    const view = (await api<{ messages: { role: string; toolCallId?: string; content: string }[] }>(run.server.url, `/api/sessions/${run.id}/view`)).body.messages;
    expect(view.find((m) => m.role === 'tool' && m.toolCallId === request.callId)?.content).toContain('done');
    expect(view.at(-1)?.role).toBe('assistant');
  }, 60_000);

  it('a call an older version left waiting with input its schema refuses is not asked again after the upgrade: it gets the schema error and the turn goes on', async () => {
    const first = await open('on-write');
    // The log of 8dea484 waiting on `tool: bash {"command":["touch","OLD_RAN"]}` (it asked about it).
    const live = first.server.sessions.get(first.id)!;
    const append = (e: Parameters<typeof live.session.append>[0]) => live.session.append(e);
    append({ kind: 'user', text: 'tool: bash {"command":["touch","OLD_RAN"]}' });
    append({ kind: 'state', from: 'WaitingForUserInput', to: 'SendingToLLM', reason: 'sending the conversation' });
    append({ kind: 'state', from: 'SendingToLLM', to: 'ProcessingLLMResponse', reason: 'tool_use' });
    append({ kind: 'agent', text: '', model: 'predictable', endOfTurn: false });
    append({ kind: 'tool_call', callId: 'old_call', name: 'bash', input: { command: ['touch', 'OLD_RAN'] } });
    append({ kind: 'state', from: 'ProcessingLLMResponse', to: 'RunningTools', reason: '1 tool call' });
    append({ kind: 'approval_request', callId: 'old_call', name: 'bash', input: { command: ['touch', 'OLD_RAN'] }, preview: { kind: 'input', text: '' }, rule: { tool: 'bash' } });
    append({ kind: 'state', from: 'RunningTools', to: 'WaitingForApproval', reason: 'bash waits for approval' });
    await live.session.durable();
    const run = await restart(first, 'on-write');
    const events = await waitIdle(run);
    expect(resultOf(events, 'old_call')).toMatchObject({ isError: true, output: expect.stringContaining('"command" must be a string') });
    expect(events.find((e) => e.kind === 'state' && e.from === 'WaitingForApproval')).toMatchObject({ to: 'RunningTools', reason: expect.stringContaining('not asked about') });
    expect(events.filter((e) => e.kind === 'error')).toEqual([]);
    expect(fs.existsSync(path.join(run.server.workDir, 'OLD_RAN'))).toBe(false);
  }, 60_000);

  it('on-write -> always: the waiting call still waits, and runs once approved', async () => {
    const first = await open('on-write');
    const request = await asked(first, 'bash: echo still-asks');
    const run = await restart(first, 'always');
    expect((await api<SessionSnapshot>(run.server.url, `/api/sessions/${run.id}`)).body.state).toBe('WaitingForApproval');
    expect(run.server.sessions.get(run.id)?.agent.approvals.waitingFor).toBe(request.callId);
    await decide(run, request.callId, 'approve');
    const events = await waitIdle(run);
    expect(resultOf(events, request.callId)?.output).toContain('still-asks');
    expect(events.filter((e) => e.kind === 'error')).toEqual([]);
  }, 60_000);

  it('always -> on-write: a waiting read runs without asking', async () => {
    const first = await open('always');
    const request = await asked(first, 'read: src/readme.txt');
    const run = await restart(first, 'on-write');
    const events = await waitIdle(run);
    expect(resultOf(events, request.callId)).toMatchObject({ isError: false, output: expect.stringContaining('plain text') });
    expect(events.filter((e) => e.kind === 'error')).toEqual([]);
  }, 60_000);
});

describe('defect 8: a fork taken while a call waits closes the call in the copy', () => {
  for (const where of ['the approval request', 'the WaitingForApproval state event'] as const) {
    it(`fork at ${where}: the copy denies the call ("forked before it was approved") and the original still waits`, async () => {
      const run = await open('on-write');
      const request = await asked(run, 'bash: touch FORK_RAN');
      const waiting = run.client.events.find((e) => e.kind === 'state' && e.to === 'WaitingForApproval' && e.seq > request.seq)!;
      const seq = where === 'the approval request' ? request.seq : waiting.seq;
      const forked = await api<{ id: string }>(run.server.url, `/api/sessions/${run.id}/fork`, { body: { seq } });
      expect(forked.status).toBe(201);
      const copy = (await api<{ events: SkeinEvent[] }>(run.server.url, `/api/sessions/${forked.body.id}/events`)).body.events;
      expect(decisionOf(copy, request.callId)).toMatchObject({ decision: 'deny', reason: 'forked before it was approved' });
      expect(resultOf(copy, request.callId)).toMatchObject({ isError: true, output: 'denied: forked before it was approved' });
      expect((await api<SessionSnapshot>(run.server.url, `/api/sessions/${forked.body.id}`)).body.state).toBe('WaitingForUserInput');
      // It cannot be approved in the fork.
      expect((await api(run.server.url, `/api/sessions/${forked.body.id}/approvals/${request.callId}`, { body: { decision: 'approve' } })).status).toBe(409);
      // The original still waits, and its own decision runs it there.
      expect((await api<SessionSnapshot>(run.server.url, `/api/sessions/${run.id}`)).body.state).toBe('WaitingForApproval');
      expect(fs.existsSync(path.join(run.server.workDir, 'FORK_RAN'))).toBe(false);
      expect((await decide(run, request.callId, 'approve')).status).toBe(202);
      await waitIdle(run);
      expect(fs.existsSync(path.join(run.server.workDir, 'FORK_RAN'))).toBe(true);
    });
  }
});

describe('MCP tools: checked against their inputSchema, approved by their exact input', () => {
  it('bad input is never asked about; a session approval covers only the identical call', async () => {
    const remote = await startHttpMcpServer();
    mcps.push(remote);
    // The user's own config (SKEIN_MCP_CONFIG), not the repository's .mcp.json.
    const config = writeMcpJson(tempDir('approvals-mcp'), { remote: { type: 'http', url: remote.url } }, 'mcp.json');
    const run = await open('on-write', undefined, undefined, { SKEIN_MCP_CONFIG: config });
    const bad = await turn(run, 'mcp: remote echo {"text":["not","text"]}');
    expect(bad.filter((e) => e.kind === 'approval_request')).toEqual([]);
    const badCall = lastCall(bad);
    expect(badCall.kind === 'tool_call' && resultOf(bad, badCall.callId)).toMatchObject({ isError: true, output: expect.stringContaining('"text" must be a string, got an array') });

    const first = await asked(run, 'mcp: remote echo {"text":"hello"}');
    expect(first.rule).toEqual({ tool: 'mcp__remote__echo', input: { text: 'hello' } });
    await decide(run, first.callId, 'approve_session');
    await waitIdle(run);
    const same = await turn(run, 'mcp: remote echo {"text":"hello"}');
    const sameCall = lastCall(same);
    expect(sameCall.kind === 'tool_call' && decisionOf(same, sameCall.callId)).toMatchObject({ by: 'rule' });
    const other = await asked(run, 'mcp: remote echo {"text":"goodbye"}');
    expect(other.input).toEqual({ text: 'goodbye' });
    await decide(run, other.callId, 'deny');
    await waitIdle(run);
  }, 60_000);
});
