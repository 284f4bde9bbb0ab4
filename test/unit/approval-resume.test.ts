// A call decided again: after a restart (the request still open in the log,
// the agent in WaitingForApproval) under today's mode and rules, when the user
// switches the mode while it waits, and in a fork's copy; and which calls a
// restart asks about again (unansweredCalls). The gate alone, on an in-memory
// session. On a real session log: approvals-restart.test.ts, approval-modes.test.ts.
import { describe, expect, it } from 'vitest';
import type { SkeinEvent } from '../../shared/protocol.js';
import { ApprovalSuspended, FORKED_BEFORE_APPROVAL, unansweredCalls } from '../../server/agent/approvals.js';
import type { ToolCall } from '../../server/llm/types.js';
import { MemorySession } from '../helpers/memory-session.js';
import { asked, bash, decisions, gateOn, live, requests, soon, stillWaiting } from '../helpers/approval-harness.js';
import { LogBuilder } from '../helpers/events.js';

/** The log of a server stopped while `call` waited: its request open, the agent in WaitingForApproval. */
async function stoppedWhileWaiting(call: ToolCall, session = new MemorySession()): Promise<MemorySession> {
  const first = gateOn('on-write', session);
  const { done } = await asked(first, call);
  first.stop.abort();
  await expect(soon(done)).rejects.toThrow(ApprovalSuspended);
  return session;
}

/** The gate a restart builds on that log. */
const restarted = (s: MemorySession, mode: Parameters<typeof gateOn>[0] = 'on-write') => gateOn(mode, s, 'WaitingForApproval');

