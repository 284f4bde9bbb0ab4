// An editor configured with SKEIN_APPROVAL=on-write (docs/editors.md) runs
// `skein acp` beside a running server started with `never`: its sessions
// (new and loaded) are in on-write, read back from the server, the editor is
// told with `current_mode_update`, and a write asks for permission. A setting
// the server cannot honour (SKEIN_SANDBOX) stops `skein acp` with its exit
// status. The official ACP SDK is the client.
import fs from 'node:fs';
import path from 'node:path';
import { PROTOCOL_VERSION } from '@agentclientprotocol/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionSnapshot } from '../../shared/protocol.js';
import { EXIT } from '../../server/cli/exit-codes.js';
import { api, startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';
import { startAcp, updatesOf, type AcpRun } from './acp-client.js';

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

  it('a sandbox the running server was started without: skein acp exits with the refusal, naming the variable and the server value', SLOW, async () => {
    const server = await startTestServer({}, { dataDir: tempDir('acp-settings-data') });
    servers.push(server);
    const run = startAcp({ SKEIN_DATA_DIR: server.dataDir, SKEIN_WORKDIR: server.workDir, SKEIN_SANDBOX: 'workspace' });
    runs.push(run);
    expect(await run.exited).toBe(EXIT.settingRefused);
    expect(run.stderr()).toContain('SKEIN_SANDBOX=workspace: the running server has SKEIN_SANDBOX=off');
  });
});
