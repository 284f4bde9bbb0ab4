// Approval modes per session through the real server and the predictable
// model: PUT /api/sessions/:id/mode (and its errors), the mode in the
// session's REST body, the list and the socket's hello, plan mode refusing a
// write with the reason in the tool result, a switch while a call waits, and
// a switch surviving a crash and restart (replayed from the log) while a
// session that never switched follows the new SKEIN_APPROVAL.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionSnapshot, SkeinEvent } from '../../shared/protocol.js';
import { decisionOf, resultOf, untilAsked } from '../helpers/approvals.js';
import { startChildServer } from '../helpers/child-server.js';
import { api, startTestServer, storeEnv, tempDir, type TestServer } from '../helpers/server.js';
import { TestClient } from '../helpers/ws-client.js';

const servers: TestServer[] = [];
const clients: TestClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  for (const s of servers.splice(0)) await s.close();
});

async function start(mode: string) {
  const server = await startTestServer({ SKEIN_APPROVAL: mode });
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
    setMode: (mode: unknown, id = body.id) => api<SessionSnapshot & { error?: string; changed?: boolean }>(server.url, `/api/sessions/${id}/mode`, { method: 'PUT', body: { mode } }),
  };
}

const listed = async (url: string, id: string, headers: Record<string, string> = {}) =>
  (await api<{ sessions: SessionSnapshot[] }>(url, '/api/sessions', { headers })).body.sessions.find((s) => s.id === id);

