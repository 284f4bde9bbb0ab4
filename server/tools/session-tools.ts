// The tools of one session: the built-in ones plus the MCP tools offered when
// the session started. The list the model is given (specs) never changes for
// the session's life: providers cache the prompt by prefix (tools first), and
// Anthropic checks preserved thinking against it. Tools that appear or vanish
// later reach the model as a note (see agent/tool-notes.ts); a call to one
// that appeared is run, a call to one that vanished gets an error saying so.
import type { ToolSpec } from '../llm/types.js';
import type { McpHub } from '../mcp/hub.js';
import { MCP_PREFIX } from '../mcp/schema.js';
import { TOOLS } from './registry.js';
import type { Tool } from './tool.js';

export class SessionTools {
  /** What every request of this session carries. */
  readonly specs: ToolSpec[];
  private readonly fixed: readonly Tool[];

  /** `recorded`: the MCP tools the session started with (its log header), which win over what the servers offer now. */
  constructor(
    private readonly builtIn: readonly Tool[] = TOOLS,
    readonly mcp?: McpHub,
    recorded?: readonly ToolSpec[],
  ) {
    const live = mcp?.tools() ?? [];
    const started = recorded ? recorded.map((spec) => live.find((t) => t.spec.name === spec.name && sameSpec(t.spec, spec)) ?? this.viaHub(spec)) : live;
    this.fixed = [...builtIn, ...started];
    this.specs = this.fixed.map((t) => t.spec);
  }

  /** A recorded tool the server no longer offers as it was: declared as recorded, run by name (the hub says if it is gone). */
  private viaHub(spec: ToolSpec): Tool {
    const mcp = this.mcp;
    return { spec, run: (input, ctx) => (mcp ? mcp.call(spec.name, input, ctx.signal) : Promise.resolve({ output: `${spec.name} is not available: no MCP servers are configured now`, isError: true })) };
  }

  /**
   * Every tool a call may name now: the fixed ones, then MCP tools that
   * appeared since. An MCP name found in neither is still passed to its
   * server's hub, which says why it is not available.
   */
  callable(name: string): Tool[] {
    // The live tool first (it runs as its server offers it now), then the fixed list, then tools that appeared.
    const live = this.mcp?.tools() ?? [];
    const liveNames = new Set(live.map((t) => t.spec.name));
    const tools = [...this.fixed.filter((t) => !liveNames.has(t.spec.name)), ...live];
    const mcp = this.mcp;
    // (The hub exists even with no server, for a project file trusted later: with none, an unknown name is just unknown.)
    if (mcp?.size && name.startsWith(MCP_PREFIX) && !tools.some((t) => t.spec.name === name)) {
      tools.push({ spec: { name, description: '', inputSchema: { type: 'object' } }, run: (input, ctx) => mcp.call(name, input, ctx.signal) });
    }
    return tools;
  }

  /** The MCP tools live now, by name (for the change notes). */
  liveMcp(): Map<string, ToolSpec> {
    return new Map((this.mcp?.tools() ?? []).map((t) => [t.spec.name, t.spec]));
  }

  /** The MCP tools of the fixed list, by name. */
  fixedMcp(): Map<string, ToolSpec> {
    const builtIn = new Set(this.builtIn.map((t) => t.spec.name));
    return new Map(this.specs.filter((s) => !builtIn.has(s.name)).map((s) => [s.name, s]));
  }
}

function sameSpec(a: ToolSpec, b: ToolSpec): boolean {
  return a.description === b.description && JSON.stringify(a.inputSchema) === JSON.stringify(b.inputSchema);
}
