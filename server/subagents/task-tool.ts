// The `task` tool: hands a self-contained subtask to a child session and
// returns its final answer (children.ts). Its description lists the agents the
// session may call, as they were when the session started (a session's tool
// list never changes: see tools/session-tools.ts); a call names the agent, and
// the agent files are read again then (one trusted since can be called, one no
// longer trusted is refused).
import type { Tool } from '../tools/tool.js';
import { stringField, ToolInputError } from '../tools/tool.js';
import type { AgentDef } from './agent-defs.js';
import { DEFAULT_AGENT } from './agent-defs.js';
import { MAX_ANSWER_CHARS } from './outcome.js';
import type { Subagents } from './children.js';

export { TASK_TOOL } from './task-name.js';
import { TASK_TOOL } from './task-name.js';

export function taskTool(subagents: Subagents, parentId: string, agents: readonly AgentDef[]): Tool {
  const listed = agents.map((a) => `- ${a.name}: ${a.description}`).join('\n');
  return {
    spec: {
      name: TASK_TOOL,
      description:
        'Hand a self-contained subtask to a subagent (a child session with its own context, same folder) to keep big reads and searches out of your context. ' +
        `It sees only your prompt; its final answer (at most ${MAX_ANSWER_CHARS} characters) is the result. Several calls in one answer run in parallel.\n` +
        `Agents (default ${DEFAULT_AGENT}):\n${listed}`,
      inputSchema: {
        type: 'object',
        properties: {
          description: { type: 'string', description: 'A 3-8 word title, shown to the user' },
          prompt: { type: 'string', description: 'The complete brief: what to find or do, what to report' },
          // No enum: an agent file trusted after this session started may be named too (the call says which exist when it is not).
          agent: { type: 'string', description: `One of the agents above (default ${DEFAULT_AGENT})` },
          worktree: { type: 'boolean', description: 'true: the agent works in a git worktree of its own (a new branch), so its changes stay apart from yours' },
        },
        required: ['description', 'prompt'],
      },
    },
    async run(input, ctx) {
      const description = stringField(input, 'description');
      const prompt = stringField(input, 'prompt');
      if (!prompt.trim()) throw new ToolInputError('"prompt" must not be empty');
      const agent = input.agent === undefined ? undefined : stringField(input, 'agent');
      if (input.worktree !== undefined && typeof input.worktree !== 'boolean') throw new ToolInputError('"worktree" must be true or false');
      const worktree = input.worktree as boolean | undefined;
      if (!ctx.callId) return { output: 'task is not available here', isError: true };
      return subagents.run(parentId, ctx.callId, { description, prompt, ...(agent !== undefined && { agent }), ...(worktree !== undefined && { worktree }) }, ctx.signal);
    },
  };
}
