// One MCP server: connects (stdio child or streamable HTTP), lists its tools,
// follows tools/list_changed, calls tools with a per-call timeout, and when
// it fails to start, crashes or times out reports it and starts it again
// after a growing pause. Nothing here throws at its callers: a broken server
// only ever produces error results and state changes.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { DEFAULT_INHERITED_ENV_VARS, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { McpServerState, McpToolInfo } from '../../shared/protocol.js';
import { newRunId, RUN_MARKER, watchMarkedProcesses } from '../tools/processes.js';
import { toolEnvironment } from '../tools/env.js';
import { sandboxCommand, type SandboxSettings } from '../tools/sandbox.js';
import type { ToolResult } from '../tools/tool.js';
import type { McpServerConfig } from './config.js';
import { toolResultText } from './result-text.js';
import { checkInputSchema, mcpToolName, TOOL_NAME } from './schema.js';

export interface ConnectionOptions {
  workDir: string;
  callTimeoutMs: number;
  startTimeoutMs: number;
  /** SKEIN_SANDBOX=workspace: stdio servers run under bubblewrap with these settings. */
  sandbox?: SandboxSettings;
  /** First pause before a restart; it doubles up to maxBackoffMs and resets once the server is ready. */
  backoffMs?: number;
  maxBackoffMs?: number;
}

export interface StateChange {
  server: string;
  state: McpServerState;
  message: string;
  retryInMs?: number;
}

/** A tool as the model sees it (name mcp__server__tool) and the server's own name for it. */
export interface ListedTool extends McpToolInfo {
  /** The server's own name of the tool. */
  original: string;
  inputSchema: Record<string, unknown>;
}

const STDERR_TAIL = 2000;
/** Bounds on one tools/list: more pages or tools than any real server lists. */
export const MAX_TOOL_PAGES = 100;
const MAX_TOOLS = 10_000;

const LOOSE_TOOL_LIST = z.looseObject({ tools: z.array(z.unknown()), nextCursor: z.string().optional() });
interface RawTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema?: unknown;
}

export class McpConnection {
  state: McpServerState = 'starting';
  error: string | undefined;
  tools: ListedTool[] = [];
  restarts = 0;
  retryAt: number | undefined;
  pid: number | undefined;
  /** What the last state change said (e.g. "ready: 8 tools; skipped broken (...)"). */
  message = 'starting';
  private client: Client | undefined;
  private attempt = 0;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private stderr = '';
  /** Bumped on every (re)connect: callbacks of an older client are ignored. */
  private generation = 0;

  constructor(
    readonly name: string,
    readonly config: McpServerConfig,
    private readonly options: ConnectionOptions,
    private readonly changed: (change: StateChange) => void,
  ) {}

