// The lean toolset for a small window (a local model's 4k): the core tools
// only, each with a one-line description and its schema stripped of property
// descriptions. The full list costs about 1,200 tokens, a third of a 4k
// window; this one about a quarter of that. Names and schemas are the same,
// so a call the model makes runs exactly as with the full set.
import type { ToolSpec } from '../llm/types.js';
import { MCP_PREFIX } from '../mcp/schema.js';

/** The tools a small window keeps, with the line that describes each. */
const LEAN: Record<string, string> = {
  bash: 'Run a bash command in the project folder; returns the exit code and the output (long output capped).',
  read_file: 'Read a text file; optional 1-based `offset` line and `limit` lines.',
  write_file: 'Create or overwrite a file with the given content.',
  edit_file: 'Replace the exact string `old` (once, or every one with `replace_all`) with `new` in a file.',
  search_history: "Search this session's whole log, compacted parts included, by text or seq range.",
};

export const LEAN_TOOL_NAMES: readonly string[] = Object.keys(LEAN);

/** MCP tools are the user's own choice: a lean request keeps them as their servers describe them. */
export function isMcpTool(spec: ToolSpec): boolean {
  return spec.name.startsWith(MCP_PREFIX);
}

/** The lean versions of the core built-in tools among `specs`, then the MCP tools as they are; other built-ins are left out. */
export function leanSpecs(specs: readonly ToolSpec[]): ToolSpec[] {
  const core = specs.filter((s) => s.name in LEAN).map((s) => ({ name: s.name, description: LEAN[s.name]!, inputSchema: stripDescriptions(s.inputSchema) }));
  return [...core, ...specs.filter(isMcpTool)];
}

/** A JSON schema without its `description` fields (types, enums and required stay). */
function stripDescriptions(schema: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'description' && typeof value === 'string') continue;
    out[key] = Array.isArray(value)
      ? value.map((v) => (isObject(v) ? stripDescriptions(v) : v))
      : isObject(value)
        ? stripDescriptions(value)
        : value;
  }
  return out;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
