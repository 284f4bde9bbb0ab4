// A tool call that needs approval, as an editor sees it through `skein acp`
// beside a running server (the official ACP SDK is the client): the
// `tool_call` (pending) arrives before the `session/request_permission` that
// names it; allowed, it runs (in_progress, completed); rejected, cancelled,
// or decided in the web UI while the editor's question is open, it ends
// `failed` with content saying it was denied, never left in progress.
import fs from 'node:fs';
import path from 'node:path';
import { PROTOCOL_VERSION, type RequestPermissionRequest, type RequestPermissionResponse, type SessionNotification } from '@agentclientprotocol/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';
import { startAcp, type AcpRun } from './acp-client.js';

const SLOW = { timeout: 300_000 };
const runs: AcpRun[] = [];
const servers: TestServer[] = [];
afterEach(async () => {
  for (const run of runs.splice(0)) await run.close();
  for (const server of servers.splice(0)) await server.close();
});

type Update = SessionNotification['update'];
type CallUpdate = { toolCallId: string; status?: string; content?: { type: string; content?: { type: string; text?: string } }[] };

type Received = { update: Update } | { permission: RequestPermissionRequest };

/** What the editor received about one call, in the order the agent wrote it: its updates and the permission requests naming it. */
function historyOf(run: AcpRun, callId: string): Received[] {
  return run.stdoutLines().flatMap((line): Received[] => {
    const message = line as { method?: string; params?: SessionNotification | RequestPermissionRequest };
    if (message.method === 'session/request_permission') {
      const permission = message.params as RequestPermissionRequest;
      return permission.toolCall.toolCallId === callId ? [{ permission }] : [];
    }
    if (message.method !== 'session/update') return [];
    const update = (message.params as SessionNotification).update;
    const call = update as Update & Partial<CallUpdate>;
    return (call.sessionUpdate === 'tool_call' || call.sessionUpdate === 'tool_call_update') && call.toolCallId === callId ? [{ update }] : [];
  });
}

/** The statuses the editor was told, in order ("ask" for the permission request). */
function statusesOf(run: AcpRun, callId: string): string[] {
  return historyOf(run, callId).flatMap((r) => ('permission' in r ? ['ask'] : (r.update as CallUpdate).status ? [(r.update as CallUpdate).status!] : []));
}

function textOf(update: CallUpdate): string {
  return (update.content ?? []).map((c) => c.content?.text ?? '').join('\n');
}

/** Denied: never shown running, failed from the decision on, the first failed update says it was denied. */
function expectDenied(run: AcpRun, callId: string, why: RegExp): void {
  const statuses = statusesOf(run, callId);
  expect(statuses.slice(0, 3)).toEqual(['pending', 'ask', 'failed']);
  expect(statuses).not.toContain('in_progress');
  expect(statuses.at(-1)).toBe('failed');
  const failed = historyOf(run, callId).flatMap((r) => ('update' in r && (r.update as CallUpdate).status === 'failed' ? [r.update as unknown as CallUpdate] : []));
  expect(textOf(failed[0]!)).toMatch(why);
}

const choose = (kind: string) => async (request: RequestPermissionRequest): Promise<RequestPermissionResponse> => ({ outcome: { outcome: 'selected', optionId: request.options.find((o) => o.kind === kind)!.optionId } });

