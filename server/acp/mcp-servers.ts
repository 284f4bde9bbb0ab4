// The MCP servers an editor gives with session/new or session/load, in
// skein's SKEIN_MCP_CONFIG shape for POST /api/mcp/servers. skein names tools
// mcp__<server>__<tool>, so a name is made to fit (letters, digits, _ and -,
// no "__", at most 40). SSE servers are not supported by skein: skipped, and
// said on stderr.
import type { McpServer } from '@agentclientprotocol/sdk';

export interface McpConfigBody {
  mcpServers: Record<string, Record<string, unknown>>;
}

export function serverName(name: string): string {
  const cleaned = name
    .replace(/[^A-Za-z0-9_-]+/g, '-')
    .replace(/_{2,}/g, '_')
    .replace(/^[_-]+|[_-]+$/g, '')
    .slice(0, 40)
    .replace(/_+$/, '');
  return cleaned || 'editor';
}

export function mcpConfigOf(servers: readonly McpServer[], warn: (message: string) => void): McpConfigBody | undefined {
  const out: McpConfigBody['mcpServers'] = {};
  for (const server of servers) {
    const name = serverName(server.name);
    if (name in out) {
      warn(`MCP server "${server.name}": another server of the editor's has the name ${name}; skipped`);
      continue;
    }
    if ('type' in server && server.type === 'sse') {
      warn(`MCP server "${server.name}": skein does not support the SSE transport (use stdio or http); skipped`);
      continue;
    }
    if ('type' in server && server.type === 'http') {
      out[name] = { type: 'http', url: server.url, headers: Object.fromEntries(server.headers.map((h) => [h.name, h.value])) };
      continue;
    }
    const stdio = server as Extract<McpServer, { command: string }>;
    out[name] = { command: stdio.command, args: stdio.args, env: Object.fromEntries(stdio.env.map((e) => [e.name, e.value])) };
  }
  return Object.keys(out).length ? { mcpServers: out } : undefined;
}
