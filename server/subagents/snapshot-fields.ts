// What a session's snapshot (the list socket, GET /api/sessions) says about
// subagents, read from its log: for a child, its last step (the web UI's
// task card shows it live); for a parent, what its finished children cost
// (`subtasks`, from the `subagent` events: the UI adds it to the parent's totals).
import type { SessionSnapshot, SkeinEvent } from '../../shared/protocol.js';

const MAX_STEP = 160;

export function subagentFields(events: readonly SkeinEvent[], isChild: boolean): Pick<SessionSnapshot, 'step' | 'subtasks'> {
  const step = isChild ? lastStep(events) : undefined;
  let count = 0;
  let costUsd = 0;
  let tokens = 0;
  for (const e of events) {
    if (e.kind !== 'subagent') continue;
    if (e.phase === 'started') count++;
    if (e.phase === 'finished') {
      costUsd += e.costUsd ?? 0;
      tokens += e.tokens ?? 0;
    }
  }
  return { ...(step && { step }), ...(count && { subtasks: { count, costUsd, tokens } }) };
}

/** The child's latest step, in a line: the tool it called and on what, or its answer. */
function lastStep(events: readonly SkeinEvent[]): string | undefined {
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i]!;
    if (e.kind === 'tool_call') return cut(`${e.name} ${target(e.input)}`.trim());
    if (e.kind === 'agent' && e.text.trim()) return cut(`answered: ${e.text.trim().split('\n')[0]}`);
    if (e.kind === 'compaction' && e.phase === 'started') return 'compacting its context';
  }
  return undefined;
}

function target(input: Record<string, unknown>): string {
  for (const key of ['command', 'path', 'pattern', 'query', 'description']) if (typeof input[key] === 'string') return input[key];
  return '';
}

function cut(text: string): string {
  const line = text.replace(/\s+/g, ' ');
  return line.length > MAX_STEP ? `${line.slice(0, MAX_STEP - 1)}…` : line;
}
