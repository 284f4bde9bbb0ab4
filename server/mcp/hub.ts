// Every MCP server of this skein: started together at start (skein waits for
// each first attempt, bounded by SKEIN_MCP_START_TIMEOUT_MS, so a new
// session sees the tools of every server that came up), their tools as skein
// tools, and their state for GET /api/mcp and the timeline.
import type { McpServerInfo } from '../../shared/protocol.js';
import type { Tool, ToolResult } from '../tools/tool.js';
import type { McpServerConfig } from './config.js';
import { failed, McpConnection, type ConnectionOptions, type ListedTool, type StateChange } from './connection.js';
import { parseMcpToolName } from './schema.js';

export class McpHub {
  private readonly connections = new Map<string, McpConnection>();
  private readonly stateListeners = new Set<(change: StateChange) => void>();
  /** One Tool object per name, so that a session's fixed list and the live list hold the same objects. */
  private readonly toolObjects = new Map<string, Tool>();

  constructor(
    servers: ReadonlyMap<string, McpServerConfig>,
    private readonly options: ConnectionOptions,
  ) {
    for (const [name, config] of servers) {
      this.connections.set(name, new McpConnection(name, config, options, (change) => this.emit(change)));
    }
  }

  /** Starts every server; resolves once each has become ready or failed its first attempt. */
  async start(): Promise<void> {
    await Promise.all([...this.connections.values()].map((c) => c.connect()));
  }

  /** Adds servers while skein runs (a project file the user just trusted); resolves after each one's first attempt. */
  async add(servers: ReadonlyMap<string, McpServerConfig>): Promise<void> {
    const added: McpConnection[] = [];
    for (const [name, config] of servers) {
      if (this.connections.has(name)) continue;
      const connection = new McpConnection(name, config, this.options, (change) => this.emit(change));
      this.connections.set(name, connection);
      added.push(connection);
    }
    await Promise.all(added.map((c) => c.connect()));
  }

  /** Stops and forgets these servers (trust revoked): their tools vanish, which sessions are told. */
  async remove(names: Iterable<string>): Promise<void> {
    const gone: McpConnection[] = [];
    for (const name of names) {
      const connection = this.connections.get(name);
      if (!connection) continue;
      this.connections.delete(name);
      gone.push(connection);
    }
    await Promise.all(gone.map((c) => c.close()));
  }

  get size(): number {
    return this.connections.size;
  }

  onStateChange(listener: (change: StateChange) => void): () => void {
    this.stateListeners.add(listener);
    return () => this.stateListeners.delete(listener);
  }

  /** The tools the model may use now: those of ready servers, minus skipped ones. */
  tools(): Tool[] {
    const out: Tool[] = [];
    for (const connection of this.connections.values()) {
      if (connection.state !== 'ready') continue;
      for (const listed of connection.tools) if (!listed.skipped) out.push(this.toolObject(listed));
    }
    return out;
  }

  list(): McpServerInfo[] {
    return [...this.connections.values()].map((c) => ({
      name: c.name,
      transport: c.config.type,
      state: c.state,
      ...(c.state === 'failed' && c.error && { error: c.error }),
      restarts: c.restarts,
      ...(c.state === 'failed' && c.retryAt && { nextAttemptAt: new Date(c.retryAt).toISOString() }),
      tools: c.tools.map(({ name, description, skipped }) => ({ name, description, ...(skipped && { skipped }) })),
    }));
  }

  /** Each server's state now, as its last state change said it (a new session's timeline starts with these). */
  states(): StateChange[] {
    return [...this.connections.values()].map((c) => ({
      server: c.name,
      state: c.state,
      message: c.message,
      ...(c.state === 'failed' && c.retryAt && { retryInMs: Math.max(0, c.retryAt - Date.now()) }),
    }));
  }

  /** Process ids of the stdio servers running now (tests check they are gone after shutdown). */
  pids(): number[] {
    return [...this.connections.values()].flatMap((c) => (c.pid !== undefined && c.state !== 'stopped' ? [c.pid] : []));
  }

  /** Calls `mcp__server__tool`; a tool that vanished (or a server that is down) answers with an error saying so. */
  async call(name: string, input: Record<string, unknown>, signal: AbortSignal): Promise<ToolResult> {
    const parsed = parseMcpToolName(name);
    const connection = parsed && this.connections.get(parsed.server);
    if (!parsed || !connection) return failed(name, 'no MCP server of that name is configured');
    const listed = connection.tools.find((t) => t.name === name);
    if (!listed || connection.state !== 'ready') {
      const why = connection.state === 'ready' ? `the server "${parsed.server}" no longer offers it` : `the server "${parsed.server}" is ${connection.describeState()}`;
      return failed(name, `not available now: ${why}`);
    }
    if (listed.skipped) return failed(name, `not offered: ${listed.skipped}`);
    return connection.call(listed, input, signal);
  }

  async close(): Promise<void> {
    await Promise.all([...this.connections.values()].map((c) => c.close()));
  }

  private toolObject(listed: ListedTool): Tool {
    const known = this.toolObjects.get(listed.name);
    // A server may change a tool's description or schema (tools/list_changed): the newest wins for new sessions.
    if (known && known.spec.description === listed.description && JSON.stringify(known.spec.inputSchema) === JSON.stringify(listed.inputSchema)) return known;
    const tool: Tool = {
      spec: { name: listed.name, description: listed.description, inputSchema: listed.inputSchema },
      run: (input, ctx) => this.call(listed.name, input, ctx.signal),
    };
    this.toolObjects.set(listed.name, tool);
    return tool;
  }

  private emit(change: StateChange): void {
    for (const listener of this.stateListeners) {
      try {
        listener(change);
      } catch (err) {
        console.error(`[skein] mcp ${change.server}: ${String(err)}`);
      }
    }
  }
}