describe('approval modes per session', () => {
  it('PUT /mode switches one session to plan: logged, in its REST body, the list and the hello; a write is refused with the reason; another session keeps SKEIN_APPROVAL', async () => {
    const run = await start('never');
    const other = (await api<{ id: string }>(run.server.url, '/api/sessions', { body: {} })).body.id;
    expect((await api<SessionSnapshot>(run.server.url, `/api/sessions/${run.id}`)).body.mode).toBe('never');

    const switched = await run.setMode('plan');
    expect(switched.status).toBe(200);
    expect(switched.body).toMatchObject({ id: run.id, mode: 'plan', changed: true });
    expect((await api<SessionSnapshot>(run.server.url, `/api/sessions/${run.id}`)).body.mode).toBe('plan');
    expect((await listed(run.server.url, run.id))?.mode).toBe('plan');
    expect((await listed(run.server.url, other))?.mode).toBe('never');
    await run.client.until(() => run.client.events.some((e) => e.kind === 'mode'), 'the mode event');
    expect(run.client.events.find((e) => e.kind === 'mode')).toMatchObject({ from: 'never', to: 'plan' });
    const late = await TestClient.connect(run.server.url, run.id);
    clients.push(late);
    const hello = await late.until(() => late.frames.find((f) => f.type === 'hello'), 'the hello frame');
    expect(hello.type === 'hello' && hello.session.mode).toBe('plan');

    run.send('tool: write_file {"path":"plan.txt","content":"should not exist"}');
    const events = await run.idle();
    const call = events.find((e) => e.kind === 'tool_call' && e.name === 'write_file')!;
    const result = resultOf(events, (call as { callId: string }).callId);
    expect(result).toMatchObject({ isError: true, output: expect.stringMatching(/^refused: this session is in plan mode \(read-only\), so write_file was not run/) });
    expect(fs.existsSync(path.join(run.server.workDir, 'plan.txt'))).toBe(false);
    // The model read the reason: it is in the view the next request sends.
    const view = (await api<{ messages: { role: string; content: string }[] }>(run.server.url, `/api/sessions/${run.id}/view`)).body.messages;
    expect(view.some((m) => m.role === 'tool' && m.content.includes('plan mode'))).toBe(true);
    // Reads still run in plan mode.
    fs.writeFileSync(path.join(run.server.workDir, 'a.txt'), 'readable\n');
    run.send('read: a.txt');
    const after = await run.idle();
    expect(after.filter((e) => e.kind === 'tool_result').at(-1)).toMatchObject({ isError: false, output: expect.stringContaining('readable') });

    // Setting the same mode again changes nothing and logs nothing.
    const modes = (es: SkeinEvent[]) => es.filter((e) => e.kind === 'mode').length;
    expect((await run.setMode('plan')).body.changed).toBe(false);
    expect(modes((await api<{ events: SkeinEvent[] }>(run.server.url, `/api/sessions/${run.id}/events`)).body.events)).toBe(1);
  });

  it('refuses an unknown mode, a bad body, an unknown session and a request without the token, and changes nothing', async () => {
    const run = await start('on-write');
    expect(await run.setMode('yolo')).toEqual({ status: 400, body: { error: 'unknown mode "yolo": "mode" must be one of never, on-write, always, plan' } });
    expect((await run.setMode(undefined)).status).toBe(400);
    expect((await run.setMode('plan', 'no-such-session')).status).toBe(404);
    const anonymous = await fetch(`${run.server.url}/api/sessions/${run.id}/mode`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{"mode":"never"}' });
    expect(anonymous.status).toBe(401);
    const snap = (await api<SessionSnapshot>(run.server.url, `/api/sessions/${run.id}`)).body;
    expect(snap.mode).toBe('on-write');
    expect((await api<{ events: SkeinEvent[] }>(run.server.url, `/api/sessions/${run.id}/events`)).body.events.some((e) => e.kind === 'mode')).toBe(false);
  });

  it('switching to never while bash waits for approval approves it (by the mode) and the turn goes on', async () => {
    const run = await start('on-write');
    run.send('bash: echo ran-after-switch > switched.txt');
    const request = await untilAsked(run.client);
    expect((await run.setMode('never')).status).toBe(200);
    const events = await run.idle();
    expect(decisionOf(events, request.callId)).toMatchObject({ decision: 'approve', by: 'mode', reason: 'the session switched to never mode' });
    expect(fs.readFileSync(path.join(run.server.workDir, 'switched.txt'), 'utf8')).toBe('ran-after-switch\n');
  });

  it('switching to plan while a write waits refuses it; the model gets the plan reason', async () => {
    const run = await start('always');
    run.send('tool: write_file {"path":"w.txt","content":"x"}');
    const request = await untilAsked(run.client);
    expect((await run.setMode('plan')).status).toBe(200);
    const events = await run.idle();
    expect(decisionOf(events, request.callId)).toMatchObject({ decision: 'deny', by: 'mode' });
    expect(resultOf(events, request.callId)?.output).toMatch(/^refused: this session is in plan mode/);
    expect(fs.existsSync(path.join(run.server.workDir, 'w.txt'))).toBe(false);
  });

  it('a switch survives a crash (SIGKILL) and restart; a session that never switched follows the new SKEIN_APPROVAL', async () => {
    const dirs = { SKEIN_DATA_DIR: tempDir('modes-crash'), SKEIN_WORKDIR: tempDir('modes-crash-work'), SKEIN_TOKEN: 'modes-crash-test-token-0123456789abcdef', SKEIN_APPROVAL: 'never' };
    const headers = { authorization: `Bearer ${dirs.SKEIN_TOKEN}` };
    // On PostgreSQL (npm run test:postgres) the child server uses the data folder's database, as the restarted one does.
    const first = await startChildServer({ ...dirs, ...(await storeEnv(dirs.SKEIN_DATA_DIR)) });
    let planned = '';
    let untouched = '';
    try {
      planned = (await api<{ id: string }>(first.url, '/api/sessions', { body: {}, headers })).body.id;
      untouched = (await api<{ id: string }>(first.url, '/api/sessions', { body: {}, headers })).body.id;
      const put = await api<SessionSnapshot>(first.url, `/api/sessions/${planned}/mode`, { method: 'PUT', body: { mode: 'plan' }, headers });
      expect(put.body.mode).toBe('plan');
      expect((await listed(first.url, untouched, headers))?.mode).toBe('never');
    } finally {
      await first.kill('SIGKILL');
    }
    const again = await startTestServer({ SKEIN_APPROVAL: 'always', SKEIN_TOKEN: dirs.SKEIN_TOKEN }, { dataDir: dirs.SKEIN_DATA_DIR, workDir: dirs.SKEIN_WORKDIR });
    servers.push(again);
    // Listed from the index (JSONL) or the summaries table (PostgreSQL): the session is not loaded for it.
    expect(again.sessions.isLoaded(planned)).toBe(false);
    expect((await listed(again.url, planned))?.mode).toBe('plan');
    expect(again.sessions.isLoaded(planned)).toBe(false);
    expect((await listed(again.url, untouched))?.mode).toBe('always');
    expect((await api<SessionSnapshot>(again.url, `/api/sessions/${planned}`)).body.mode).toBe('plan');
    const client = await TestClient.connect(again.url, planned);
    clients.push(client);
    client.send({ type: 'user_message', text: 'bash: echo nope > crash.txt' });
    const events = await client.untilIdle(1, 30_000);
    // Still in plan mode (SKEIN_APPROVAL=always would have asked): bash ran read-only, without asking, and its write failed.
    expect(events.filter((e) => e.kind === 'approval_request')).toEqual([]);
    expect(events.filter((e) => e.kind === 'tool_result').at(-1)).toMatchObject({ isError: true, output: expect.stringMatching(/Read-only file system/) });
    expect(fs.existsSync(path.join(dirs.SKEIN_WORKDIR, 'crash.txt'))).toBe(false);
  }, 90_000);
});
