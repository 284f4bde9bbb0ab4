// The worktree action each session has under way (worktree-routes.ts), with
// its cancel: a second action waits its turn by being refused, the session
// (and its worktree) cannot be deleted from under a running git, and the
// user can stop a push (POST .../worktree/cancel).
import type { WorktreeAction } from '../workspace/worktree-actions.js';

export interface Running {
  action: WorktreeAction;
  controller: AbortController;
}

export class RunningActions {
  private readonly running = new Map<string, Running>();

  get(sessionId: string): Running | undefined {
    return this.running.get(sessionId);
  }

  /** Marks `action` as running for the session; undefined when another one already is. */
  start(sessionId: string, action: WorktreeAction): Running | undefined {
    if (this.running.has(sessionId)) return undefined;
    const entry = { action, controller: new AbortController() };
    this.running.set(sessionId, entry);
    return entry;
  }

  end(sessionId: string, entry: Running): void {
    if (this.running.get(sessionId) === entry) this.running.delete(sessionId);
  }
}

/** One registry per Sessions (a process may serve several, in tests). */
const registries = new WeakMap<object, RunningActions>();

export function runningActions(sessions: object): RunningActions {
  let found = registries.get(sessions);
  if (!found) registries.set(sessions, (found = new RunningActions()));
  return found;
}
