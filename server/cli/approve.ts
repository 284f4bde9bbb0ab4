// `skein run --approve WHAT`: which tool calls that wait for approval the CLI
// approves by itself, for scripts and CI where nobody can answer. WHAT is a
// comma-separated list (the flag may repeat): `all`, `bash`, `write` (the
// tools that change files: write_file, edit_file), `mcp` (every MCP tool), or
// a tool's exact name (read_file, mcp__server__tool, ...). Anything else is
// refused: a typo must not silently leave a script waiting, nor allow more.
import { TOOLS } from '../tools/registry.js';
import { CliError, EXIT } from './exit-codes.js';

export interface ApprovePolicy {
  all: boolean;
  /** Groups (`write`, `mcp`) and tool names. */
  names: Set<string>;
}

/** The file-changing tools `write` stands for. */
const WRITE_TOOLS = ['write_file', 'edit_file'];
const GROUPS = ['all', 'write', 'mcp'];

export function parseApprove(values: string[]): ApprovePolicy {
  const policy: ApprovePolicy = { all: false, names: new Set() };
  const tools = new Set(TOOLS.map((t) => t.spec.name));
  for (const value of values.flatMap((v) => v.split(','))) {
    const name = value.trim();
    if (name === 'all') policy.all = true;
    else if (GROUPS.includes(name) || tools.has(name) || /^mcp__[\w.-]+__[\w.-]+$/.test(name)) policy.names.add(name);
    else throw new CliError(EXIT.usage, `--approve ${JSON.stringify(name)}: expected all, write, mcp, or a tool name (${[...tools].join(', ')}, mcp__SERVER__TOOL), comma-separated`);
  }
  return policy;
}

/** Whether the policy approves a call to `tool`. */
export function approves(policy: ApprovePolicy, tool: string): boolean {
  if (policy.all || policy.names.has(tool)) return true;
  if (policy.names.has('write') && WRITE_TOOLS.includes(tool)) return true;
  return policy.names.has('mcp') && tool.startsWith('mcp__');
}

export function isEmpty(policy: ApprovePolicy): boolean {
  return !policy.all && policy.names.size === 0;
}
