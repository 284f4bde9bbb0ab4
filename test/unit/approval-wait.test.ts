// A tool call waiting for the user, on the gate alone (an in-memory session,
// the agent's state machine, no disk, no agent loop): what each answer
// records, the rule "approve for this session" grants, a message typed
// meanwhile, a cancel, a shutdown, a switch of mode, and that every ending
// leaves no listener behind (on the turn's signal, the server's, the session).
// The same behaviour on a real session log: approval-gate.test.ts,
// approval-modes.test.ts (npm test).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ApprovalSuspended, NoPendingApprovalError } from '../../server/agent/approvals.js';
import { MemorySession } from '../helpers/memory-session.js';
import { tempDir } from '../helpers/temp-dir.js';
import { abortListeners, asked, bash, decisions, gateOn, live, requests, soon, stillWaiting } from '../helpers/approval-harness.js';

describe('a call waiting for the user', () => {
  it('a read-only call, and any call in mode never, runs at once with nothing recorded', async () => {
    const t = gateOn('on-write');
    expect(await soon(t.g.clear({ id: 'r', name: 'read_file', input: { path: 'x' } }, live()))).toEqual({ run: true });
    const never = gateOn('never');
    expect(await soon(never.g.clear(bash('b', 'rm -rf x'), live()))).toEqual({ run: true });
    expect(t.session.events).toEqual([]);
    expect(never.session.events).toEqual([]);
  });

  it('approve: one request, the decision by the user with no rule or reason, the agent back to running tools', async () => {
    const t = gateOn('on-write');
    const { done } = await asked(t, bash('c1', 'make'));
    expect(t.state()).toBe('WaitingForApproval');
    expect(requests(t.session)).toEqual([expect.objectContaining({ callId: 'c1', name: 'bash', input: { command: 'make' }, preview: { kind: 'command', text: 'make' }, rule: { tool: 'bash', command: 'make' } })]);
    expect(requests(t.session)[0]).not.toHaveProperty('alwaysAsks');
    t.g.decide('c1', 'approve');
    expect(await soon(done)).toEqual({ run: true });
    expect(decisions(t.session)).toEqual([expect.objectContaining({ callId: 'c1', name: 'bash', decision: 'approve', by: 'user' })]);
    expect(decisions(t.session)[0]).not.toHaveProperty('rule');
    expect(decisions(t.session)[0]).not.toHaveProperty('reason');
    expect(t.transitions).toEqual(['WaitingForApproval: bash waits for approval', 'RunningTools: bash approved']);
    expect(t.g.waitingFor).toBeUndefined();
  });

  it('approve for the session records the exact command as the rule; it then runs that command unasked (no request, no transition), and another command asks', async () => {
    const t = gateOn('on-write');
    const { done } = await asked(t, bash('c1', 'npm test'));
    t.g.decide('c1', 'approve_session');
    expect(await soon(done)).toEqual({ run: true });
    expect(decisions(t.session)[0]).toMatchObject({ callId: 'c1', name: 'bash', decision: 'approve_session', by: 'user', rule: { tool: 'bash', command: 'npm test' } });
    const before = t.transitions.length;
    expect(await soon(t.g.clear(bash('c2', 'npm test'), live()))).toEqual({ run: true });
    expect(decisions(t.session)[1]).toMatchObject({ callId: 'c2', name: 'bash', decision: 'approve', by: 'rule', rule: { tool: 'bash', command: 'npm test' } });
    // Still running tools: the rule decided without the agent ever waiting.
    expect(t.transitions).toHaveLength(before);
    expect(requests(t.session)).toHaveLength(1);
    const { done: other } = await asked(t, bash('c3', 'npm test; rm -rf ~'));
    t.g.decide('c3', 'deny', 'no');
    expect(await soon(other)).toEqual({ run: false, output: 'denied by the user: no' });
  });

  it('approve for the session of a protected path records no rule: the same call asks again', async () => {
    const t = gateOn('on-write', new MemorySession(), 'RunningTools', tempDir('gate-git'));
    fs.mkdirSync(path.join(t.workDir, '.git'));
    const write = (id: string) => ({ id, name: 'write_file', input: { path: '.git/config', content: 'x' } });
    const { done } = await asked(t, write('w1'));
    expect(requests(t.session)[0]).toMatchObject({ rule: { tool: 'write_file', path: '.git/config' }, alwaysAsks: expect.stringContaining('.git/') });
    t.g.decide('w1', 'approve_session');
    expect(await soon(done)).toEqual({ run: true });
    expect(decisions(t.session)[0]).toMatchObject({ decision: 'approve_session', by: 'user' });
    expect(decisions(t.session)[0]).not.toHaveProperty('rule');
    const { done: again } = await asked(t, write('w2'));
    t.g.decide('w2', 'deny');
    expect(await soon(again)).toEqual({ run: false, output: 'denied by the user' });
  });

  it('deny, with and without a reason: the call does not run and its output says so', async () => {
    const t = gateOn('on-write');
    const { done: one } = await asked(t, bash('c1', 'rm x'));
    t.g.decide('c1', 'deny', 'use git rm');
    expect(await soon(one)).toEqual({ run: false, output: 'denied by the user: use git rm' });
    expect(decisions(t.session)[0]).toMatchObject({ decision: 'deny', by: 'user', reason: 'use git rm' });
    const { done: two } = await asked(t, bash('c2', 'rm y'));
    t.g.decide('c2', 'deny');
    expect(await soon(two)).toEqual({ run: false, output: 'denied by the user' });
    expect(decisions(t.session)[1]).not.toHaveProperty('reason');
    expect(t.transitions.at(-1)).toBe('RunningTools: bash denied');
  });

  it('a decision for a call that is not waiting is refused, naming the one that is, and records nothing', async () => {
    const t = gateOn('on-write');
    expect(() => t.g.decide('nope', 'approve')).toThrow(NoPendingApprovalError);
    expect(() => t.g.decide('nope', 'approve')).toThrow('tool call "nope" is not waiting for approval; no tool call is waiting for approval');
    const { done } = await asked(t, bash('c1', 'make'));
    expect(() => t.g.decide('c2', 'approve')).toThrow('tool call "c2" is not waiting for approval; the call waiting now is c1');
    expect(await stillWaiting(done)).toBe(true);
    t.g.decide('c1', 'approve');
    await soon(done);
    expect(() => t.g.decide('c1', 'approve')).toThrow(NoPendingApprovalError);
    expect(decisions(t.session)).toHaveLength(1);
  });
});