  /** Connects once; resolves when ready or failed (a failure schedules the next attempt). */
  async connect(): Promise<void> {
    if (this.stopped) return;
    const generation = ++this.generation;
    this.set('starting', this.restarts ? `restarting (attempt ${this.restarts + 1})` : 'starting');
    const client = new Client({ name: 'skein', version: '0.1.0' }, { capabilities: {} });
    this.client = client;
    try {
      const transport = this.transport();
      client.onclose = () => {
        if (generation === this.generation && !this.stopped) this.fail(this.state === 'ready' ? `the server went away${this.stderrTail()}` : `closed while starting${this.stderrTail()}`);
      };
      client.onerror = () => {
        /* transport hiccups surface as a failed call or a close */
      };
      await client.connect(transport, { timeout: this.options.startTimeoutMs });
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        if (generation === this.generation) void this.refreshTools(client, generation);
      });
      const tools = await this.listTools(client);
      if (generation !== this.generation || this.stopped) return;
      this.tools = tools;
      this.attempt = 0;
      this.error = undefined;
      const usable = tools.filter((t) => !t.skipped).length;
      this.set('ready', `ready: ${usable} tool${usable === 1 ? '' : 's'}${skippedNote(tools)}`);
    } catch (err) {
      if (generation === this.generation && !this.stopped) this.fail(`failed to start: ${describe(err, this.options.startTimeoutMs)}${this.stderrTail()}`);
    }
  }

  /** Calls one of the server's tools; every failure becomes an error result. */
  async call(tool: ListedTool, input: Record<string, unknown>, signal: AbortSignal): Promise<ToolResult> {
    const client = this.client;
    if (this.state !== 'ready' || !client) return failed(tool.name, `the MCP server "${this.name}" is not ready (${this.describeState()})`);
    const generation = this.generation;
    try {
      const result = await client.callTool({ name: tool.original, arguments: input }, undefined, { timeout: this.options.callTimeoutMs, signal });
      const text = toolResultText(result);
      // An error's first line names the tool, as built-in tools' do: the ledger and the clearing placeholder read it.
      return result.isError === true ? failed(tool.name, text) : { output: text, isError: false };
    } catch (err) {
      if (signal.aborted) return { output: 'cancelled by the user', isError: true };
      if (err instanceof McpError && err.code === ErrorCode.RequestTimeout) {
        // A server that does not answer in time may be stuck for good: it is started afresh.
        const message = `timed out after ${this.options.callTimeoutMs} ms`;
        if (generation === this.generation) this.fail(`${tool.name} ${message}; restarting the server`);
        return failed(tool.name, `${message} (SKEIN_MCP_TIMEOUT_MS); the server "${this.name}" is being restarted`);
      }
      if (err instanceof McpError && err.code === ErrorCode.ConnectionClosed) {
        return failed(tool.name, `the MCP server "${this.name}" went away during the call${this.stderrTail()}; it is being restarted`);
      }
      if (err instanceof McpError) return failed(tool.name, err.message);
      // A transport failure (HTTP server down or reset): the server is treated as crashed.
      const message = describe(err, this.options.callTimeoutMs);
      if (generation === this.generation) this.fail(`${tool.name} failed: ${message}; restarting`);
      return failed(tool.name, `${message}; the server "${this.name}" is being restarted`);
    }
  }

  /** Stops for good (shutdown): the child process is ended, no restart follows. */
  async close(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.retryAt = undefined;
    const client = this.client;
    this.client = undefined;
    this.generation++;
    this.state = 'stopped';
    await client?.close().catch(() => undefined);
  }

  describeState(): string {
    if (this.state === 'failed') {
      const retry = this.retryAt ? `; next try in ${Math.max(0, Math.round((this.retryAt - Date.now()) / 1000))} s` : '';
      return `failed: ${this.error ?? 'unknown error'}${retry}`;
    }
    return this.state;
  }

  private transport(): Transport {
    if (this.config.type === 'http') {
      return new StreamableHTTPClientTransport(new URL(this.config.url), { requestInit: { headers: this.config.headers } });
    }
    // The marker lets skein find (and kill) the server and anything it starts when skein exits.
    watchMarkedProcesses();
    // SKEIN_SANDBOX=workspace: the server runs in the same sandbox as bash (see tools/sandbox.ts).
    const launch = this.options.sandbox ? sandboxCommand(this.options.sandbox, this.options.workDir, [this.config.command, ...(this.config.args ?? [])]) : undefined;
    const transport = new StdioClientTransport({
      command: launch?.file ?? this.config.command,
      args: launch?.args ?? this.config.args,
      env: { ...inheritedEnvironment(), ...this.config.env, [RUN_MARKER]: newRunId() },
      cwd: this.options.workDir,
      stderr: 'pipe',
    });
    this.stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString('utf8')).slice(-STDERR_TAIL);
    });
    // Its stderr ends when the last process of the sandbox is gone (they all die with bwrap): then its stand-ins may go.
    if (launch) transport.stderr?.once('end', launch.release);
    const start = transport.start.bind(transport);
    transport.start = async () => {
      await start();
      this.pid = transport.pid ?? undefined;
    };
    return transport;
  }

  private async listTools(client: Client): Promise<ListedTool[]> {
    const raw: RawTool[] = [];
    let cursor: string | undefined;
    // A hang is a failure: a server that hands out cursors for ever (the same one, or new ones with empty pages)
    // must not keep skein asking. The loop ends on a repeated cursor, after MAX_TOOL_PAGES pages, or at MAX_TOOLS tools.
    const cursors = new Set<string>();
    for (let pages = 0; ; pages++) {
      if (pages === MAX_TOOL_PAGES) throw new Error(`tools/list did not end after ${MAX_TOOL_PAGES} pages (the server keeps sending nextCursor)`);
      // Read loosely, not with client.listTools: the SDK refuses the whole list for one tool's broken schema.
      const page = await client.request({ method: 'tools/list', params: cursor ? { cursor } : {} }, LOOSE_TOOL_LIST, { timeout: this.options.startTimeoutMs });
      raw.push(...page.tools.filter((t): t is RawTool => typeof t === 'object' && t !== null && typeof (t as RawTool).name === 'string'));
      cursor = page.nextCursor;
      if (!cursor || raw.length >= MAX_TOOLS) break;
      if (cursors.has(cursor)) throw new Error(`tools/list sent the cursor ${JSON.stringify(cursor.slice(0, 80))} a second time (its pages would never end)`);
      cursors.add(cursor);
    }
    const seen = new Set<string>();
    return raw.map((t) => {
      const name = mcpToolName(this.name, t.name);
      const description = t.description ?? t.title ?? '';
      const base = { name, original: t.name, description, inputSchema: {} };
      if (!TOOL_NAME.test(name)) return { ...base, skipped: `its name ${JSON.stringify(name)} is longer than 64 characters` };
      if (seen.has(name)) return { ...base, skipped: `another tool of this server is also named ${name}` };
      seen.add(name);
      const checked = checkInputSchema(t.inputSchema);
      return checked.ok ? { ...base, inputSchema: checked.schema } : { ...base, skipped: checked.reason };
    });
  }

  private async refreshTools(client: Client, generation: number): Promise<void> {
    try {
      const tools = await this.listTools(client);
      if (generation !== this.generation) return;
      this.tools = tools;
      const usable = tools.filter((t) => !t.skipped).length;
      this.set('ready', `tool list changed: ${usable} tool${usable === 1 ? '' : 's'}${skippedNote(tools)}`);
    } catch (err) {
      if (generation === this.generation) this.fail(`could not list tools after tools/list_changed: ${describe(err, this.options.startTimeoutMs)}`);
    }
  }

  /** Reports the failure, drops the client and schedules the next attempt. */
  private fail(reason: string): void {
    if (this.stopped) return;
    this.generation++;
    const client = this.client;
    this.client = undefined;
    void client?.close().catch(() => undefined);
    this.tools = [];
    this.error = reason;
    const base = this.options.backoffMs ?? 1000;
    const delay = Math.min(this.options.maxBackoffMs ?? 60_000, base * 2 ** this.attempt);
    this.attempt++;
    this.retryAt = Date.now() + delay;
    this.set('failed', reason, delay);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.retryAt = undefined;
      this.restarts++;
      void this.connect();
    }, delay);
    this.timer.unref();
  }

  private set(state: McpServerState, message: string, retryInMs?: number): void {
    this.state = state;
    this.message = message;
    this.changed({ server: this.name, state, message, ...(retryInMs !== undefined && { retryInMs }) });
  }

  private stderrTail(): string {
    const tail = this.stderr.trim().split('\n').slice(-3).join(' | ').slice(-300);
    return tail ? ` (stderr: ${tail})` : '';
  }
}

