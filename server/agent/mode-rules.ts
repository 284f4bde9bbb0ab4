// What each approval mode does to one tool call (see shared/modes.ts for the
// words): run it, ask the user first, refuse it (plan mode), or run it in a
// read-only sandbox without asking (plan mode's bash: it cannot change
// anything, as under Codex's read-only sandbox; see
// tools/sandbox/read-only.ts). A session's
// mode is its last `mode` event, else SKEIN_APPROVAL; only the user switches
// it (REST, the UI, the CLI, ACP), never the model: no tool can.
import type { ApprovalMode } from '../../shared/protocol.js';
import { TOOLS } from '../tools/registry.js';
import { TASK_TOOL } from '../subagents/task-name.js';
import type { SandboxProblem } from '../tools/sandbox.js';

/** `read-only`: runs without asking, inside the read-only sandbox (or is refused where there is none). */
export type ModeVerdict = 'run' | 'ask' | 'refuse' | 'read-only';

/** A built-in tool that changes nothing (reads, searches, the plan, the history): it runs in every mode but `always`. */
function readOnly(name: string): boolean {
  return TOOLS.find((t) => t.spec.name === name)?.readOnly === true;
}

export function verdictOf(mode: ApprovalMode, name: string): ModeVerdict {
  if (mode === 'never') return 'run';
  if (mode === 'always') return 'ask';
  // task asks nothing itself: its child session runs under this mode (or a stricter one) and asks for its own calls.
  if (name === TASK_TOOL) return 'run';
  // An unknown name runs nothing (it gets an error result): nothing to approve or refuse.
  const known = name.startsWith('mcp__') || TOOLS.some((t) => t.spec.name === name);
  if (!known) return 'run';
  switch (mode) {
    // An MCP server's tools act outside skein whatever they claim about themselves.
    case 'on-write':
      return readOnly(name) ? 'run' : 'ask';
    case 'plan':
      if (name === 'bash') return 'read-only';
      return readOnly(name) ? 'run' : 'refuse';
  }
}

function readOnlyTools(): string {
  return TOOLS.filter((t) => t.readOnly).map((t) => t.spec.name).join(', ');
}

/** The result the model gets (and the timeline shows) for a call plan mode refuses. */
export function planRefusal(name: string): string {
  return (
    `refused: this session is in plan mode (read-only), so ${name} was not run. ` +
    `In plan mode you may read, search and plan (${readOnlyTools()}) and run bash commands that only read (in a read-only sandbox, where bubblewrap is available); writes, edits and MCP tools are refused. ` +
    'Finish the plan and present it: the user switches the mode when it is time to act.'
  );
}

/** The result of plan mode's bash where the read-only sandbox cannot start: what was refused, and why. */
export function planSandboxRefusal(problem: SandboxProblem): string {
  return (
    'refused: this session is in plan mode (read-only), so bash was not run: plan mode runs shell commands only inside a read-only sandbox, ' +
    `and bubblewrap cannot start one here (${problem.why}). ${problem.fix ? `${problem.fix} to run them in plan mode. ` : ''}` +
    `Meanwhile read, search and plan with ${readOnlyTools()}; the user switches the mode when it is time to act.`
  );
}