describe('a message typed while a call waits', () => {
  it('denies it with its text, and the rest of that answer without asking or moving the agent; the next answer asks again', async () => {
    const t = gateOn('on-write');
    const { done } = await asked(t, bash('c1', 'deploy'));
    t.session.append({ kind: 'user', text: '  stop, deploy tomorrow  ' });
    expect(await soon(done)).toEqual({ run: false, output: 'denied by the user: stop, deploy tomorrow' });
    expect(decisions(t.session)[0]).toMatchObject({ callId: 'c1', decision: 'deny', by: 'message', reason: 'stop, deploy tomorrow' });
    expect(t.transitions.at(-1)).toBe('RunningTools: bash denied');
    const moves = t.transitions.length;
    expect(await soon(t.g.clear(bash('c2', 'deploy --force'), live()))).toEqual({ run: false, output: 'denied by the user: stop, deploy tomorrow' });
    expect(decisions(t.session)[1]).toMatchObject({ callId: 'c2', name: 'bash', decision: 'deny', by: 'message', reason: 'stop, deploy tomorrow' });
    expect(t.transitions).toHaveLength(moves);
    expect(requests(t.session)).toHaveLength(1);
    t.g.startAnswer();
    const { done: next } = await asked(t, bash('c3', 'deploy'));
    t.g.decide('c3', 'approve');
    expect(await soon(next)).toEqual({ run: true });
  });

  it('events of other kinds (even with a text) and a /compact do not answer it; a very long message is cut to 2000 characters', async () => {
    const t = gateOn('on-write');
    const { done } = await asked(t, bash('c1', 'deploy'));
    // An MCP server's tools changed meanwhile: a note with a text, not the user's.
    t.session.append({ kind: 'tools_changed', text: 'the tool x appeared', added: ['mcp__s__x'], removed: [] });
    t.session.append({ kind: 'user', text: '/compact' });
    t.session.append({ kind: 'user', text: ' /compact keep the plan ' });
    expect(await stillWaiting(done)).toBe(true);
    expect(t.g.waitingFor).toBe('c1');
    t.session.append({ kind: 'user', text: 'x'.repeat(2001) });
    expect(await soon(done)).toEqual({ run: false, output: `denied by the user: ${'x'.repeat(2000)}…` });
    const t2 = gateOn('on-write');
    const { done: exact } = await asked(t2, bash('c1', 'deploy'));
    t2.session.append({ kind: 'user', text: 'y'.repeat(2000) });
    expect(await soon(exact)).toEqual({ run: false, output: `denied by the user: ${'y'.repeat(2000)}` });
  });
});

