// The approval gate on a real session log, without the agent: which calls
// wait, what each decision records (decision, by whom, reason, rule), what
// a session rule approves afterwards, a message or a cancel answering a
// waiting call, shutdown leaving it pending, and decisions refused for a
// call that is not waiting.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentState, ApprovalDecisionEvent, ApprovalMode, SkeinEvent } from '../../shared/protocol.js';
import { ApprovalGate, ApprovalSuspended, NoPendingApprovalError } from '../../server/agent/approvals.js';
import { Session } from '../../server/agent/session.js';
import type { ToolCall } from '../../server/llm/types.js';
import { EventLog } from '../../server/store/event-log.js';
import { tempDir } from '../helpers/temp-dir.js';
import { until } from '../helpers/until.js';

function gate(mode: ApprovalMode = 'on-write', session = newSession()) {
  let state: AgentState = 'RunningTools';
  const transitions: string[] = [];
  const stop = new AbortController();
  const g = new ApprovalGate({
    session,
    mode,
    workDir: tempDir('gate-work'),
    state: () => state,
    transition: (to, reason) => {
      state = to;
      transitions.push(`${to}: ${reason}`);
    },
    stopped: stop.signal,
  });
  return { g, session, transitions, stop, state: () => state };
}

function newSession(): Session {
  const id = `gate-${Math.random().toString(36).slice(2, 8)}`;
  const log = EventLog.create(path.join(tempDir('gate'), 'sessions', `${id}.jsonl`), { skein: 1, session: id, createdAt: new Date().toISOString(), model: 'predictable' });
  return new Session(id, log, 'predictable');
}

const bash = (id: string, command: string): ToolCall => ({ id, name: 'bash', input: { command } });
const decisions = (s: Session) => s.log.all().filter((e): e is ApprovalDecisionEvent => e.kind === 'approval_decision');
const kinds = (s: Session) => s.log.all().map((e: SkeinEvent) => e.kind);

/** Starts clearing `call` and waits until it is the call waiting for a decision. */
async function asked(t: ReturnType<typeof gate>, call: ToolCall, signal = new AbortController().signal) {
  const cleared = t.g.clear(call, signal);
  await until(() => t.g.waitingFor === call.id, `${call.id} waiting`);
  // Wrapped: an async function returning the promise itself would wait for it.
  return { done: cleared };
}