describe('a call found waiting after a restart', () => {
  it('still asking: pending once, the same request (no second), the same wait, decided once', async () => {
    const s = await stoppedWhileWaiting(bash('c1', 'make'));
    const r = restarted(s);
    expect(r.g.pendingInLog()).toMatchObject({ callId: 'c1' });
    // Not in WaitingForApproval (the turn was closed): nothing pending.
    expect(gateOn('on-write', s).g.pendingInLog()).toBeUndefined();
    const { done } = await asked(r, bash('c1', 'make'));
    expect(requests(s)).toHaveLength(1);
    r.g.decide('c1', 'approve');
    expect(await soon(done)).toEqual({ run: true });
    expect(decisions(s)).toEqual([expect.objectContaining({ callId: 'c1', decision: 'approve', by: 'user' })]);
    expect(r.transitions).toEqual(['RunningTools: bash approved']);
    expect(r.g.pendingInLog()).toBeUndefined();
  });

  it('messages typed before the restart: the first one denies it, once, and the wait keeps no subscription', async () => {
    const s = await stoppedWhileWaiting(bash('c1', 'deploy'));
    s.append({ kind: 'user', text: 'not today' });
    s.append({ kind: 'user', text: 'really not' });
    await soon(Promise.resolve());
    const r = restarted(s);
    expect(await soon(r.g.clear(bash('c1', 'deploy'), live()))).toEqual({ run: false, output: 'denied by the user: not today' });
    expect(decisions(s)).toEqual([expect.objectContaining({ callId: 'c1', decision: 'deny', by: 'message', reason: 'not today' })]);
    expect(r.transitions).toEqual(['RunningTools: bash denied']);
    expect(s.subscriptions).toBe(0);
    // A message after the wait ended answers nothing more.
    s.append({ kind: 'user', text: 'later' });
    await soon(Promise.resolve());
    expect(decisions(s)).toHaveLength(1);
  });

  it('under never: it runs, and the reason names SKEIN_APPROVAL, or the session mode once it switched', async () => {
    const s = await stoppedWhileWaiting(bash('c1', 'make'));
    const r = restarted(s, 'never');
    expect(await soon(r.g.clear(bash('c1', 'make'), live()))).toEqual({ run: true });
    expect(r.transitions).toEqual(['RunningTools: SKEIN_APPROVAL is now never: bash runs without asking']);
    // Runs by the mode: no decision of anyone's is made up.
    expect(decisions(s)).toEqual([]);

    const s2 = await stoppedWhileWaiting(bash('c2', 'make'));
    s2.append({ kind: 'mode', from: 'on-write', to: 'never' });
    const r2 = restarted(s2);
    expect(r2.g.mode).toBe('never');
    expect(await soon(r2.g.clear(bash('c2', 'make'), live()))).toEqual({ run: true });
    expect(r2.transitions).toEqual(["RunningTools: the session's mode is now never: bash runs without asking"]);
  });

  it('under plan: a write is refused by the mode, logged; a fresh call in plan mode is refused with neither', async () => {
    const write: ToolCall = { id: 'c1', name: 'write_file', input: { path: 'a.txt', content: 'x' } };
    const s = await stoppedWhileWaiting(write);
    s.append({ kind: 'mode', from: 'on-write', to: 'plan' });
    const r = restarted(s);
    const cleared = await soon(r.g.clear(write, live()));
    expect(cleared).toMatchObject({ run: false, output: expect.stringMatching(/^refused: this session is in plan mode/) });
    expect(decisions(s)).toEqual([expect.objectContaining({ callId: 'c1', name: 'write_file', decision: 'deny', by: 'mode', reason: 'the session is in plan mode' })]);
    expect(r.transitions).toEqual(['RunningTools: write_file refused: the session is in plan mode']);
    const fresh = gateOn('plan');
    expect((await soon(fresh.g.clear({ ...write, id: 'c9' }, live()))).run).toBe(false);
    expect(fresh.transitions).toEqual([]);
    expect(fresh.session.events).toEqual([]);
  });

  it('under plan: a waiting bash runs read-only (in the sandbox), without asking and with no decision made up', async () => {
    const s = await stoppedWhileWaiting(bash('c1', 'make'));
    s.append({ kind: 'mode', from: 'on-write', to: 'plan' });
    const r = restarted(s);
    expect(await soon(r.g.clear(bash('c1', 'make'), live()))).toEqual({ run: true, readOnly: true });
    expect(decisions(s)).toEqual([]);
    expect(r.transitions).toEqual(["RunningTools: the session's mode is now plan: bash runs without asking in the read-only sandbox"]);
  });

  it('covered by a session rule in the log: approved by the rule, and the agent moves on', async () => {
    const s = new MemorySession();
    s.append({ kind: 'approval_decision', callId: 'c0', name: 'bash', decision: 'approve_session', by: 'user', rule: { tool: 'bash', command: 'make' } });
    // As a log can hold them: the rule was recorded, and a request for a call it covers is still open.
    s.append({ kind: 'approval_request', callId: 'c1', name: 'bash', input: { command: 'make' }, preview: { kind: 'command', text: 'make' }, rule: { tool: 'bash', command: 'make' } });
    const r = restarted(s);
    expect(await soon(r.g.clear(bash('c1', 'make'), live()))).toEqual({ run: true });
    expect(decisions(s).at(-1)).toMatchObject({ callId: 'c1', decision: 'approve', by: 'rule', rule: { tool: 'bash', command: 'make' } });
    expect(r.transitions).toEqual(['RunningTools: bash approved by a session rule']);
  });

  it('a call whose input fits no schema is not asked about: the wait ends, only for that call and only when waiting', async () => {
    const s = await stoppedWhileWaiting(bash('c1', 'make'));
    const r = restarted(s);
    r.g.notAsked(bash('c1', 'make'), 'its input does not fit');
    expect(r.transitions).toEqual(['RunningTools: bash is not asked about: its input does not fit']);
    const other = restarted(s);
    other.g.notAsked(bash('c2', 'make'), 'x');
    const running = gateOn('on-write', s);
    running.g.notAsked(bash('c1', 'make'), 'x');
    expect(other.transitions).toEqual([]);
    expect(running.transitions).toEqual([]);
  });

  it('a request answered by a tool result is not open; an event of another kind after it does not close it', async () => {
    const s = await stoppedWhileWaiting(bash('c1', 'make'));
    s.append({ kind: 'tool_result', callId: 'c1', name: 'bash', output: 'x', isError: true, durationMs: 0 });
    expect(restarted(s).g.pendingInLog()).toBeUndefined();
    const t = await stoppedWhileWaiting(bash('c2', 'make'));
    t.append({ kind: 'user', text: 'hello' });
    expect(restarted(t).g.pendingInLog()).toMatchObject({ callId: 'c2' });
  });

  it('a fork copy denies its waiting call, with a result, once; nothing waiting: nothing logged', async () => {
    const s = await stoppedWhileWaiting(bash('c1', 'make'));
    const copy = restarted(s);
    expect(copy.g.denyForFork()).toBe(true);
    const tail = s.events.slice(-2);
    expect(tail[0]).toMatchObject({ kind: 'approval_decision', callId: 'c1', name: 'bash', decision: 'deny', by: 'cancel', reason: FORKED_BEFORE_APPROVAL });
    expect(tail[1]).toMatchObject({ kind: 'tool_result', callId: 'c1', name: 'bash', output: `denied: ${FORKED_BEFORE_APPROVAL}`, isError: true });
    expect(copy.g.denyForFork()).toBe(false);
    expect(copy.g.pendingInLog()).toBeUndefined();
    const empty = restarted(new MemorySession());
    expect(empty.g.denyForFork()).toBe(false);
    expect(empty.session.events).toEqual([]);
  });

  it('a fork cut after a call was decided (approved, not run yet) denies nothing: nothing waits there', async () => {
    const s = new MemorySession();
    const t = gateOn('on-write', s);
    const { done } = await asked(t, bash('c1', 'make'));
    t.g.decide('c1', 'approve');
    await soon(done);
    const before = s.events.length;
    // The copy's gate (its agent state as the copied log left it) finds no open request.
    const copy = restarted(s);
    expect(copy.g.pendingInLog()).toBeUndefined();
    expect(copy.g.denyForFork()).toBe(false);
    expect(s.events).toHaveLength(before);
  });
});

