// MCP test servers: the stdio one as a child of skein (configured by a
// trusted .mcp.json), the HTTP one in this process (streamable HTTP, stateless).
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Server as McpSdkServer } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { McpServerInfo } from '../../shared/protocol.js';
import { testServer } from '../fixtures/mcp/tools.js';
import { TrustStore } from '../../server/trust/store.js';
import { api } from './server.js';

const STDIO_SERVER = path.resolve('test/fixtures/mcp/stdio-server.ts');
// The server runs in skein's working folder (a temp folder): tsx is named by its path.
const TSX = pathToFileURL(path.resolve('node_modules/tsx/dist/loader.mjs')).href;

/** A .mcp.json entry that starts the stdio test server. */
export function stdioEntry(env: Record<string, string> = {}): Record<string, unknown> {
  return { command: process.execPath, args: ['--import', TSX, STDIO_SERVER], env };
}

export function writeMcpJson(dir: string, servers: Record<string, unknown>, file = '.mcp.json'): string {
  const at = path.join(dir, file);
  fs.writeFileSync(at, JSON.stringify({ mcpServers: servers }, null, 2));
  return at;
}

/**
 * Writes <dir>/.mcp.json and records the user's trust in its exact content in
 * <dataDir>/trust.json, as `skein trust --yes` would: a project's file starts
 * nothing until trusted.
 */
export function writeTrustedMcpJson(dataDir: string, dir: string, servers: Record<string, unknown>): string {
  const at = writeMcpJson(dir, servers);
  new TrustStore(dataDir).decide(dir, '.mcp.json', fs.readFileSync(at, 'utf8'), 'trusted');
  return at;
}

export interface HttpMcpServer {
  url: string;
  /** Requests seen, with their headers. */
  headers: http.IncomingHttpHeaders[];
  close(): Promise<void>;
}

/**
 * A stateless streamable-HTTP MCP endpoint at /mcp: a server made by `make`
 * and a transport per request, as the SDK documents for servers without
 * sessions. `seen` is told every request's headers.
 */
export async function serveStatelessMcp(make: (server: http.Server) => McpSdkServer, seen?: (headers: http.IncomingHttpHeaders) => void): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer(async (req, res) => {
    seen?.(req.headers);
    if (req.url !== '/mcp') return void res.writeHead(404).end();
    if (req.method !== 'POST') return void res.writeHead(405, { allow: 'POST' }).end();
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const mcp = make(server);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void mcp.close();
    });
    await mcp.connect(transport);
    await transport.handleRequest(req, res, JSON.parse(Buffer.concat(chunks).toString('utf8')));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The test tools over streamable HTTP; `crash` resets every connection (the call in flight dies with it). */
export async function startHttpMcpServer(): Promise<HttpMcpServer> {
  const headers: http.IncomingHttpHeaders[] = [];
  const served = await serveStatelessMcp((server) => testServer(() => server.closeAllConnections()), (h) => headers.push(h));
  return { ...served, headers };
}

export async function mcpServers(base: string): Promise<McpServerInfo[]> {
  const { status, body } = await api<{ servers: McpServerInfo[] }>(base, '/api/mcp');
  if (status !== 200) throw new Error(`GET /api/mcp: ${status}`);
  return body.servers;
}
