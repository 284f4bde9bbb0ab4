// A project `.mcp.json` that is not trusted runs nothing; an editor opening a
// session there through `skein acp` (beside a running server, the official
// ACP SDK as the client) is told once per session which servers did not start
// and how to trust the file, and nothing from it runs. Once trusted, a new
// session is not told.
import fs from 'node:fs';
import path from 'node:path';
import { PROTOCOL_VERSION } from '@agentclientprotocol/sdk';
import { afterEach, describe, expect, it } from 'vitest';
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

type Hint = { untrustedProjectFiles: { path: string; folder: string; status: string; sha256: string; servers: string[] }[] };
const hintsOf = (run: AcpRun, id: string): Hint[] =>
  updatesOf(run, id, 'agent_message_chunk')
    .map((u) => (u as { _meta?: { skein?: Hint } })._meta?.skein)
    .filter((h): h is Hint => h?.untrustedProjectFiles !== undefined);

describe('skein acp: an untrusted project .mcp.json', () => {
  it('is said once per session with the servers skipped and how to trust it; nothing runs; once trusted, nothing is said', SLOW, async () => {
    const work = tempDir('acp-trust-work');
    const probe = { command: process.execPath, args: ['-e', "require('fs').writeFileSync('ran.txt', 'x')"] };
    fs.writeFileSync(path.join(work, '.mcp.json'), JSON.stringify({ mcpServers: { probe, 'repo-docs': { type: 'http', url: 'http://127.0.0.1:9/mcp' } } }));
    const server = await startTestServer({}, { workDir: work });
    servers.push(server);
    const run = startAcp({ SKEIN_TOKEN: server.token!, SKEIN_DATA_DIR: tempDir('acp-unused') }, ['--server', server.url]);
    runs.push(run);
    await run.connection.agent.request('initialize', { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
    const { sessionId: id } = await run.connection.agent.request('session/new', { cwd: work, mcpServers: [] });

    await until(() => hintsOf(run, id).length === 1, 'the hint');
    const [hint] = hintsOf(run, id);
    expect(hint!.untrustedProjectFiles).toMatchObject([{ path: path.join(fs.realpathSync(work), '.mcp.json'), status: 'untrusted', servers: ['probe', 'repo-docs'] }]);
    const text = agentText(run, id);
    expect(text).toContain('is not trusted');
    expect(text).toContain('`probe`, `repo-docs` did not start');
    expect(text).toContain(`skein trust ${fs.realpathSync(work)}`);
    expect(text).toContain(`web UI (${server.url})`);

    // Once per session: loading it again in this editor says nothing more; the turn goes on; nothing ran.
    await run.connection.agent.request('session/load', { sessionId: id, cwd: work, mcpServers: [] });
    expect((await run.connection.agent.request('session/prompt', { sessionId: id, prompt: [{ type: 'text', text: 'echo: fine' }] })).stopReason).toBe('end_turn');
    expect(hintsOf(run, id)).toHaveLength(1);
    expect(fs.existsSync(path.join(work, 'ran.txt'))).toBe(false);

    // Trusted (as the web UI does it): a new session is not told.
    expect((await api(server.url, '/api/trust', { method: 'POST', body: { folder: hint!.untrustedProjectFiles[0]!.folder, hash: hint!.untrustedProjectFiles[0]!.sha256, decision: 'trust' } })).status).toBe(200);
    const { sessionId: after } = await run.connection.agent.request('session/new', { cwd: work, mcpServers: [] });
    expect((await run.connection.agent.request('session/prompt', { sessionId: after, prompt: [{ type: 'text', text: 'echo: trusted now' }] })).stopReason).toBe('end_turn');
    expect(agentText(run, after)).toContain('trusted now');
    expect(hintsOf(run, after)).toEqual([]);
  });
});