describe('a switch of mode while a call waits', () => {
  const read: ToolCall = { id: 'r', name: 'read_file', input: { path: 'a.txt' } };
  const mcp: ToolCall = { id: 'm', name: 'mcp__srv__do', input: {} };

  it('to never: approved by the mode, logged with the reason after the switch, and the transition says so', async () => {
    const t = gateOn('on-write');
    const { done } = await asked(t, bash('c1', 'make'));
    expect(t.g.setMode('never')).toBe(true);
    expect(await soon(done)).toEqual({ run: true });
    expect(decisions(t.session)).toEqual([expect.objectContaining({ callId: 'c1', name: 'bash', decision: 'approve', by: 'mode', reason: 'the session switched to never mode' })]);
    expect(t.transitions.at(-1)).toBe('RunningTools: bash approved (the session switched to never mode)');
    expect(t.g.waitingFor).toBeUndefined();
    const kinds = t.session.events.map((e) => e.kind);
    expect(kinds.indexOf('mode')).toBeLessThan(kinds.indexOf('approval_decision'));
    // No call waiting: a switch changes the mode and decides nothing.
    expect(t.g.setMode('always')).toBe(true);
    expect(t.g.setMode('always')).toBe(false);
    expect(decisions(t.session)).toHaveLength(1);
  });

  it('to plan: a waiting MCP call is refused with the plan reason', async () => {
    const t = gateOn('always');
    const { done } = await asked(t, mcp);
    expect(t.g.setMode('plan')).toBe(true);
    expect(await soon(done)).toMatchObject({ run: false, output: expect.stringMatching(/^refused: this session is in plan mode/) });
    expect(decisions(t.session)).toEqual([expect.objectContaining({ callId: 'm', decision: 'deny', by: 'mode', reason: 'the session switched to plan mode' })]);
    expect(t.transitions.at(-1)).toBe('RunningTools: mcp__srv__do denied (the session switched to plan mode)');
  });

  it('to plan: a waiting bash is approved by the mode and runs read-only', async () => {
    const t = gateOn('always');
    const { done } = await asked(t, bash('b', 'ls'));
    expect(t.g.setMode('plan')).toBe(true);
    expect(await soon(done)).toEqual({ run: true, readOnly: true });
    expect(decisions(t.session)).toEqual([expect.objectContaining({ callId: 'b', decision: 'approve', by: 'mode', reason: 'the session switched to plan mode' })]);
    // Approved under always, it would have run as it is: a user's approval is not read-only.
    const u = gateOn('always');
    const asked2 = await asked(u, bash('b2', 'ls'));
    u.g.decide('b2', 'approve');
    expect(await soon(asked2.done)).toEqual({ run: true });
  });

  it('to on-write: a waiting read runs, a waiting write keeps waiting (the switch still reported as a change)', async () => {
    const t = gateOn('always');
    const { done: r } = await asked(t, read);
    expect(t.g.setMode('on-write')).toBe(true);
    expect(await soon(r)).toEqual({ run: true });
    const { done: b } = await asked(t, bash('b', 'ls'));
    expect(t.g.setMode('always')).toBe(true);
    expect(t.g.setMode('on-write')).toBe(true);
    expect(await stillWaiting(b)).toBe(true);
    expect(t.g.waitingFor).toBe('b');
    t.g.decide('b', 'deny', 'not now');
    expect(await soon(b)).toEqual({ run: false, output: 'denied by the user: not now' });
    expect(decisions(t.session).map((d) => `${d.callId} ${d.decision} ${d.by}`)).toEqual(['r approve mode', 'b deny user']);
    expect(t.session.events.filter((e) => e.kind === 'mode').map((e) => (e.kind === 'mode' ? `${e.from}>${e.to}` : ''))).toEqual(['always>on-write', 'on-write>always', 'always>on-write']);
  });

  it('a gate built on the log (a restart) starts in the last mode switched to, not SKEIN_APPROVAL', () => {
    const t = gateOn('never');
    expect(t.g.setMode('plan')).toBe(true);
    expect(gateOn('never', t.session).g.mode).toBe('plan');
    expect(gateOn('always').g.mode).toBe('always');
  });
});

