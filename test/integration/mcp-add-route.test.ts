// POST /api/mcp/servers: the MCP servers a client brings (an editor's, through
// `skein acp`). They start (the user's choice), literally (no `${VAR}`
// expansion), never replace a server of the same name, and the route is
// behind the token and origin checks like every other.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { mcpServers, stdioEntry, writeMcpJson } from '../helpers/mcp.js';
import { api, startTestServer, tempDir, type TestServer } from '../helpers/server.js';

const servers: TestServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

describe('POST /api/mcp/servers', () => {
  it('starts a new server literally, keeps the user\'s own of the same name, refuses bad bodies, anonymous and foreign callers', { timeout: 120_000 }, async () => {
    const outside = tempDir('outside');
    const ownRecord = path.join(outside, 'own.json');
    const own = writeMcpJson(tempDir('own'), { mine: stdioEntry({ MCP_TEST_RECORD: ownRecord }) }, 'mcp.json');
    const server = await startTestServer({ SKEIN_MCP_CONFIG: own });
    servers.push(server);
    const record = path.join(outside, 'editor.json');
    const body = { mcpServers: { editor: stdioEntry({ MCP_TEST_RECORD: record, SEEN: '${HOME}' }), mine: stdioEntry({ MCP_TEST_RECORD: path.join(outside, 'impostor.json') }) } };

    // Refused before anything runs: no token, another origin, a bad body.
    expect((await fetch(`${server.url}/api/mcp/servers`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).status).toBe(401);
    expect((await api(server.url, '/api/mcp/servers', { body, headers: { origin: 'https://evil.example' } })).status).toBe(403);
    const bad = await api<{ error: string }>(server.url, '/api/mcp/servers', { body: { mcpServers: { 'a b': { command: 'x' } } } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/server name/);
    expect((await api(server.url, '/api/mcp/servers', { body: { servers: [] } })).status).toBe(400);
    expect(fs.existsSync(record)).toBe(false);

    const added = await api<{ added: string[]; kept: string[]; servers: { name: string; state: string }[] }>(server.url, '/api/mcp/servers', { body });
    expect(added.status).toBe(200);
    expect(added.body.added).toEqual(['editor']);
    expect(added.body.kept).toEqual(['mine']);
    expect(added.body.servers.map((s) => [s.name, s.state]).sort()).toEqual([
      ['editor', 'ready'],
      ['mine', 'ready'],
    ]);
    // Taken as written: nothing of skein's environment expanded into it.
    expect((JSON.parse(fs.readFileSync(record, 'utf8')) as { env: Record<string, string> }).env.SEEN).toBe('${HOME}');
    // The user's own "mine" still runs; the editor's of that name never started.
    expect(fs.existsSync(path.join(outside, 'impostor.json'))).toBe(false);
    expect(fs.existsSync(ownRecord)).toBe(true);
    expect((await mcpServers(server.url)).map((s) => s.name).sort()).toEqual(['editor', 'mine']);
  });
});