export function failed(name: string, message: string): ToolResult {
  return { output: `${name} failed: ${message}`, isError: true };
}

function skippedNote(tools: ListedTool[]): string {
  const skipped = tools.filter((t) => t.skipped);
  return skipped.length ? `; skipped ${skipped.map((t) => `${t.original} (${t.skipped})`).join(', ')}` : '';
}

function describe(err: unknown, timeoutMs: number): string {
  if (err instanceof McpError && err.code === ErrorCode.RequestTimeout) return `no answer within ${timeoutMs} ms`;
  const cause = err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : '';
  return `${err instanceof Error ? err.message : String(err)}${cause}`;
}

/**
 * What a stdio server gets of skein's environment: PATH and the names the SDK
 * adds on its own (HOME, LOGNAME, SHELL, TERM, USER), each through the tools'
 * scrub (a secret value stays out: env.ts). A name scrubbed is given as
 * undefined, which overrides the SDK's copy and which spawn leaves out.
 * PATH keeps its absolute folders only: a bare command must not resolve to a
 * program of the working folder (the cwd). The server's own `env` is added
 * by the caller: it is configuration, written for it.
 */
export function inheritedEnvironment(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const names = new Set([...DEFAULT_INHERITED_ENV_VARS, 'PATH']);
  const scrubbed = toolEnvironment(Object.fromEntries([...names].map((name) => [name, env[name]])));
  // undefined values are the point (see above); the SDK's type says string.
  return Object.fromEntries([...names].map((name) => [name, name === 'PATH' ? (scrubbed.PATH ?? '') : scrubbed[name]])) as Record<string, string>;
}
