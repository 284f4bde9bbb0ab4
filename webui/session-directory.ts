// The sessions the list socket keeps current, readable from anywhere in the
// page: a task card in the timeline follows its child session's live state
// (gauge, step, tokens, cost) through it, and the header adds the running
// children's costs to the parent's. <skein-app> publishes each new list.
import type { ListedSession } from '../shared/protocol.js';

let sessions: ListedSession[] = [];
const listeners = new Set<() => void>();

export function publishSessions(next: ListedSession[]): void {
  if (next === sessions) return;
  sessions = next;
  for (const listener of listeners) listener();
}

export function sessionById(id: string): ListedSession | undefined {
  return sessions.find((s) => s.id === id);
}

/** Called at each new list; returns the unsubscribe. */
export function onSessions(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export interface Rollup {
  /** Children started by the session's `task` calls. */
  count: number;
  costUsd: number;
  tokens: number;
}

/**
 * What the session's children add to its totals: the finished ones as the
 * server counted them (`subtasks`), and those running now as the list shows them live.
 */
export function childrenRollup(session: ListedSession | undefined): Rollup | undefined {
  if (!session) return undefined;
  const done = session.subtasks ?? { count: 0, costUsd: 0, tokens: 0 };
  const running = sessions.filter((s) => s.parent?.session === session.id && s.state !== 'WaitingForUserInput');
  const count = Math.max(done.count, sessions.filter((s) => s.parent?.session === session.id).length);
  if (!count) return undefined;
  return {
    count,
    costUsd: done.costUsd + running.reduce((sum, s) => sum + s.gauge.totalCostUsd, 0),
    tokens: done.tokens + running.reduce((sum, s) => sum + (s.gauge.totalTokens ?? 0), 0),
  };
}
