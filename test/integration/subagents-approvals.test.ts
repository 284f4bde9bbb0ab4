// A child's approval request surfaces once, in both timelines: the parent's
// stream gets it as a `subagent` event (phase `approval`) with the child's
// request, the child's stream as its own `approval_request`; the user answers
// from either (the parent's frame or route with the child's callId, or the
// child's own), and the other view shows it answered.
import { afterEach, describe, expect, it } from 'vitest';
import type { EventOf, SkeinEvent } from '../../shared/protocol.js';
import { api, startTestServer, type TestServer } from '../helpers/server.js';
import { TestClient } from '../helpers/ws-client.js';

const servers: TestServer[] = [];
const clients: TestClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  for (const s of servers.splice(0)) await s.close();
});

async function start(): Promise<TestServer> {
  const server = await startTestServer({ SKEIN_MODEL: 'predictable', SKEIN_APPROVAL: 'on-write' });
  servers.push(server);
  return server;
}

async function connect(server: TestServer, session: string): Promise<TestClient> {
  const client = await TestClient.connect(server.url, session);
  clients.push(client);
  return client;
}

const task = (prompt: string) => `tool: task ${JSON.stringify({ description: 'write a file', prompt })}`;

function notes(events: readonly SkeinEvent[], phase: EventOf<'subagent'>['phase']): EventOf<'subagent'>[] {
  return events.flatMap((e) => (e.kind === 'subagent' && e.phase === phase ? [e] : []));
}

/** A parent whose child waits for approval: both streams, the parent's notice, the child's request. */
async function waitingChild(server: TestServer, command: string) {
  const { body } = await api<{ id: string }>(server.url, '/api/sessions', { body: {} });
  const parent = await connect(server, body.id);
  parent.send({ type: 'user_message', text: task(`bash: ${command}`) });
  const [note] = await parent.until(() => notes(parent.events, 'approval').length > 0 && notes(parent.events, 'approval'), "the child's approval in the parent's stream", 30_000);
  const child = await connect(server, note!.child);
  const request = await child.until(() => child.events.find((e) => e.kind === 'approval_request'), "the request in the child's stream", 30_000);
  return { parentId: body.id, parent, child, note: note!, request: request as EventOf<'approval_request'> };
}

describe("a child's approval request", () => {
  it("is in both timelines; answered over the parent's WebSocket, the child's call runs and both views show it answered", async () => {
    const server = await start();
    const { parent, child, note, request } = await waitingChild(server, 'echo answered-from-the-parent');
    // The parent's notice carries the child's request: what to show and the callId to answer with.
    expect(note.approval).toMatchObject({ session: note.child, callId: request.callId, name: 'bash', input: request.input, preview: request.preview, rule: request.rule });
    expect(note.tool).toBe('bash');
    parent.send({ type: 'approval', callId: note.approval!.callId, decision: 'approve' });
    const decided = await child.until(() => child.events.find((e) => e.kind === 'approval_decision'), "the decision in the child's stream", 30_000);
    expect(decided).toMatchObject({ callId: request.callId, decision: 'approve', by: 'user' });
    const [told] = await parent.until(() => notes(parent.events, 'approval_decision').length > 0 && notes(parent.events, 'approval_decision'), "the decision in the parent's stream", 30_000);
    expect(told).toMatchObject({ child: note.child, tool: 'bash', approval: { session: note.child, callId: request.callId, decision: 'approve', by: 'user' } });
    await parent.untilIdle(1, 60_000);
    const result = parent.events.find((e) => e.kind === 'tool_result' && e.name === 'task');
    expect(result).toMatchObject({ isError: false });
    expect(await child.until(() => child.events.find((e) => e.kind === 'tool_result' && e.name === 'bash'), "the child's call run", 30_000)).toMatchObject({ isError: false });
    expect(JSON.stringify(child.events)).toContain('answered-from-the-parent');
    // Answered once: the child's own route finds nothing waiting any more.
    const again = await api(server.url, `/api/sessions/${note.child}/approvals/${request.callId}`, { body: { decision: 'approve' } });
    expect(again.status).toBe(409);
    expect(parent.frames.filter((f) => f.type === 'error')).toEqual([]);
  }, 90_000);

  it("denied over the parent's HTTP route: the child gets the refusal with the reason", async () => {
    const server = await start();
    const { parentId, parent, child, note } = await waitingChild(server, 'echo never-run');
    const res = await api<{ accepted: boolean }>(server.url, `/api/sessions/${parentId}/approvals/${note.approval!.callId}`, { body: { decision: 'deny', reason: 'not now' } });
    expect(res.status).toBe(202);
    const result = await child.until(() => child.events.find((e) => e.kind === 'tool_result' && e.name === 'bash'), "the child's refused call", 30_000);
    expect(result).toMatchObject({ isError: true });
    expect(result.kind === 'tool_result' && result.output).toContain('not now');
    const [told] = await parent.until(() => notes(parent.events, 'approval_decision').length > 0 && notes(parent.events, 'approval_decision'), 'the denial in the parent', 30_000);
    expect(told!.approval).toMatchObject({ decision: 'deny', by: 'user', reason: 'not now' });
    await parent.untilIdle(1, 60_000);
  }, 90_000);

  it("answered in the child's own view: the parent's timeline shows it answered, and the parent's route then finds nothing waiting", async () => {
    const server = await start();
    const { parentId, parent, child, note, request } = await waitingChild(server, 'echo answered-in-the-child');
    child.send({ type: 'approval', callId: request.callId, decision: 'approve' });
    const [told] = await parent.until(() => notes(parent.events, 'approval_decision').length > 0 && notes(parent.events, 'approval_decision'), 'the decision in the parent', 30_000);
    expect(told!.approval).toMatchObject({ session: note.child, callId: request.callId, decision: 'approve', by: 'user' });
    await parent.untilIdle(1, 60_000);
    const late = await api<{ error: string }>(server.url, `/api/sessions/${parentId}/approvals/${request.callId}`, { body: { decision: 'approve' } });
    expect(late.status).toBe(409);
    // One request and one decision in each view: nothing asked twice.
    expect(notes(parent.events, 'approval')).toHaveLength(1);
    expect(child.events.filter((e) => e.kind === 'approval_request')).toHaveLength(1);
  }, 90_000);
});
