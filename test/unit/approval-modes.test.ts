// Approval modes per session, on the gate and a real session log: what each
// mode does to each kind of call (plan refuses writes and MCP tools with a
// reason, and runs bash read-only without asking), a switch logged as a `mode` event and replayed by a new
// gate on the same log (a restart), and a switch while a call waits: decided
// again under the new mode.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentState, ApprovalDecisionEvent, ApprovalMode } from '../../shared/protocol.js';
import { parseModeBody } from '../../shared/modes.js';
import { ApprovalGate, needsApproval } from '../../server/agent/approvals.js';
import { verdictOf } from '../../server/agent/mode-rules.js';
import { Session } from '../../server/agent/session.js';
import type { ToolCall } from '../../server/llm/types.js';
import { EventLog } from '../../server/store/event-log.js';
import { tempDir } from '../helpers/temp-dir.js';
import { until } from '../helpers/until.js';

function gate(mode: ApprovalMode, session = newSession()) {
  let state: AgentState = 'RunningTools';
  const transitions: string[] = [];
  const g = new ApprovalGate({
    session,
    mode,
    workDir: tempDir('modes-work'),
    state: () => state,
    transition: (to, reason) => {
      state = to;
      transitions.push(`${to}: ${reason}`);
    },
    stopped: new AbortController().signal,
  });
  return { g, session, transitions };
}

function newSession(): Session {
  const id = `modes-${Math.random().toString(36).slice(2, 8)}`;
  const log = EventLog.create(path.join(tempDir('modes'), 'sessions', `${id}.jsonl`), { skein: 1, session: id, createdAt: new Date().toISOString(), model: 'predictable' });
  return new Session(id, log, 'predictable');
}

const signal = () => new AbortController().signal;
const calls: Record<string, ToolCall> = {
  read: { id: 'r', name: 'read_file', input: { path: 'a.txt' } },
  grep: { id: 'g', name: 'grep', input: { pattern: 'x' } },
  plan: { id: 'p', name: 'update_plan', input: { steps: [] } },
  write: { id: 'w', name: 'write_file', input: { path: 'a.txt', content: 'x' } },
  edit: { id: 'e', name: 'edit_file', input: { path: 'a.txt', old: 'x', new: 'y' } },
  bash: { id: 'b', name: 'bash', input: { command: 'ls' } },
  mcp: { id: 'm', name: 'mcp__srv__do', input: {} },
};
const decisions = (s: Session) => s.log.all().filter((e): e is ApprovalDecisionEvent => e.kind === 'approval_decision');

