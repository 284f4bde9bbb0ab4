// An approval gate as the agent builds it (its state machine logs each
// transition as a `state` event), on an in-memory session: what the gate's
// fast tests drive. Waits are bounded by event-loop turns, so a call that
// should have settled and did not fails at once instead of at the timeout.
import { getEventListeners } from 'node:events';
import type { AgentState, ApprovalDecisionEvent, ApprovalMode } from '../../shared/protocol.js';
import { ApprovalGate, type Clearance } from '../../server/agent/approvals.js';
import { StateMachine } from '../../server/agent/state-machine.js';
import type { ToolCall } from '../../server/llm/types.js';
import { MemorySession } from './memory-session.js';
import { tempDir } from './temp-dir.js';

/** One working folder for every gate of the process: the gate only reads it (a test that writes makes its own). */
let sharedWork: string | undefined;

export function gateOn(mode: ApprovalMode, session = new MemorySession(), initial: AgentState = 'RunningTools', workDir = (sharedWork ??= tempDir('gate-work'))) {
  const transitions: string[] = [];
  const machine = new StateMachine(initial, (from, to, reason) => {
    session.append({ kind: 'state', from, to, reason });
    transitions.push(`${to}: ${reason}`);
  });
  const stop = new AbortController();
  const g = new ApprovalGate({ session, mode, workDir, state: () => machine.state, transition: (to, reason) => machine.transition(to, reason), stopped: stop.signal });
  return { g, session, transitions, stop, workDir, state: () => machine.state };
}

export type Harness = ReturnType<typeof gateOn>;

export const bash = (id: string, command: unknown): ToolCall => ({ id, name: 'bash', input: { command } });
export const live = () => new AbortController().signal;
export const decisions = (s: MemorySession) => s.events.filter((e): e is ApprovalDecisionEvent => e.kind === 'approval_decision');
export const requests = (s: MemorySession) => s.events.filter((e) => e.kind === 'approval_request');
export const abortListeners = (signal: AbortSignal) => getEventListeners(signal, 'abort').length;

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Waits, a turn of the event loop at a time (2 s at most), until `check` holds. */
export async function turnsUntil(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 2_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`never happened: ${what}`);
    await turn();
  }
}

/** `p` settled by the next turn of the event loop (what follows a decision settles on microtasks), else a failure now. */
export async function soon<T>(p: Promise<T>): Promise<T> {
  let settled = false;
  const tracked = p.finally(() => (settled = true));
  // Handled here as well: a rejection during the turn is the caller's to see, not an unhandled one.
  tracked.catch(() => {});
  await turn();
  if (!settled) throw new Error('still waiting after the decision');
  return tracked;
}

/** Whether `p` is still unsettled after a turn of the event loop. */
export async function stillWaiting(p: Promise<unknown>): Promise<boolean> {
  let settled = false;
  p.then(
    () => (settled = true),
    () => (settled = true),
  );
  await turn();
  return !settled;
}

/** Starts clearing `call` and returns once it is the call waiting (failing at once if it settled instead). */
export async function asked(t: Harness, call: ToolCall, signal = live()): Promise<{ done: Promise<Clearance> }> {
  let settled = false;
  const done = t.g.clear(call, signal);
  done.then(
    () => (settled = true),
    () => (settled = true),
  );
  await turnsUntil(() => t.g.waitingFor === call.id || settled, `${call.id} waiting`);
  if (t.g.waitingFor !== call.id) throw new Error(`${call.id} did not wait: ${JSON.stringify(await done)}`);
  // Wrapped: an async function returning the promise itself would wait for it.
  return { done };
}
