// A call that was waiting for approval when the server stopped: after a
// restart it is decided again under today's mode and rules, each decision
// logged with who made it, and the agent leaves WaitingForApproval saying why.
// A fork of a session with a waiting call denies it in the copy.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentState, ApprovalDecisionEvent, ApprovalMode } from '../../shared/protocol.js';
import { ApprovalGate, ApprovalSuspended, FORKED_BEFORE_APPROVAL } from '../../server/agent/approvals.js';
import { previewOf } from '../../server/agent/approval-preview.js';
import { Session } from '../../server/agent/session.js';
import type { ToolCall } from '../../server/llm/types.js';
import { EventLog } from '../../server/store/event-log.js';
import { tempDir } from '../helpers/temp-dir.js';
import { until } from '../helpers/until.js';

const work = tempDir('restart-work');
const bash = (id: string, command: string): ToolCall => ({ id, name: 'bash', input: { command } });
const decisions = (s: Session) => s.log.all().filter((e): e is ApprovalDecisionEvent => e.kind === 'approval_decision');
const never = () => new AbortController().signal;

function newSession(): Session {
  const id = `restart-${Math.random().toString(36).slice(2, 8)}`;
  const log = EventLog.create(path.join(tempDir('restart'), 'sessions', `${id}.jsonl`), { skein: 1, session: id, createdAt: new Date().toISOString(), model: 'predictable' });
  return new Session(id, log, 'predictable');
}

function gate(session: Session, mode: ApprovalMode, initial: AgentState) {
  let state = initial;
  const transitions: string[] = [];
  const stop = new AbortController();
  const g = new ApprovalGate({ session, mode, workDir: work, state: () => state, transition: (to, reason) => ((state = to), transitions.push(`${to}: ${reason}`)), stopped: stop.signal });
  return { g, transitions, stop, state: () => state };
}

/** A session whose log holds a request for `call` still open: the server stopped while it waited. */
async function stoppedWhileWaiting(call: ToolCall, session = newSession()): Promise<Session> {
  const first = gate(session, 'on-write', 'RunningTools');
  const waiting = first.g.clear(call, never());
  await until(() => first.g.waitingFor === call.id, 'waiting');
  first.stop.abort();
  await expect(waiting).rejects.toThrow(ApprovalSuspended);
  return session;
}