async function setUp() {
  const server = await startTestServer({ SKEIN_APPROVAL: 'on-write' });
  servers.push(server);
  const run = startAcp({ SKEIN_TOKEN: server.token!, SKEIN_DATA_DIR: tempDir('acp-unused') }, ['--server', server.url]);
  runs.push(run);
  await run.connection.agent.request('initialize', { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
  const { sessionId: id } = await run.connection.agent.request('session/new', { cwd: server.workDir, mcpServers: [] });
  const prompt = (text: string) => run.connection.agent.request('session/prompt', { sessionId: id, prompt: [{ type: 'text', text }] });
  const headers = { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' };
  /** The web UI's answer (its REST call). */
  const decideInWebUi = (callId: string, decision: string) => fetch(`${server.url}/api/sessions/${id}/approvals/${encodeURIComponent(callId)}`, { method: 'POST', headers, body: JSON.stringify({ decision }) });
  return { server, run, id, prompt, decideInWebUi };
}

/** The editor leaves its question open until it is withdrawn (then answers `cancelled`, as the SDK's client does). */
function leaveOpen(withdrawn: { value: boolean }) {
  return (_request: RequestPermissionRequest, signal: AbortSignal) =>
    new Promise<RequestPermissionResponse>((resolve) => {
      const done = () => {
        withdrawn.value = true;
        resolve({ outcome: { outcome: 'cancelled' } });
      };
      if (signal.aborted) done();
      else signal.addEventListener('abort', done);
    });
}

describe('skein acp: a tool call that needs approval, as the editor sees it', () => {
  it('the tool_call (pending) comes before its permission request; allowed once, it goes in_progress then completed', SLOW, async () => {
    const { server, run, prompt } = await setUp();
    run.answerPermission = choose('allow_once');
    expect((await prompt('tool: write_file {"path":"ordered.txt","content":"one\\n"}')).stopReason).toBe('end_turn');
    expect(fs.readFileSync(path.join(server.workDir, 'ordered.txt'), 'utf8')).toBe('one\n');
    expect(run.permissions).toHaveLength(1);
    const callId = run.permissions[0]!.toolCall.toolCallId;
    const history = historyOf(run, callId);
    expect('update' in history[0]! && history[0].update).toMatchObject({ sessionUpdate: 'tool_call', status: 'pending' });
    // Nothing says it runs before the user allowed it.
    expect(statusesOf(run, callId)).toEqual(['pending', 'ask', 'in_progress', 'completed']);
  });

  it('rejected in the editor: failed, saying it was denied', SLOW, async () => {
    const { server, run, prompt } = await setUp();
    run.answerPermission = choose('reject_once');
    expect((await prompt('tool: write_file {"path":"no.txt","content":"x"}')).stopReason).toBe('end_turn');
    expect(fs.existsSync(path.join(server.workDir, 'no.txt'))).toBe(false);
    const callId = run.permissions[0]!.toolCall.toolCallId;
    expectDenied(run, callId, /^Denied by the user/);
  });

  it('the permission request answered `cancelled`: the turn stops, the call is failed and says it was denied', SLOW, async () => {
    const { server, run, prompt } = await setUp();
    run.answerPermission = async () => ({ outcome: { outcome: 'cancelled' } });
    expect((await prompt('tool: write_file {"path":"never.txt","content":"x"}')).stopReason).toBe('cancelled');
    expect(fs.existsSync(path.join(server.workDir, 'never.txt'))).toBe(false);
    const callId = run.permissions[0]!.toolCall.toolCallId;
    expectDenied(run, callId, /^Denied: the turn was cancelled/);
  });

  it('denied in the web UI while the editor asks: the question is withdrawn, the call is failed and says it was denied', SLOW, async () => {
    const { server, run, prompt, decideInWebUi } = await setUp();
    const withdrawn = { value: false };
    run.answerPermission = leaveOpen(withdrawn);
    const turn = prompt('tool: write_file {"path":"web-no.txt","content":"x"}');
    await until(() => run.permissions.length === 1, 'the question');
    const callId = run.permissions[0]!.toolCall.toolCallId;
    expect((await decideInWebUi(callId, 'deny')).status).toBe(202);
    expect((await turn).stopReason).toBe('end_turn');
    expect(withdrawn.value).toBe(true);
    expect(fs.existsSync(path.join(server.workDir, 'web-no.txt'))).toBe(false);
    expectDenied(run, callId, /^Denied by the user/);
  });

  it('approved in the web UI while the editor asks: the question is withdrawn, the call runs and is completed', SLOW, async () => {
    const { server, run, prompt, decideInWebUi } = await setUp();
    const withdrawn = { value: false };
    run.answerPermission = leaveOpen(withdrawn);
    const turn = prompt('tool: write_file {"path":"web-yes.txt","content":"y"}');
    await until(() => run.permissions.length === 1, 'the question');
    const callId = run.permissions[0]!.toolCall.toolCallId;
    expect((await decideInWebUi(callId, 'approve')).status).toBe(202);
    expect((await turn).stopReason).toBe('end_turn');
    expect(withdrawn.value).toBe(true);
    expect(fs.readFileSync(path.join(server.workDir, 'web-yes.txt'), 'utf8')).toBe('y');
    expect(statusesOf(run, callId)).toEqual(['pending', 'ask', 'in_progress', 'completed']);
  });

  it('an editor that loads the session while a call waits sees it pending, then asked; its answer runs it', SLOW, async () => {
    const { server, run, id, prompt } = await setUp();
    const withdrawn = { value: false };
    run.answerPermission = leaveOpen(withdrawn);
    const turn = prompt('tool: write_file {"path":"later.txt","content":"z"}');
    await until(() => run.permissions.length === 1, 'the question');
    const callId = run.permissions[0]!.toolCall.toolCallId;
    const other = startAcp({ SKEIN_TOKEN: server.token!, SKEIN_DATA_DIR: tempDir('acp-unused') }, ['--server', server.url]);
    runs.push(other);
    other.answerPermission = choose('allow_once');
    await other.connection.agent.request('initialize', { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
    await other.connection.agent.request('session/load', { sessionId: id, cwd: server.workDir, mcpServers: [] });
    expect((await turn).stopReason).toBe('end_turn');
    expect(withdrawn.value).toBe(true);
    expect(fs.readFileSync(path.join(server.workDir, 'later.txt'), 'utf8')).toBe('z');
    await until(() => statusesOf(other, callId).at(-1) === 'completed', 'the loaded editor told the call completed');
    expect(statusesOf(other, callId)).toEqual(['pending', 'ask', 'in_progress', 'completed']);
  });
});
