// MCP server configuration, in Claude Code's `.mcp.json` shape:
// {"mcpServers": {"NAME": {"command", "args", "env"} | {"type": "http", "url", "headers"}}}.
// The user's own SKEIN_MCP_CONFIG: `${VAR}` and `${VAR:-default}` in strings
// are expanded from skein's environment, so a secret stays out of the file.
// A working folder's .mcp.json belongs to the repository, not the user: it is
// parsed literally (no expansion, ever) and only started once trusted (see
// server/trust/).
import fs from 'node:fs';

export interface StdioServerConfig {
  type: 'stdio';
  command: string;
  args: string[];
  env: Record<string, string>;
}

export interface HttpServerConfig {
  type: 'http';
  url: string;
  headers: Record<string, string>;
}

export type McpServerConfig = StdioServerConfig | HttpServerConfig;

/** Server names become part of tool names (`mcp__<server>__<tool>`): provider tool names allow only these. */
/** No `__` and no `_` at either end: tool names are mcp__<server>__<tool>, split at the first `__` after the prefix. */
export const SERVER_NAME = /^(?!_)(?!.*__)(?!.*_$)[A-Za-z0-9_-]{1,40}$/;

export class McpConfigError extends Error {
  override readonly name = 'McpConfigError';
}

/** `env: null`: nothing is expanded, the text is taken as written (a project's file). */
type ExpandFrom = NodeJS.ProcessEnv | null;

/** Parses one config file's text; throws McpConfigError saying what is wrong where. */
export function parseMcpConfig(text: string, env: ExpandFrom = process.env): Map<string, McpServerConfig> {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new McpConfigError(`not valid JSON (${err instanceof Error ? err.message : String(err)})`);
  }
  if (!isObject(data) || !isObject(data.mcpServers)) throw new McpConfigError('expected {"mcpServers": {"NAME": {...}}}');
  const servers = new Map<string, McpServerConfig>();
  for (const [name, raw] of Object.entries(data.mcpServers)) {
    if (!SERVER_NAME.test(name)) throw new McpConfigError(`server name ${JSON.stringify(name)}: use 1 to 40 letters, digits, _ or - (no "__", no _ at either end: tools are named mcp__<server>__<tool>)`);
    servers.set(name, parseServer(name, raw, env));
  }
  return servers;
}

function parseServer(name: string, raw: unknown, env: ExpandFrom): McpServerConfig {
  const where = `mcpServers.${name}`;
  if (!isObject(raw)) throw new McpConfigError(`${where}: expected an object`);
  const type = raw.type ?? (raw.url !== undefined ? 'http' : 'stdio');
  if (type === 'http' || type === 'streamable-http') {
    const url = expand(stringOf(raw.url, `${where}.url`), env);
    try {
      const parsed = new URL(url);
      if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('not http(s)');
    } catch {
      throw new McpConfigError(`${where}.url: expected an http(s) URL, got ${JSON.stringify(url)}`);
    }
    return { type: 'http', url, headers: expandAll(stringMap(raw.headers, `${where}.headers`), env) };
  }
  if (type !== 'stdio') throw new McpConfigError(`${where}.type: expected "stdio" or "http" (got ${JSON.stringify(type)}; the old SSE transport is not supported)`);
  const command = expand(stringOf(raw.command, `${where}.command`), env);
  if (!command.trim()) throw new McpConfigError(`${where}.command: must not be empty`);
  const args = raw.args === undefined ? [] : raw.args;
  if (!Array.isArray(args) || !args.every((a) => typeof a === 'string')) throw new McpConfigError(`${where}.args: expected an array of strings`);
  return { type: 'stdio', command, args: args.map((a: string) => expand(a, env)), env: expandAll(stringMap(raw.env, `${where}.env`), env) };
}

/** The servers of the user's SKEIN_MCP_CONFIG file (if set), `${VAR}` expanded. Throws McpConfigError naming the setting. */
export function loadUserMcpServers(configPath: string | undefined, env: NodeJS.ProcessEnv = process.env): Map<string, McpServerConfig> {
  return configPath ? readFile(configPath, `SKEIN_MCP_CONFIG=${configPath}`, env) : new Map();
}

/** Checks a SKEIN_MCP_CONFIG value: undefined when the file is good, else what is wrong. */
export function mcpConfigProblem(file: string): string | undefined {
  try {
    readFile(file, file, {});
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

function readFile(file: string, label: string, env: ExpandFrom): Map<string, McpServerConfig> {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new McpConfigError(`${label}: cannot read it (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  try {
    return parseMcpConfig(text, env);
  } catch (err) {
    throw new McpConfigError(`${label}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

function expand(value: string, env: ExpandFrom): string {
  if (env === null) return value;
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_m, name: string, fallback: string | undefined) => env[name] ?? fallback ?? '');
}

function expandAll(map: Record<string, string>, env: ExpandFrom): Record<string, string> {
  return Object.fromEntries(Object.entries(map).map(([k, v]) => [k, expand(v, env)]));
}

function stringOf(value: unknown, where: string): string {
  if (typeof value !== 'string') throw new McpConfigError(`${where}: expected a string`);
  return value;
}

function stringMap(value: unknown, where: string): Record<string, string> {
  if (value === undefined) return {};
  if (!isObject(value) || !Object.values(value).every((v) => typeof v === 'string')) throw new McpConfigError(`${where}: expected an object of strings`);
  return value as Record<string, string>;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
