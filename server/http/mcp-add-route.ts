// POST /api/mcp/servers {"mcpServers": {NAME: {...}}}: MCP servers a client
// brings (an editor's, through `skein acp`), in SKEIN_MCP_CONFIG's shape. They
// are the user's own choice (the client holds the token and runs them for the
// user), so they start without a trust prompt, but their text is taken
// literally: no `${VAR}` is expanded from skein's environment. A name the hub
// already has keeps its server (the user's SKEIN_MCP_CONFIG wins). Answers
// once each new server has become ready or failed its first attempt, so a
// session created next starts with their tools. 400 for a bad body.
import type express from 'express';
import { McpConfigError, parseMcpConfig } from '../mcp/config.js';
import type { Sessions } from '../sessions/sessions.js';

export function addMcpServersRoute(app: express.Express, sessions: Sessions): void {
  app.post('/api/mcp/servers', async (req, res) => {
    const hub = sessions.mcp;
    if (!hub) return void res.status(404).json({ error: 'this skein runs no MCP hub' });
    let servers;
    try {
      servers = parseMcpConfig(JSON.stringify(req.body ?? {}), null);
    } catch (err) {
      if (err instanceof McpConfigError) return void res.status(400).json({ error: err.message });
      throw err;
    }
    const known = new Set(hub.list().map((s) => s.name));
    await hub.add(servers);
    const added = [...servers.keys()].filter((name) => !known.has(name));
    res.json({ added, kept: [...servers.keys()].filter((name) => known.has(name)), servers: hub.list().filter((s) => servers.has(s.name)) });
  });
}