describe('the calls a restart asks about again', () => {
  const call = (id: string) => ({ kind: 'tool_call', callId: id, name: 'bash', input: { command: `run ${id}` } }) as const;

  it('are the calls of the last answer without a result, in order', () => {
    const log = new LogBuilder();
    log.user('x');
    log.tools(['old'], true);
    log.tools(['a', 'b', 'c'], false);
    log.result('a');
    expect(unansweredCalls(log.events)).toEqual([
      { id: 'b', name: 'bash', input: { command: 'run b' } },
      { id: 'c', name: 'bash', input: { command: 'run c' } },
    ]);
  });

  it('not a call of an earlier answer left without a result, even the event just before the last answer', () => {
    const log = new LogBuilder();
    log.user('x');
    log.agent('', false);
    log.add(call('lost'));
    log.agent('', false);
    log.add(call('a'));
    expect(unansweredCalls(log.events).map((c) => c.id)).toEqual(['a']);
  });

  it('one entry per call: the request, decision and state events about it add none', () => {
    const log = new LogBuilder();
    log.agent('', false);
    log.add(call('a'));
    log.add({ kind: 'approval_request', callId: 'a', name: 'bash', input: { command: 'run a' }, preview: { kind: 'command', text: 'run a' }, rule: { tool: 'bash', command: 'run a' } });
    log.add({ kind: 'state', from: 'RunningTools', to: 'WaitingForApproval', reason: 'bash waits for approval' });
    log.add({ kind: 'approval_decision', callId: 'a', name: 'bash', decision: 'approve', by: 'user' });
    expect(unansweredCalls(log.events as SkeinEvent[])).toEqual([{ id: 'a', name: 'bash', input: { command: 'run a' } }]);
    // No answer at all yet: nothing to ask about.
    expect(unansweredCalls([])).toEqual([]);
  });
});