describe('approval modes', () => {
  it('each mode runs, asks or refuses each kind of call', () => {
    const table = Object.fromEntries((['never', 'on-write', 'always', 'plan'] as const).map((m) => [m, Object.fromEntries(Object.entries(calls).map(([k, c]) => [k, verdictOf(m, c.name)]))]));
    expect(table).toEqual({
      never: { read: 'run', grep: 'run', plan: 'run', write: 'run', edit: 'run', bash: 'run', mcp: 'run' },
      'on-write': { read: 'run', grep: 'run', plan: 'run', write: 'ask', edit: 'ask', bash: 'ask', mcp: 'ask' },
      always: { read: 'ask', grep: 'ask', plan: 'ask', write: 'ask', edit: 'ask', bash: 'ask', mcp: 'ask' },
      plan: { read: 'run', grep: 'run', plan: 'run', write: 'refuse', edit: 'refuse', bash: 'read-only', mcp: 'refuse' },
    });
    // Plan mode asks about nothing: a call runs or is refused.
    expect(needsApproval('plan', 'bash')).toBe(false);
    expect(verdictOf('plan', 'no_such_tool')).toBe('run');
    // As before modes: `always` asks about every call, an unknown name too.
    expect(verdictOf('always', 'no_such_tool')).toBe('ask');
  });

  it('plan mode: a write, an edit and an MCP tool are refused with a reason naming the mode; reads run; bash runs read-only; nobody is asked', async () => {
    const t = gate('plan');
    for (const key of ['write', 'edit', 'mcp']) {
      const cleared = await t.g.clear(calls[key]!, signal());
      expect(cleared.run).toBe(false);
      if (!cleared.run) expect(cleared.output).toMatch(new RegExp(`^refused: this session is in plan mode \\(read-only\\), so ${calls[key]!.name} was not run\\..*read_file.*the user switches the mode`));
    }
    for (const key of ['read', 'grep', 'plan']) expect(await t.g.clear(calls[key]!, signal())).toEqual({ run: true });
    expect(await t.g.clear(calls.bash!, signal())).toEqual({ run: true, readOnly: true });
    expect(t.session.log.all().filter((e) => e.kind === 'approval_request')).toEqual([]);
    expect(t.transitions).toEqual([]);
  });

  it('a switch is logged as a mode event, a new gate on the same log starts in it, and a switch to the same mode logs nothing', async () => {
    const t = gate('never');
    expect(t.g.mode).toBe('never');
    expect(t.g.setMode('plan')).toBe(true);
    expect(t.g.setMode('plan')).toBe(false);
    expect(t.session.log.all().filter((e) => e.kind === 'mode')).toEqual([expect.objectContaining({ kind: 'mode', from: 'never', to: 'plan' })]);
    const cleared = await t.g.clear(calls.write!, signal());
    expect(cleared.run).toBe(false);
    // What a restart builds: SKEIN_APPROVAL says never, the log says plan.
    const again = gate('never', t.session);
    expect(again.g.mode).toBe('plan');
    expect((await again.g.clear(calls.edit!, signal())).run).toBe(false);
    expect(await again.g.clear(calls.bash!, signal())).toEqual({ run: true, readOnly: true });
  });

  it('switching to never while a write waits approves it, by the mode, and it runs', async () => {
    const t = gate('on-write');
    const cleared = t.g.clear(calls.bash!, signal());
    await until(() => t.g.waitingFor === 'b', 'bash waiting');
    t.g.setMode('never');
    expect(await cleared).toEqual({ run: true });
    expect(decisions(t.session)).toEqual([expect.objectContaining({ callId: 'b', decision: 'approve', by: 'mode', reason: 'the session switched to never mode' })]);
    expect(t.transitions.at(-1)).toBe('RunningTools: bash approved (the session switched to never mode)');
    expect(t.g.waitingFor).toBeUndefined();
  });

  it('switching to plan while a write waits refuses it with the plan reason', async () => {
    const t = gate('always');
    const cleared = t.g.clear(calls.write!, signal());
    await until(() => t.g.waitingFor === 'w', 'write waiting');
    t.g.setMode('plan');
    const result = await cleared;
    expect(result.run).toBe(false);
    if (!result.run) expect(result.output).toMatch(/^refused: this session is in plan mode/);
    expect(decisions(t.session)).toEqual([expect.objectContaining({ callId: 'w', decision: 'deny', by: 'mode', reason: 'the session switched to plan mode' })]);
    const kinds = t.session.log.all().map((e) => e.kind);
    // The switch comes first in the log, then the decision it caused.
    expect(kinds.indexOf('mode')).toBeLessThan(kinds.indexOf('approval_decision'));
  });

  it('switching to on-write approves a waiting read (asked under always) and keeps a waiting write waiting; always keeps it too', async () => {
    const t = gate('always');
    const read = t.g.clear(calls.read!, signal());
    await until(() => t.g.waitingFor === 'r', 'read waiting');
    t.g.setMode('on-write');
    expect(await read).toEqual({ run: true });
    const write = t.g.clear(calls.write!, signal());
    await until(() => t.g.waitingFor === 'w', 'write waiting');
    t.g.setMode('always');
    t.g.setMode('on-write');
    expect(t.g.waitingFor).toBe('w');
    t.g.decide('w', 'deny', 'not now');
    expect((await write).run).toBe(false);
    expect(decisions(t.session).map((d) => `${d.callId} ${d.decision} ${d.by}`)).toEqual(['r approve mode', 'w deny user']);
  });

  it('the REST body: a known mode, or a clear error naming the modes', () => {
    expect(parseModeBody({ mode: 'plan' })).toEqual({ ok: true, value: 'plan' });
    expect(parseModeBody({ mode: 'yolo' })).toEqual({ ok: false, error: 'unknown mode "yolo": "mode" must be one of never, on-write, always, plan' });
    expect(parseModeBody({})).toMatchObject({ ok: false, error: expect.stringContaining('never, on-write, always, plan') });
    expect(parseModeBody('plan')).toMatchObject({ ok: false });
    expect(parseModeBody({ mode: 3 })).toMatchObject({ ok: false });
  });
});
