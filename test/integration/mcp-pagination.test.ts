// A hang is a failure: tools/list pagination follows the server's nextCursor,
// and a server that never stops handing out cursors must not keep skein
// asking for ever. Real MCP SDK servers (low-level Server over streamable
// HTTP) serve the pages; skein's McpConnection reads them.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ListToolsRequestSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_TOOL_PAGES, McpConnection, type StateChange } from '../../server/mcp/connection.js';
import { serveStatelessMcp } from '../helpers/mcp.js';
import { until } from '../helpers/until.js';

type Pager = (cursor: string | undefined) => { tools: Tool[]; nextCursor?: string };

const tool = (name: string): Tool => ({ name, description: name, inputSchema: { type: 'object', properties: {} } });

interface PagedServer {
  url: string;
  /** The cursors of the tools/list requests, in order (undefined: the first page). */
  asked: (string | undefined)[];
  close(): Promise<void>;
}

async function pagedServer(pager: Pager): Promise<PagedServer> {
  const asked: (string | undefined)[] = [];
  const served = await serveStatelessMcp(() => {
    const mcp = new Server({ name: 'pager', version: '1.0.0' }, { capabilities: { tools: {} } });
    mcp.setRequestHandler(ListToolsRequestSchema, (request) => {
      asked.push(request.params?.cursor);
      return pager(request.params?.cursor);
    });
    return mcp;
  });
  return { ...served, asked };
}

const open: { server: PagedServer; connection: McpConnection }[] = [];
afterEach(async () => {
  for (const { server, connection } of open.splice(0)) {
    await connection.close();
    await server.close();
  }
});

async function connectTo(pager: Pager): Promise<{ server: PagedServer; connection: McpConnection; changes: StateChange[] }> {
  const server = await pagedServer(pager);
  const changes: StateChange[] = [];
  // A long back-off: the test sees the first attempt only.
  const connection = new McpConnection('pager', { type: 'http', url: server.url, headers: {} }, { workDir: process.cwd(), callTimeoutMs: 5000, startTimeoutMs: 5000, backoffMs: 600_000 }, (c) => changes.push(c));
  open.push({ server, connection });
  await connection.connect();
  return { server, connection, changes };
}

describe('MCP tools/list pagination is bounded', () => {
  it('follows nextCursor over several pages and lists every tool', async () => {
    const pages: Record<string, { tools: Tool[]; nextCursor?: string }> = {
      '': { tools: [tool('a'), tool('b')], nextCursor: 'p2' },
      p2: { tools: [tool('c')], nextCursor: 'p3' },
      p3: { tools: [tool('d')] },
    };
    const { server, connection } = await connectTo((cursor) => pages[cursor ?? '']!);
    expect(connection.state).toBe('ready');
    expect(connection.tools.map((t) => t.original)).toEqual(['a', 'b', 'c', 'd']);
    expect(server.asked).toEqual([undefined, 'p2', 'p3']);
  });

  it('a server that sends the same cursor for ever fails to start with a clear reason instead of being asked again and again', async () => {
    const { server, connection, changes } = await connectTo(() => ({ tools: [], nextCursor: 'again' }));
    await until(() => connection.state === 'failed', 'the connection to fail');
    expect(connection.error).toMatch(/tools\/list sent the cursor "again" a second time/);
    expect(changes.at(-1)).toMatchObject({ state: 'failed' });
    // The first page and the page of "again"; the repeated "again" ends it.
    expect(server.asked).toEqual([undefined, 'again']);
  });

  it('a server that sends a new cursor with every empty page is asked at most MAX_TOOL_PAGES times', async () => {
    let n = 0;
    const { server, connection } = await connectTo(() => ({ tools: [], nextCursor: `c${++n}` }));
    await until(() => connection.state === 'failed', 'the connection to fail');
    expect(connection.error).toMatch(new RegExp(`did not end after ${MAX_TOOL_PAGES} pages`));
    expect(server.asked).toHaveLength(MAX_TOOL_PAGES);
  });

  it('a cursor that comes back after other pages counts as repeated too', async () => {
    const next: Record<string, string> = { '': 'x', x: 'y', y: 'x' };
    const { server, connection } = await connectTo((cursor) => ({ tools: [tool(`t${cursor ?? ''}`)], nextCursor: next[cursor ?? ''] }));
    await until(() => connection.state === 'failed', 'the connection to fail');
    expect(connection.error).toMatch(/cursor "x" a second time/);
    expect(server.asked).toEqual([undefined, 'x', 'y']);
  });
});