describe('the approval gate', () => {
  it('a read-only call and mode never run at once, with nothing recorded', async () => {
    const t = gate();
    expect(await t.g.clear({ id: 'r', name: 'read_file', input: { path: 'x' } }, new AbortController().signal)).toEqual({ run: true });
    const never = gate('never');
    expect(await never.g.clear(bash('b', 'rm -rf x'), new AbortController().signal)).toEqual({ run: true });
    expect(kinds(t.session)).toEqual([]);
    expect(kinds(never.session)).toEqual([]);
    expect(t.g.mode).toBe('on-write');
  });

  it('approve: one request, then the decision by the user, no rule; the call runs', async () => {
    const t = gate();
    const { done: cleared } = await asked(t, bash('c1', 'make'));
    expect(t.state()).toBe('WaitingForApproval');
    const request = t.session.log.all().find((e) => e.kind === 'approval_request');
    expect(request).toMatchObject({ callId: 'c1', name: 'bash', input: { command: 'make' }, rule: { tool: 'bash', command: 'make' } });
    t.g.decide('c1', 'approve');
    expect(await cleared).toEqual({ run: true });
    expect(decisions(t.session)).toEqual([expect.objectContaining({ callId: 'c1', name: 'bash', decision: 'approve', by: 'user' })]);
    expect(decisions(t.session)[0]).not.toHaveProperty('rule');
    expect(decisions(t.session)[0]).not.toHaveProperty('reason');
    expect(t.transitions).toEqual(['WaitingForApproval: bash waits for approval', 'RunningTools: bash approved']);
    expect(t.g.waitingFor).toBeUndefined();
  });

  it('approve for the session records the exact command as the rule; that command then runs by the rule, another asks', async () => {
    const t = gate();
    const { done: first } = await asked(t, bash('c1', 'npm test'));
    t.g.decide('c1', 'approve_session');
    expect(await first).toEqual({ run: true });
    expect(decisions(t.session)[0]).toMatchObject({ decision: 'approve_session', by: 'user', rule: { tool: 'bash', command: 'npm test' } });
    expect(await t.g.clear(bash('c2', 'npm test'), new AbortController().signal)).toEqual({ run: true });
    expect(decisions(t.session)[1]).toMatchObject({ callId: 'c2', name: 'bash', decision: 'approve', by: 'rule', rule: { tool: 'bash', command: 'npm test' } });
    const { done: other } = await asked(t, bash('c3', 'npm test; rm -rf ~'));
    t.g.decide('c3', 'deny', 'no');
    expect(await other).toEqual({ run: false, output: 'denied by the user: no' });
    // A gate made on the same log (a restart) knows the rule.
    const again = gate('on-write', t.session);
    expect(await again.g.clear(bash('c4', 'npm test'), new AbortController().signal)).toEqual({ run: true });
    expect(decisions(t.session).at(-1)).toMatchObject({ callId: 'c4', by: 'rule' });
  });

  it('deny with and without a reason: the call does not run and its output says so', async () => {
    const t = gate();
    const { done: one } = await asked(t, bash('c1', 'rm x'));
    t.g.decide('c1', 'deny', 'use git rm');
    expect(await one).toEqual({ run: false, output: 'denied by the user: use git rm' });
    expect(decisions(t.session)[0]).toMatchObject({ decision: 'deny', by: 'user', reason: 'use git rm' });
    const { done: two } = await asked(t, bash('c2', 'rm y'));
    t.g.decide('c2', 'deny');
    expect(await two).toEqual({ run: false, output: 'denied by the user' });
    expect(t.transitions.at(-1)).toBe('RunningTools: bash denied');
  });

  it('a decision for a call that is not waiting is refused, naming the one that is', async () => {
    const t = gate();
    expect(() => t.g.decide('nope', 'approve')).toThrow(NoPendingApprovalError);
    expect(() => t.g.decide('nope', 'approve')).toThrow('tool call "nope" is not waiting for approval; no tool call is waiting for approval');
    const { done: cleared } = await asked(t, bash('c1', 'make'));
    expect(() => t.g.decide('c2', 'approve')).toThrow('tool call "c2" is not waiting for approval; the call waiting now is c1');
    t.g.decide('c1', 'approve');
    await cleared;
    expect(decisions(t.session)).toHaveLength(1);
  });

  it('a new message denies the waiting call with its text, and the rest of that answer; the next answer asks again', async () => {
    const t = gate();
    const { done: cleared } = await asked(t, bash('c1', 'deploy'));
    t.session.append({ kind: 'user', text: '  stop, deploy tomorrow  ' });
    expect(await cleared).toEqual({ run: false, output: 'denied by the user: stop, deploy tomorrow' });
    expect(decisions(t.session)[0]).toMatchObject({ decision: 'deny', by: 'message', reason: 'stop, deploy tomorrow' });
    expect(await t.g.clear(bash('c2', 'deploy --force'), new AbortController().signal)).toEqual({ run: false, output: 'denied by the user: stop, deploy tomorrow' });
    expect(decisions(t.session)[1]).toMatchObject({ callId: 'c2', decision: 'deny', by: 'message', reason: 'stop, deploy tomorrow' });
    t.g.startAnswer();
    const { done: next } = await asked(t, bash('c3', 'deploy'));
    t.g.decide('c3', 'approve');
    expect(await next).toEqual({ run: true });
  });

  it('a /compact typed meanwhile does not answer the call; a very long message is cut to 2000 characters', async () => {
    const t = gate();
    const { done: cleared } = await asked(t, bash('c1', 'deploy'));
    // The /compact comes first: had it answered the call, the reason would be it.
    t.session.append({ kind: 'user', text: '/compact' });
    t.session.append({ kind: 'user', text: 'x'.repeat(2001) });
    expect(await cleared).toEqual({ run: false, output: `denied by the user: ${'x'.repeat(2000)}…` });
    const t2 = gate();
    const { done: exact } = await asked(t2, bash('c1', 'deploy'));
    t2.session.append({ kind: 'user', text: 'y'.repeat(2000) });
    expect(await exact).toEqual({ run: false, output: `denied by the user: ${'y'.repeat(2000)}` });
  });

  it('a cancel denies the waiting call as cancelled; shutdown leaves it pending, and a restart finds it', async () => {
    const t = gate();
    const cancel = new AbortController();
    const { done: cleared } = await asked(t, bash('c1', 'make'), cancel.signal);
    cancel.abort();
    expect(await cleared).toEqual({ run: false, output: 'denied: cancelled' });
    expect(decisions(t.session)[0]).toMatchObject({ decision: 'deny', by: 'cancel', reason: 'cancelled' });
    expect(t.transitions.at(-1)).toBe('WaitingForApproval: bash waits for approval');

    const s = gate();
    const { done: waiting } = await asked(s, bash('c2', 'make'));
    s.stop.abort();
    await expect(waiting).rejects.toThrow(ApprovalSuspended);
    expect(decisions(s.session)).toEqual([]);
    expect(s.g.waitingFor).toBeUndefined();
    // A restart in WaitingForApproval finds the open request and asks again without a second request event.
    // Not in WaitingForApproval (the gate's state is RunningTools): nothing is pending.
    expect(gate('on-write', s.session).g.pendingInLog()).toBeUndefined();
    const g2 = new ApprovalGate({ session: s.session, mode: 'on-write', workDir: tempDir('gate-work'), state: () => 'WaitingForApproval', transition: () => {}, stopped: new AbortController().signal });
    expect(g2.pendingInLog()).toMatchObject({ callId: 'c2' });
    const resumed = g2.clear(bash('c2', 'make'), new AbortController().signal);
    await until(() => g2.waitingFor === 'c2', 'c2 waiting again');
    g2.decide('c2', 'approve');
    expect(await resumed).toEqual({ run: true });
    expect(s.session.log.all().filter((e) => e.kind === 'approval_request')).toHaveLength(1);
    // Once decided, nothing is open.
    expect(g2.pendingInLog()).toBeUndefined();
  });

  it('an already cancelled or stopped turn does not wait at all', async () => {
    const t = gate();
    const cancelled = new AbortController();
    cancelled.abort();
    expect(await t.g.clear(bash('c1', 'make'), cancelled.signal)).toEqual({ run: false, output: 'denied: cancelled' });
    t.stop.abort();
    await expect(t.g.clear(bash('c2', 'make'), new AbortController().signal)).rejects.toThrow(ApprovalSuspended);
  });
});
