// Checks an MCP server's tool before the model sees it: a name every provider
// accepts and an input schema that is an object schema whose references
// resolve. A tool that fails is skipped with a reason (shown in GET /api/mcp
// and the timeline), never sent to a provider that would refuse the whole
// request for it.
import { SERVER_NAME } from './config.js';

/** Anthropic and OpenAI allow these in a tool name (Gemini allows more), at most 64 characters. */
export const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;
/** Every MCP tool's name starts with this; approvals and the ledger recognise MCP tools by it. */
export const MCP_PREFIX = 'mcp__';

export function mcpToolName(server: string, tool: string): string {
  // Characters a provider refuses (dots, slashes, spaces) become `_`, as other MCP clients do.
  return `${MCP_PREFIX}${server}__${tool.replace(/[^A-Za-z0-9_-]/g, '_')}`;
}

/** `mcp__server__tool` -> its parts (the tool part as named to the model), or undefined. */
export function parseMcpToolName(name: string): { server: string; tool: string } | undefined {
  if (!name.startsWith(MCP_PREFIX)) return undefined;
  const rest = name.slice(MCP_PREFIX.length);
  const at = rest.indexOf('__');
  if (at <= 0) return undefined;
  const server = rest.slice(0, at);
  return SERVER_NAME.test(server) ? { server, tool: rest.slice(at + 2) } : undefined;
}

export type SchemaCheck = { ok: true; schema: Record<string, unknown> } | { ok: false; reason: string };

/** The schema to send (a missing `type` on an object schema is filled in), or why the tool is skipped. */
export function checkInputSchema(schema: unknown): SchemaCheck {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return { ok: false, reason: 'its inputSchema is not a JSON object' };
  const s = schema as Record<string, unknown>;
  if (s.type !== undefined && s.type !== 'object') return { ok: false, reason: `its inputSchema has type ${JSON.stringify(s.type)}; tools take an object ("type": "object")` };
  if (s.properties !== undefined && (typeof s.properties !== 'object' || s.properties === null || Array.isArray(s.properties))) {
    return { ok: false, reason: 'its inputSchema "properties" is not an object' };
  }
  if (s.required !== undefined && (!Array.isArray(s.required) || !s.required.every((r) => typeof r === 'string'))) {
    return { ok: false, reason: 'its inputSchema "required" is not an array of names' };
  }
  const dangling = danglingRef(s, s);
  if (dangling) return { ok: false, reason: `its inputSchema refers to ${JSON.stringify(dangling)}, which it does not define` };
  let size: number;
  try {
    size = JSON.stringify(s).length;
  } catch {
    return { ok: false, reason: 'its inputSchema cannot be serialised' };
  }
  if (size > 100_000) return { ok: false, reason: `its inputSchema is ${size} characters (more than 100,000)` };
  return { ok: true, schema: { ...s, type: 'object' } };
}

/** The first `$ref` that does not point inside the schema itself, if any. */
function danglingRef(node: unknown, root: Record<string, unknown>): string | undefined {
  if (Array.isArray(node)) {
    for (const item of node) {
      const found = danglingRef(item, root);
      if (found) return found;
    }
    return undefined;
  }
  if (typeof node !== 'object' || node === null) return undefined;
  for (const [key, value] of Object.entries(node)) {
    if (key === '$ref') {
      if (typeof value !== 'string' || resolvePointer(root, value) === undefined) return String(value);
      continue;
    }
    const found = danglingRef(value, root);
    if (found) return found;
  }
  return undefined;
}

/** A local JSON pointer (`#`, `#/$defs/Name`) inside `root`, or undefined. */
export function resolvePointer(root: Record<string, unknown>, ref: string): unknown {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (typeof node !== 'object' || node === null || !(key in node)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}
