// The status an editor shows for each tool call (server/acp/call-status.ts),
// for every mode and kind of tool, every decision and who made it; and when a
// prompt's turn is over and which stop reason ends it (server/acp/turn.ts).
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { SessionUpdate } from '@agentclientprotocol/sdk';
import type { ApprovalDecisionEvent, ApprovalMode, SkeinEvent } from '../../shared/protocol.js';
import { CallStatus } from '../../server/acp/call-status.js';
import { endingOf, IDLE, TurnWatch } from '../../server/acp/turn.js';
import { tempDir } from '../helpers/temp-dir.js';

const ids = (updates: SessionUpdate[]) =>
  updates.map((u) => {
    expect(u.sessionUpdate).toBe('tool_call_update');
    return `${(u as { toolCallId: string }).toolCallId}:${(u as { status: string }).status}`;
  });
const decision = (callId: string, fields: Partial<ApprovalDecisionEvent>): ApprovalDecisionEvent => ({ seq: 1, ts: '', kind: 'approval_decision', callId, name: 'bash', decision: 'approve', by: 'user', ...fields }) as ApprovalDecisionEvent;

/** Three calls announced (a read, a command, a read), then tools start: which start at once. */
function startsIn(mode: ApprovalMode, second = 'bash'): string[] {
  const s = new CallStatus(() => mode, '/w');
  s.announced('r1', { name: 'read_file', input: { path: 'a' } });
  s.announced('x2', { name: second, input: { command: 'make', path: 'b', content: '' } });
  s.announced('r3', { name: 'read_file', input: { path: 'c' } });
  return ids(s.state('RunningTools'));
}