describe('a call found waiting after a restart', () => {
  it('under never: it runs, and the reason names SKEIN_APPROVAL, or the session mode once it switched', async () => {
    const s = await stoppedWhileWaiting(bash('c1', 'make'));
    const r = gate(s, 'never', 'WaitingForApproval');
    expect(await r.g.clear(bash('c1', 'make'), never())).toEqual({ run: true });
    expect(r.transitions).toEqual(['RunningTools: SKEIN_APPROVAL is now never: bash runs without asking']);
    // Runs by the mode: no decision of anyone's is made up.
    expect(decisions(s)).toEqual([]);

    const s2 = await stoppedWhileWaiting(bash('c2', 'make'));
    s2.append({ kind: 'mode', from: 'on-write', to: 'never' });
    const r2 = gate(s2, 'on-write', 'WaitingForApproval');
    expect(r2.g.mode).toBe('never');
    expect(await r2.g.clear(bash('c2', 'make'), never())).toEqual({ run: true });
    expect(r2.transitions).toEqual(["RunningTools: the session's mode is now never: bash runs without asking"]);
  });

  it('under plan: a write is refused by the mode, and that decision is logged', async () => {
    const write: ToolCall = { id: 'c1', name: 'write_file', input: { path: 'a.txt', content: 'x' } };
    const s = await stoppedWhileWaiting(write);
    s.append({ kind: 'mode', from: 'on-write', to: 'plan' });
    const r = gate(s, 'on-write', 'WaitingForApproval');
    const cleared = await r.g.clear(write, never());
    expect(cleared.run).toBe(false);
    expect(decisions(s)).toEqual([expect.objectContaining({ callId: 'c1', name: 'write_file', decision: 'deny', by: 'mode', reason: 'the session is in plan mode' })]);
    expect(r.transitions).toEqual(['RunningTools: write_file refused: the session is in plan mode']);
    // Not resumed (a fresh call in plan mode): refused without a decision or a transition.
    const fresh = gate(newSession(), 'plan', 'RunningTools');
    expect((await fresh.g.clear({ ...write, id: 'c9' }, never())).run).toBe(false);
    expect(fresh.transitions).toEqual([]);
    // A bash found waiting runs, read-only.
    const b = await stoppedWhileWaiting(bash('c2', 'make'));
    b.append({ kind: 'mode', from: 'on-write', to: 'plan' });
    expect(await gate(b, 'on-write', 'WaitingForApproval').g.clear(bash('c2', 'make'), never())).toEqual({ run: true, readOnly: true });
  });

  it('covered by a session rule in the log: approved by the rule', async () => {
    // As a log can hold them: the rule was recorded, and a request for a call it covers is still open.
    const s = newSession();
    s.append({ kind: 'approval_decision', callId: 'c0', name: 'bash', decision: 'approve_session', by: 'user', rule: { tool: 'bash', command: 'make' } });
    s.append({ kind: 'approval_request', callId: 'c1', name: 'bash', input: { command: 'make' }, preview: await previewOf('bash', { command: 'make' }, work), rule: { tool: 'bash', command: 'make' } });
    const r = gate(s, 'on-write', 'WaitingForApproval');
    expect(await r.g.clear(bash('c1', 'make'), never())).toEqual({ run: true });
    expect(decisions(s).at(-1)).toMatchObject({ callId: 'c1', decision: 'approve', by: 'rule', rule: { tool: 'bash', command: 'make' } });
    expect(r.transitions).toEqual(['RunningTools: bash approved by a session rule']);
  });

  it('still asking: no second request, the same wait; a call whose input fits no schema is not asked about', async () => {
    const s = await stoppedWhileWaiting(bash('c1', 'make'));
    const r = gate(s, 'on-write', 'WaitingForApproval');
    expect(r.g.pendingInLog()).toMatchObject({ callId: 'c1' });
    r.g.notAsked(bash('c1', 'make'), 'its input does not fit');
    expect(r.transitions).toEqual(['RunningTools: bash is not asked about: its input does not fit']);
    // Another call, or the same one when the agent is not waiting: nothing to end.
    const other = gate(s, 'on-write', 'WaitingForApproval');
    other.g.notAsked(bash('c2', 'make'), 'x');
    const running = gate(s, 'on-write', 'RunningTools');
    running.g.notAsked(bash('c1', 'make'), 'x');
    expect(other.transitions).toEqual([]);
    expect(running.transitions).toEqual([]);
  });

  it('a fork copy denies its waiting call, with a result, once; nothing waiting: nothing logged', async () => {
    const s = await stoppedWhileWaiting(bash('c1', 'make'));
    const copy = gate(s, 'on-write', 'WaitingForApproval');
    expect(copy.g.denyForFork()).toBe(true);
    const tail = s.log.all().slice(-2);
    expect(tail[0]).toMatchObject({ kind: 'approval_decision', callId: 'c1', name: 'bash', decision: 'deny', by: 'cancel', reason: FORKED_BEFORE_APPROVAL });
    expect(tail[1]).toMatchObject({ kind: 'tool_result', callId: 'c1', name: 'bash', output: `denied: ${FORKED_BEFORE_APPROVAL}`, isError: true });
    expect(copy.g.denyForFork()).toBe(false);
    expect(copy.g.pendingInLog()).toBeUndefined();
    expect(gate(newSession(), 'on-write', 'WaitingForApproval').g.denyForFork()).toBe(false);
  });

  it('a request answered by a tool result (no decision) is not open', async () => {
    const s = await stoppedWhileWaiting(bash('c1', 'make'));
    s.append({ kind: 'tool_result', callId: 'c1', name: 'bash', output: 'x', isError: true, durationMs: 0 });
    expect(gate(s, 'on-write', 'WaitingForApproval').g.pendingInLog()).toBeUndefined();
    // An event of another kind after the request does not close it.
    const t = await stoppedWhileWaiting(bash('c2', 'make'));
    t.append({ kind: 'status', text: 'note' } as never);
    expect(gate(t, 'on-write', 'WaitingForApproval').g.pendingInLog()).toMatchObject({ callId: 'c2' });
  });
});

describe('a switch of mode while a call waits', () => {
  it('to never: approved by the mode, logged with the reason, and the transition says so', async () => {
    const s = newSession();
    const t = gate(s, 'on-write', 'RunningTools');
    const waiting = t.g.clear(bash('c1', 'make'), never());
    await until(() => t.g.waitingFor === 'c1', 'waiting');
    expect(t.g.setMode('never')).toBe(true);
    expect(await waiting).toEqual({ run: true });
    expect(decisions(s)).toEqual([expect.objectContaining({ decision: 'approve', by: 'mode', reason: 'the session switched to never mode' })]);
    expect(t.transitions.at(-1)).toBe('RunningTools: bash approved (the session switched to never mode)');
    expect(t.g.waitingFor).toBeUndefined();
    // No call waiting: a switch changes the mode and decides nothing.
    expect(t.g.setMode('always')).toBe(true);
    expect(t.g.setMode('always')).toBe(false);
    expect(decisions(s)).toHaveLength(1);
  });
});
