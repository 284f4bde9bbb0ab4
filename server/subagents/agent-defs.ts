// What a subagent is: a name the `task` tool is called with, the tools its
// child session may use, its model and approval mode, and its instructions.
// Two are built in; more come from agent files (agent-files.ts): Markdown
// with a front matter block of `key: value` lines and the instructions below.
import { APPROVAL_MODES, type ApprovalMode } from '../../shared/protocol.js';

export interface AgentDef {
  name: string;
  description: string;
  /** The built-in tools it may use (absent: the parent's). */
  tools?: string[];
  /** Its model (absent: the parent's). `summariser`: SKEIN_SUMMARIZER_MODEL when set, else the parent's. */
  model?: string;
  /** Narrows the parent's mode (it never widens it: see narrower()). */
  mode?: ApprovalMode;
  /** Added to the child's system prompt. */
  prompt?: string;
  /** How many levels of children its child may start in turn (default 0: no `task` tool). */
  depth: number;
  /** Its child works in a git worktree of its own (the `task` call's `worktree` overrides it). */
  worktree?: boolean;
  /** Where it was defined (built-in, or the file's path). */
  source: string;
}

/** The read-only tools of the built-in `explore` agent. */
export const EXPLORE_TOOLS = ['read_file', 'glob', 'grep', 'list', 'search_history'];

export const BUILT_IN_AGENTS: readonly AgentDef[] = [
  {
    name: 'general',
    description: 'A general agent with your tools (but no `task`): hand it a self-contained subtask and get its final answer back.',
    depth: 0,
    source: 'built-in',
  },
  {
    name: 'explore',
    description: 'A read-only explorer (read_file, glob, grep, list, search_history): finds and reads what you need and reports it, so that big reads stay out of your context.',
    tools: EXPLORE_TOOLS,
    model: 'summariser',
    prompt:
      'You are an explorer working for another agent. You may only read and search. Answer its request with a concise report: ' +
      'the facts found, with file paths and line numbers, and nothing it did not ask for. Your final answer is all it will see.',
    depth: 0,
    source: 'built-in',
  },
];

export const DEFAULT_AGENT = 'general';

/** The agent's name as a file defines it: letters, digits, `-` and `_`. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

export class AgentFileError extends Error {}

/**
 * An agent file: `---`, lines of `key: value` (name, description, tools,
 * model, mode, depth), `---`, then its instructions. `tools` is a list
 * separated by commas (brackets allowed). Throws AgentFileError with what is wrong.
 */
export function parseAgentFile(content: string, source: string, fallbackName: string): AgentDef {
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/.exec(content);
  if (!match) throw new AgentFileError(`${source}: no front matter (the file must start with a line "---", then lines of "key: value", then "---")`);
  const fields = new Map<string, string>();
  for (const [i, line] of match[1]!.split(/\r?\n/).entries()) {
    if (!line.trim() || line.trim().startsWith('#')) continue;
    const kv = /^([A-Za-z_-]+)\s*:\s*(.*)$/.exec(line);
    if (!kv) throw new AgentFileError(`${source}: front matter line ${i + 2} is not "key: value": ${line}`);
    fields.set(kv[1]!.toLowerCase(), unquote(kv[2]!.trim()));
  }
  const known = new Set(['name', 'description', 'tools', 'model', 'mode', 'approval', 'depth', 'worktree']);
  const unknown = [...fields.keys()].filter((k) => !known.has(k));
  if (unknown.length) throw new AgentFileError(`${source}: unknown front matter key ${unknown.join(', ')} (known: ${[...known].join(', ')})`);
  const name = fields.get('name') || fallbackName;
  if (!NAME.test(name)) throw new AgentFileError(`${source}: the name "${name}" must be letters, digits, "-" or "_" (at most 64)`);
  const description = fields.get('description');
  if (!description) throw new AgentFileError(`${source}: a description is required (the model chooses agents by it)`);
  const mode = fields.get('mode') ?? fields.get('approval');
  if (mode !== undefined && !(APPROVAL_MODES as readonly string[]).includes(mode)) throw new AgentFileError(`${source}: mode must be one of ${APPROVAL_MODES.join(', ')}, got "${mode}"`);
  const depthText = fields.get('depth');
  const depth = depthText === undefined ? 0 : Number(depthText);
  if (!Number.isInteger(depth) || depth < 0 || depth > 3) throw new AgentFileError(`${source}: depth must be 0 to 3, got "${depthText}"`);
  const worktree = fields.get('worktree');
  if (worktree !== undefined && worktree !== 'true' && worktree !== 'false') throw new AgentFileError(`${source}: worktree must be true or false, got "${worktree}"`);
  const tools = fields.get('tools');
  const prompt = match[2]!.trim();
  return {
    name,
    description,
    ...(tools !== undefined && { tools: splitList(tools) }),
    ...(fields.get('model') && { model: fields.get('model') }),
    ...(mode !== undefined && { mode: mode as ApprovalMode }),
    ...(prompt && { prompt }),
    depth,
    ...(worktree !== undefined && { worktree: worktree === 'true' }),
    source,
  };
}

function unquote(value: string): string {
  return /^(['"]).*\1$/.test(value) ? value.slice(1, -1) : value;
}

function splitList(value: string): string[] {
  return value
    .replace(/^\[|\]$/g, '')
    .split(',')
    .map((t) => unquote(t.trim()))
    .filter(Boolean);
}

/** How strict each mode is: a child runs under the stricter of its parent's and its agent's. */
const STRICTNESS: Record<ApprovalMode, number> = { never: 0, 'on-write': 1, always: 2, plan: 3 };

export function narrower(parent: ApprovalMode, agent: ApprovalMode | undefined): ApprovalMode {
  return agent && STRICTNESS[agent] > STRICTNESS[parent] ? agent : parent;
}