describe('acp call status', () => {
  it('starts the calls ahead of the first one the mode asks about or refuses', () => {
    expect(startsIn('never')).toEqual(['r1:in_progress', 'x2:in_progress', 'r3:in_progress']);
    expect(startsIn('on-write')).toEqual(['r1:in_progress']);
    expect(startsIn('on-write', 'write_file')).toEqual(['r1:in_progress']);
    expect(startsIn('on-write', 'mcp__s__t')).toEqual(['r1:in_progress']);
    expect(startsIn('on-write', 'grep')).toEqual(['r1:in_progress', 'x2:in_progress', 'r3:in_progress']);
    expect(startsIn('always')).toEqual([]);
    // Plan mode refuses a write (held: its result comes, failed); its bash runs read-only, without asking.
    expect(startsIn('plan', 'write_file')).toEqual(['r1:in_progress']);
    expect(startsIn('plan')).toEqual(['r1:in_progress', 'x2:in_progress', 'r3:in_progress']);
  });

  it('starts nothing on a state other than RunningTools, and nothing on a result unless tools run', () => {
    const fresh = new CallStatus(() => 'never', undefined);
    fresh.announced('a', { name: 'bash', input: { command: 'ls' } });
    fresh.announced('b', { name: 'bash', input: { command: 'ls' } });
    expect(fresh.finished('a')).toEqual([]);
    const s = new CallStatus(() => 'never', undefined);
    s.announced('a', { name: 'bash', input: { command: 'ls' } });
    for (const to of ['ProcessingLLMResponse', 'WaitingForApproval', 'WaitingForUserInput', 'EndOfTurn', 'runningtools']) expect(s.state(to), to).toEqual([]);
    s.announced('b', { name: 'bash', input: { command: 'ls' } });
    // Before any state, and after the turn ended: a result starts nothing.
    expect(s.finished('a')).toEqual([]);
    s.state('EndOfTurn');
    expect(s.finished('a')).toEqual([]);
    expect(ids(s.state('RunningTools'))).toEqual(['b:in_progress']);
    // While tools run, a result starts the calls announced since.
    s.announced('c', { name: 'bash', input: { command: 'ls' } });
    expect(ids(s.finished('b'))).toEqual(['c:in_progress']);
  });

  it('after a result, the next calls start while tools run (also while waiting for approval)', () => {
    const mode: { now: ApprovalMode } = { now: 'always' };
    const s = new CallStatus(() => mode.now, '/w');
    s.announced('a', { name: 'bash', input: { command: 'ls' } });
    s.announced('b', { name: 'bash', input: { command: 'pwd' } });
    expect(s.state('WaitingForApproval')).toEqual([]);
    mode.now = 'never';
    expect(ids(s.finished('a'))).toEqual(['b:in_progress']);
    expect(s.finished('b')).toEqual([]);
  });

  it('a call asked about goes (back) to pending once; one still waiting stays as it is', () => {
    const s = new CallStatus(() => 'never', '/w');
    s.announced('a', { name: 'bash', input: { command: 'ls' } });
    expect(s.requested('a', { name: 'bash', input: { command: 'ls' } })).toEqual([]);
    s.state('RunningTools');
    expect(s.requested('a', { name: 'bash', input: { command: 'ls' } })).toEqual([{ sessionUpdate: 'tool_call_update', toolCallId: 'a', status: 'pending' }]);
    expect(s.requested('a', { name: 'bash', input: { command: 'ls' } })).toEqual([]);
  });

  it('an approval starts a held call; one that had started already gets nothing more', () => {
    const s = new CallStatus(() => 'always', '/w');
    s.announced('a', { name: 'bash', input: { command: 'ls' } });
    for (const d of ['approve', 'approve_session'] as const) {
      s.announced('a', { name: 'bash', input: { command: 'ls' } });
      expect(ids(s.decided(decision('a', { decision: d })))).toEqual(['a:in_progress']);
      expect(s.decided(decision('a', { decision: d }))).toEqual([]);
    }
  });

  it('"always allow" lets the same command start without asking; another command, or a plain approval, does not', () => {
    const run = (decided: Partial<ApprovalDecisionEvent>, next: string) => {
      const s = new CallStatus(() => 'on-write', '/w');
      s.announced('a', { name: 'bash', input: { command: 'make' } });
      s.decided(decision('a', decided));
      s.announced('b', { name: 'bash', input: { command: next } });
      return ids(s.state('RunningTools'));
    };
    expect(run({ decision: 'approve_session', rule: { tool: 'bash', command: 'make' } }, 'make')).toEqual(['b:in_progress']);
    expect(run({ decision: 'approve_session', rule: { tool: 'bash', command: 'make' } }, 'make install')).toEqual([]);
    expect(run({ decision: 'approve_session' }, 'make')).toEqual([]);
    expect(run({ decision: 'approve', rule: { tool: 'bash', command: 'make' } }, 'make')).toEqual([]);
    expect(run({ decision: 'deny', rule: { tool: 'bash', command: 'make' } }, 'make')).toEqual([]);
  });

  it('a path rule covers the same file named by its full path in the working folder', () => {
    const run = (workDir: string | undefined, file: string) => {
      const s = new CallStatus(() => 'on-write', workDir);
      s.decided(decision('a', { decision: 'approve_session', name: 'write_file', rule: { tool: 'write_file', path: 'src/a.ts' } }));
      s.announced('b', { name: 'write_file', input: { path: file, content: '' } });
      return ids(s.state('RunningTools'));
    };
    const work = fs.realpathSync(tempDir('acp-call-status'));
    expect(run(work, `${work}/src/a.ts`)).toEqual(['b:in_progress']);
    expect(run(work, 'src/a.ts')).toEqual(['b:in_progress']);
    expect(run(work, `${work}/src/b.ts`)).toEqual([]);
    // No folder known: no path can be checked, so the call is guessed to ask.
    expect(run(undefined, `${work}/src/a.ts`)).toEqual([]);
  });

  it('a denied call fails at once, saying who denied it and why', () => {
    const denied = (fields: Partial<ApprovalDecisionEvent>) => {
      const s = new CallStatus(() => 'always', '/w');
      const [update, ...rest] = s.decided(decision('a', { decision: 'deny', ...fields }));
      expect(rest).toEqual([]);
      expect(update).toMatchObject({ sessionUpdate: 'tool_call_update', toolCallId: 'a', status: 'failed' });
      return (update as unknown as { content: [{ type: string; content: { type: string; text: string } }] }).content;
    };
    expect(denied({ by: 'user' })).toEqual([{ type: 'content', content: { type: 'text', text: 'Denied by the user' } }]);
    const text = (fields: Partial<ApprovalDecisionEvent>) => denied(fields)[0].content.text;
    expect(text({ by: 'user', reason: 'no' })).toBe('Denied by the user: no');
    expect(text({ by: 'message' })).toBe('Denied: the user sent a message instead');
    expect(text({ by: 'message', reason: 'stop' })).toBe('Denied: the user sent a message instead: stop');
    expect(text({ by: 'cancel' })).toBe('Denied: the turn was cancelled');
    expect(text({ by: 'cancel', reason: 'cancelled' })).toBe('Denied: the turn was cancelled');
    expect(text({ by: 'cancel', reason: 'the user left' })).toBe('Denied: the turn was cancelled: the user left');
    expect(text({ by: 'mode' })).toBe("Denied by the session's mode");
    expect(text({ by: 'mode', reason: 'plan' })).toBe("Denied by the session's mode: plan");
    expect(text({ by: 'rule' })).toBe('Denied');
    expect(text({ by: 'rule', reason: 'r' })).toBe('Denied: r');
    expect(text({ by: 'user', reason: '' })).toBe('Denied by the user');
  });
});