describe('a cancel and a shutdown', () => {
  it('a cancel denies the waiting call as cancelled and leaves the agent to the cancel', async () => {
    const t = gateOn('on-write');
    const cancel = new AbortController();
    const { done } = await asked(t, bash('c1', 'make'), cancel.signal);
    cancel.abort();
    expect(await soon(done)).toEqual({ run: false, output: 'denied: cancelled' });
    expect(decisions(t.session)).toEqual([expect.objectContaining({ callId: 'c1', name: 'bash', decision: 'deny', by: 'cancel', reason: 'cancelled' })]);
    expect(t.transitions).toEqual(['WaitingForApproval: bash waits for approval']);
    expect(t.g.waitingFor).toBeUndefined();
  });

  it('a shutdown decides nothing: the request stays open for the restart', async () => {
    const t = gateOn('on-write');
    const { done } = await asked(t, bash('c1', 'make'));
    t.stop.abort();
    await expect(soon(done)).rejects.toThrow(ApprovalSuspended);
    expect(decisions(t.session)).toEqual([]);
    expect(t.g.waitingFor).toBeUndefined();
    expect(t.g.pendingInLog()).toMatchObject({ callId: 'c1' });
  });

  it('an already cancelled or stopped turn does not wait at all', async () => {
    const t = gateOn('on-write');
    const cancelled = new AbortController();
    cancelled.abort();
    expect(await soon(t.g.clear(bash('c1', 'make'), cancelled.signal))).toEqual({ run: false, output: 'denied: cancelled' });
    expect(t.g.waitingFor).toBeUndefined();
    const s = gateOn('on-write');
    s.stop.abort();
    await expect(soon(s.g.clear(bash('c2', 'make'), live()))).rejects.toThrow(ApprovalSuspended);
    expect(s.g.waitingFor).toBeUndefined();
    expect(s.g.pendingInLog()).toMatchObject({ callId: 'c2' });
  });

  it('every ending removes the listeners on the turn signal and the server signal and the session subscription', async () => {
    const endings: Record<string, (t: ReturnType<typeof gateOn>, cancel: AbortController) => void> = {
      approve: (t) => t.g.decide('c1', 'approve'),
      deny: (t) => t.g.decide('c1', 'deny'),
      message: (t) => void t.session.append({ kind: 'user', text: 'no' }),
      cancel: (_t, cancel) => cancel.abort(),
      mode: (t) => void t.g.setMode('never'),
      shutdown: (t) => t.stop.abort(),
    };
    for (const [name, end] of Object.entries(endings)) {
      const t = gateOn('on-write');
      const cancel = new AbortController();
      const { done } = await asked(t, bash('c1', 'make'), cancel.signal);
      expect([name, abortListeners(cancel.signal), abortListeners(t.stop.signal), t.session.subscriptions]).toEqual([name, 1, 1, 1]);
      end(t, cancel);
      await soon(done).catch((err: unknown) => expect(err).toBeInstanceOf(ApprovalSuspended));
      expect([name, abortListeners(cancel.signal), abortListeners(t.stop.signal), t.session.subscriptions]).toEqual([name, 0, 0, 0]);
    }
  });

  it('a later shutdown does not touch a call that already ended: the next call waits on, and only its own wait is suspended', async () => {
    const t = gateOn('on-write');
    const { done: first } = await asked(t, bash('c1', 'make'));
    t.g.decide('c1', 'approve');
    await soon(first);
    const { done: second } = await asked(t, bash('c2', 'make install'));
    t.stop.abort();
    await expect(soon(second)).rejects.toThrow(ApprovalSuspended);
    expect(decisions(t.session).map((d) => d.callId)).toEqual(['c1']);
  });
});

describe('the session rules a gate starts with', () => {
  it('are the rules of approve_session decisions in the log; a rule on any other decision grants nothing', async () => {
    const s = new MemorySession();
    s.append({ kind: 'approval_decision', callId: 'a', name: 'bash', decision: 'approve_session', by: 'user', rule: { tool: 'bash', command: 'make' } });
    // The schema allows a rule on any decision: only the user's approval for the session grants one.
    s.append({ kind: 'approval_decision', callId: 'b', name: 'bash', decision: 'approve', by: 'user', rule: { tool: 'bash', command: 'make deploy' } });
    s.append({ kind: 'approval_decision', callId: 'c', name: 'bash', decision: 'deny', by: 'user', rule: { tool: 'bash', command: 'rm -rf /' } });
    // A protected path's approval for the session: no rule.
    s.append({ kind: 'approval_decision', callId: 'd', name: 'write_file', decision: 'approve_session', by: 'user' });
    const t = gateOn('on-write', s);
    expect(await soon(t.g.clear(bash('c1', 'make'), live()))).toEqual({ run: true });
    expect(decisions(s).at(-1)).toMatchObject({ callId: 'c1', decision: 'approve', by: 'rule', rule: { tool: 'bash', command: 'make' } });
    for (const [id, command] of [['c2', 'make deploy'], ['c3', 'rm -rf /']] as const) {
      const { done } = await asked(t, bash(id, command));
      t.g.decide(id, 'deny');
      await soon(done);
    }
    expect(requests(s).map((r) => (r.kind === 'approval_request' ? r.callId : ''))).toEqual(['c2', 'c3']);
  });
});
