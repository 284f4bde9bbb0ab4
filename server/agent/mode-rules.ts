// What each approval mode does to one tool call (see shared/modes.ts for the
// words): run it, ask the user first, or refuse it (plan mode). A session's
// mode is its last `mode` event, else SKEIN_APPROVAL; only the user switches
// it (REST, the UI, the CLI, ACP), never the model: no tool can.
import type { ApprovalMode } from '../../shared/protocol.js';
import { TOOLS } from '../tools/registry.js';

export type ModeVerdict = 'run' | 'ask' | 'refuse';

/** A built-in tool that changes nothing (reads, searches, the plan, the history): it runs in every mode but `always`. */
function readOnly(name: string): boolean {
  return TOOLS.find((t) => t.spec.name === name)?.readOnly === true;
}

export function verdictOf(mode: ApprovalMode, name: string): ModeVerdict {
  if (mode === 'never') return 'run';
  if (mode === 'always') return 'ask';
  // An unknown name runs nothing (it gets an error result): nothing to approve or refuse.
  const known = name.startsWith('mcp__') || TOOLS.some((t) => t.spec.name === name);
  if (!known) return 'run';
  switch (mode) {
    // An MCP server's tools act outside skein whatever they claim about themselves.
    case 'on-write':
      return readOnly(name) ? 'run' : 'ask';
    case 'plan':
      return readOnly(name) ? 'run' : 'refuse';
  }
}

/** The result the model gets (and the timeline shows) for a call plan mode refuses. */
export function planRefusal(name: string): string {
  const allowed = TOOLS.filter((t) => t.readOnly).map((t) => t.spec.name).join(', ');
  return (
    `refused: this session is in plan mode (read-only), so ${name} was not run. ` +
    `In plan mode you may read, search and plan (${allowed}); writes, edits, bash and MCP tools are refused. ` +
    'Finish the plan and present it: the user switches the mode when it is time to act.'
  );
}