const ts = '';
const user = (seq: number, text: string): SkeinEvent => ({ seq, ts, kind: 'user', text });
const state = (seq: number, from: string, to: string): SkeinEvent => ({ seq, ts, kind: 'state', from, to, reason: '' }) as SkeinEvent;

describe('acp turn endings', () => {
  it('map how a turn ended to its stop reason or error', () => {
    expect(endingOf(undefined, undefined, undefined)).toEqual({ stopReason: 'end_turn' });
    expect(endingOf(undefined, undefined, undefined, true)).toEqual({ stopReason: 'max_tokens' });
    expect(endingOf('Cancelled', 'turn_limit', 'x', true)).toEqual({ stopReason: 'cancelled' });
    expect(endingOf('Error', undefined, undefined)).toEqual({ error: 'the turn ended in an error', code: undefined });
    expect(endingOf('Error', 'provider_499', 'm')).toEqual({ stopReason: 'refusal' });
    expect(endingOf('Error', 'provider_400', 'm')).toEqual({ stopReason: 'refusal' });
    expect(endingOf('Error', 'context_overflow', 'too long')).toEqual({ stopReason: 'refusal' });
    expect(endingOf('EndOfTurn', 'context_overflow', 'too long')).toEqual({ stopReason: 'end_turn' });
    // A rate limit is no refusal: the turn failed, with its message.
    expect(endingOf('Error', 'provider_429', 'slow down')).toEqual({ error: 'slow down', code: 'provider_429' });
    expect(endingOf('Error', '', 'm')).toEqual({ error: 'm', code: '' });
    for (const code of ['provider_4000', 'xprovider_400', 'provider_40', 'provider_5xx', 'provider_4ab']) expect(endingOf('Error', code, 'm'), code).toEqual({ error: 'm', code });
  });

  const watch = (events: SkeinEvent[], busy = false) => {
    const w = new TurnWatch('go', busy);
    return events.map((e) => w.see(e));
  };

  it('is over when the agent comes back to waiting after the prompt, not before', () => {
    const seen = watch([state(1, IDLE, 'ProcessingLLMResponse'), state(2, 'ProcessingLLMResponse', IDLE), user(3, 'other'), user(4, 'go'), state(5, IDLE, 'ProcessingLLMResponse'), state(6, 'ProcessingLLMResponse', 'EndOfTurn'), state(7, 'EndOfTurn', IDLE)]);
    expect(seen).toEqual([undefined, undefined, undefined, undefined, undefined, undefined, { stopReason: 'end_turn' }]);
  });

  it("an earlier turn's end, and the prompt's text in another event, are not this prompt's turn", () => {
    expect(watch([user(1, 'other'), state(2, IDLE, 'ProcessingLLMResponse'), state(3, 'EndOfTurn', IDLE), user(4, 'go'), state(5, IDLE, 'ProcessingLLMResponse'), state(6, 'EndOfTurn', IDLE)]).at(2)).toBeUndefined();
    const agentSaysGo = { seq: 1, ts, kind: 'agent', text: 'go', model: 'm', endOfTurn: true } as SkeinEvent;
    expect(watch([agentSaysGo, state(2, IDLE, 'ProcessingLLMResponse'), state(3, 'EndOfTurn', IDLE)])).toEqual([undefined, undefined, undefined]);
  });

  it('the last way the turn went decides: an error that the turn got past ends it normally', () => {
    const seen = watch([user(1, 'go'), state(2, IDLE, 'ProcessingLLMResponse'), state(3, 'ProcessingLLMResponse', 'Error'), state(4, 'Error', 'EndOfTurn'), state(5, 'EndOfTurn', IDLE)]);
    expect(seen.at(-1)).toEqual({ stopReason: 'end_turn' });
    const cancelled = watch([user(1, 'go'), state(2, IDLE, 'ProcessingLLMResponse'), state(3, 'ProcessingLLMResponse', 'Error'), state(4, 'Error', 'Cancelled'), state(5, 'Cancelled', IDLE)]);
    expect(cancelled.at(-1)).toEqual({ stopReason: 'cancelled' });
  });

  it('a prompt that joins a running turn ends when that turn does; an idle one only after it started', () => {
    expect(watch([user(1, 'go'), state(2, 'RunningTools', IDLE)], true)).toEqual([undefined, { stopReason: 'end_turn' }]);
    expect(watch([user(1, 'go'), state(2, 'RunningTools', IDLE)])).toEqual([undefined, undefined]);
  });

  it('says cancelled, a turn limit, a refusal, an answer left cut, or the error', () => {
    const ending = (...middle: SkeinEvent[]) => watch([user(1, 'go'), state(2, IDLE, 'ProcessingLLMResponse'), ...middle, state(9, 'X', IDLE)]).at(-1);
    expect(ending(state(3, 'RunningTools', 'Cancelled'))).toEqual({ stopReason: 'cancelled' });
    expect(ending({ seq: 3, ts, kind: 'error', code: 'turn_limit', message: 'Stopped' } as SkeinEvent, state(4, 'X', 'Error'))).toEqual({ stopReason: 'max_turn_requests' });
    expect(ending({ seq: 3, ts, kind: 'error', code: 'provider_500', message: 'broken' } as SkeinEvent, state(4, 'X', 'Error'))).toEqual({ error: 'broken', code: 'provider_500' });
    // A retry note is not the turn's error.
    expect(ending({ seq: 3, ts, kind: 'error', code: 'provider_500', message: 'broken' } as SkeinEvent, { seq: 4, ts, kind: 'error', code: 'retrying', message: 'again' } as SkeinEvent, state(5, 'X', 'Error'))).toEqual({ error: 'broken', code: 'provider_500' });
    expect(ending({ seq: 3, ts, kind: 'error', code: 'provider_500', message: 'broken' } as SkeinEvent, state(4, 'X', 'EndOfTurn'))).toEqual({ stopReason: 'end_turn' });
    expect(ending({ seq: 3, ts, kind: 'answer_cut', text: undefined } as unknown as SkeinEvent, state(4, 'X', 'EndOfTurn'))).toEqual({ stopReason: 'max_tokens' });
    // Continued (a note says so), or a retry of the cut (again): not left cut.
    expect(ending({ seq: 3, ts, kind: 'answer_cut', text: 'continued' } as unknown as SkeinEvent, state(4, 'X', 'EndOfTurn'))).toEqual({ stopReason: 'end_turn' });
    expect(ending({ seq: 3, ts, kind: 'answer_cut', text: undefined } as unknown as SkeinEvent, { seq: 4, ts, kind: 'answer_cut', text: 'continued' } as unknown as SkeinEvent, state(5, 'X', 'EndOfTurn'))).toEqual({ stopReason: 'end_turn' });
    expect(ending({ seq: 3, ts, kind: 'answer_cut', text: undefined } as unknown as SkeinEvent, { seq: 4, ts, kind: 'answer_cut', again: true, text: 'x' } as unknown as SkeinEvent, state(5, 'X', 'EndOfTurn'))).toEqual({ stopReason: 'max_tokens' });
  });
});
