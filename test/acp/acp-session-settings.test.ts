// An editor configured with SKEIN_APPROVAL=on-write (docs/editors.md) runs
// `skein acp` beside a running server started with `never`: its sessions
// (new and loaded) are in on-write, read back from the server, the editor is
// told with `current_mode_update`, and a write asks for permission; a session
// /clear starts is switched too. A setting the server cannot honour
// (SKEIN_SANDBOX) does not stop `skein acp` before `initialize` (the editor
// would only see a crash): session/new and session/load fail with the
// refusal, and nothing reaches the server. The official ACP SDK is the client.
import fs from 'node:fs';
import path from 'node:path';
import { PROTOCOL_VERSION } from '@agentclientprotocol/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionSnapshot } from '../../shared/protocol.js';
import { EXIT } from '../../server/cli/exit-codes.js';
import { api, startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';
import { agentText, startAcp, updatesOf, type AcpRun } from './acp-client.js';

const SLOW = { timeout: 300_000 };
const runs: AcpRun[] = [];
const servers: TestServer[] = [];
afterEach(async () => {
  for (const run of runs.splice(0)) await run.close();
  for (const server of servers.splice(0)) await server.close();
});

describe('skein acp beside a running server: SKEIN_APPROVAL from the editor', () => {
  it('on-write against a never-server: the session is in on-write, the editor gets current_mode_update, a write asks', SLOW, async () => {
    const server = await startTestServer({ SKEIN_APPROVAL: 'never' }, { dataDir: tempDir('acp-settings-data') });
    servers.push(server);
    const run = startAcp({ SKEIN_DATA_DIR: server.dataDir, SKEIN_WORKDIR: server.workDir, SKEIN_APPROVAL: 'on-write' });
    runs.push(run);
    await run.connection.agent.request('initialize', { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
    const created = await run.connection.agent.request('session/new', { cwd: server.workDir, mcpServers: [] });
    const id = created.sessionId;
    expect(created.modes?.currentModeId).toBe('on-write');
    expect((await api<SessionSnapshot>(server.url, `/api/sessions/${id}`)).body.mode).toBe('on-write');
    const modeUpdates = () => updatesOf(run, id, 'current_mode_update').map((u) => (u as { currentModeId: string }).currentModeId);
    await until(() => modeUpdates().includes('on-write'), 'current_mode_update on-write');

    run.answerPermission = async (request) => ({ outcome: { outcome: 'selected', optionId: request.options.find((o) => o.kind === 'reject_once')!.optionId } });
    const answer = await run.connection.agent.request('session/prompt', { sessionId: id, prompt: [{ type: 'text', text: 'tool: write_file {"path":"w.txt","content":"x"}' }] });
    expect(answer.stopReason).toBe('end_turn');
    expect(run.permissions).toHaveLength(1);
    expect(fs.existsSync(path.join(server.workDir, 'w.txt'))).toBe(false);

    // A session of the server's mode, loaded by the editor, is switched too and said so.
    const other = (await api<{ id: string }>(server.url, '/api/sessions', { body: {} })).body.id;
    const loaded = await run.connection.agent.request('session/load', { sessionId: other, cwd: server.workDir, mcpServers: [] });
    expect(loaded.modes?.currentModeId).toBe('on-write');
    expect((await api<SessionSnapshot>(server.url, `/api/sessions/${other}`)).body.mode).toBe('on-write');
    await until(() => updatesOf(run, other, 'current_mode_update').length > 0, 'current_mode_update on load');
  });

  it('/clear: the new session gets the asked-for mode at once (not the server\'s), and the editor a current_mode_update when it opens it', SLOW, async () => {
    const server = await startTestServer({ SKEIN_APPROVAL: 'never' }, { dataDir: tempDir('acp-settings-data') });
    servers.push(server);
    const run = startAcp({ SKEIN_DATA_DIR: server.dataDir, SKEIN_WORKDIR: server.workDir, SKEIN_APPROVAL: 'on-write' });
    runs.push(run);
    await run.connection.agent.request('initialize', { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
    const { sessionId: id } = await run.connection.agent.request('session/new', { cwd: server.workDir, mcpServers: [] });
    const answer = await run.connection.agent.request('session/prompt', { sessionId: id, prompt: [{ type: 'text', text: '/clear' }] });
    expect(answer.stopReason).toBe('end_turn');
    const cleared = updatesOf(run, id, 'agent_message_chunk')
      .map((u) => (u as { _meta?: { skein?: { sessionId?: string } } })._meta?.skein?.sessionId)
      .find((s): s is string => Boolean(s));
    expect(cleared).toBeDefined();
    // Before the editor opens it (the web UI may): already in on-write, never the server's mode.
    expect((await api<SessionSnapshot>(server.url, `/api/sessions/${cleared}`)).body.mode).toBe('on-write');
    expect(agentText(run, id)).toContain('on-write');
    const loaded = await run.connection.agent.request('session/load', { sessionId: cleared!, cwd: server.workDir, mcpServers: [] });
    expect(loaded.modes?.currentModeId).toBe('on-write');
    await until(() => updatesOf(run, cleared!, 'current_mode_update').some((u) => (u as { currentModeId: string }).currentModeId === 'on-write'), 'current_mode_update on-write for the cleared session');
  });
});

describe('skein acp beside a running server: a sandbox setting the server was started without', () => {
  it('initialize is answered; session/new and session/load fail with the refusal (variable, server value, nothing sent); no session is made; stderr says it too', SLOW, async () => {
    const server = await startTestServer({}, { dataDir: tempDir('acp-settings-data') });
    servers.push(server);
    const existing = (await api<{ id: string }>(server.url, '/api/sessions', { body: {} })).body.id;
    const listed = async () => (await api<{ sessions: { id: string }[] }>(server.url, '/api/sessions')).body.sessions.map((s) => s.id).sort();
    const before = await listed();
    const run = startAcp({ SKEIN_DATA_DIR: server.dataDir, SKEIN_WORKDIR: server.workDir, SKEIN_SANDBOX: 'workspace' });
    runs.push(run);
    const init = await run.connection.agent.request('initialize', { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
    expect(init.protocolVersion).toBe(PROTOCOL_VERSION);

    const refusal = 'SKEIN_SANDBOX=workspace: the running server has SKEIN_SANDBOX=off, which applies to every session and cannot change for one';
    const newError = await run.connection.agent
      .request('session/new', { cwd: server.workDir, mcpServers: [{ name: 'editor-files', command: 'node', args: ['-e', ''], env: [] }] })
      .then(() => undefined, (err: unknown) => err as { code?: number; message?: string });
    expect(newError, 'session/new must fail').toBeDefined();
    expect(newError!.message).toContain(refusal);
    expect(newError!.message).toContain('Nothing was sent');
    expect(newError!.message).not.toMatch(/^Internal error/);

    const loadError = await run.connection.agent
      .request('session/load', { sessionId: existing, cwd: server.workDir, mcpServers: [] })
      .then(() => undefined, (err: unknown) => err as { code?: number; message?: string });
    expect(loadError, 'session/load must fail').toBeDefined();
    expect(loadError!.message).toContain(refusal);

    // Nothing reached the server: no new session, the editor's MCP server not added, the loaded one untouched.
    expect(await listed()).toEqual(before);
    const mcp = await api<unknown>(server.url, '/api/mcp');
    expect(JSON.stringify(mcp.body)).not.toContain('editor-files');
    expect(updatesOf(run, existing)).toEqual([]);
    // The agent still runs (the editor shows the error, not a crash), and stderr has the line.
    expect(run.child.exitCode).toBeNull();
    expect(run.stderr()).toContain(`skein: ${refusal}`);
    expect(await run.close()).toBe(EXIT.settingRefused);
  });
});
