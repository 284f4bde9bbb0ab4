// How a child's turn ended, read from its log, and the bounded tool result the
// parent gets: the final answer up to MAX_ANSWER_CHARS, the rest left in the
// child's log with a pointer to read it (search_history with `session`).
import type { SkeinEvent } from '../../shared/protocol.js';
import type { ToolResult } from '../tools/tool.js';

/** The most of a child's final answer the parent's context receives. */
export const MAX_ANSWER_CHARS = 4000;

export interface TurnOutcome {
  kind: 'answered' | 'error' | 'cancelled' | 'interrupted';
  /** answered: the final answer; else what went wrong. */
  detail: string;
}

/** The outcome of the turn whose events are `events` (from the prompt to its return to WaitingForUserInput). */
export function turnOutcome(events: readonly SkeinEvent[]): TurnOutcome {
  const last = events.findLast((e) => e.kind === 'state' && e.to === 'WaitingForUserInput');
  const via = last?.kind === 'state' ? last.from : undefined;
  const answer = events.findLast((e) => e.kind === 'agent');
  const error = events.findLast((e) => e.kind === 'error');
  if (via === 'Cancelled') return { kind: 'cancelled', detail: last?.kind === 'state' ? last.reason : 'cancelled' };
  if (via === 'Error') {
    const interrupted = error?.kind === 'error' && error.code === 'interrupted';
    return { kind: interrupted ? 'interrupted' : 'error', detail: error?.kind === 'error' ? error.message : last?.kind === 'state' ? last.reason : 'failed' };
  }
  return { kind: 'answered', detail: answer?.kind === 'agent' ? answer.text : '' };
}

export function boundedAnswer(childId: string, agent: string, outcome: TurnOutcome): ToolResult {
  const pointer = `(child session ${childId}; read more of its log with search_history {"session": "${childId}", "query": ...})`;
  if (outcome.kind !== 'answered') {
    return { output: `The ${agent} agent did not finish: ${outcome.kind}: ${outcome.detail} ${pointer}`, isError: true };
  }
  const text = outcome.detail.trim() || '(the agent ended its turn without a text answer)';
  if (text.length <= MAX_ANSWER_CHARS) return { output: `${text}\n\n${pointer}`, isError: false };
  const rest = text.length - MAX_ANSWER_CHARS;
  return { output: `${text.slice(0, MAX_ANSWER_CHARS)}\n\n[… ${rest} more characters of this answer are in the child's log] ${pointer}`, isError: false };
}
