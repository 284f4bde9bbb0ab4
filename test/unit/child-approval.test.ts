// A child's approval in its parent's timeline (issue 42): the task row keeps
// the child's latest approval through later `subagent` events, and it reads
// as the request or decision event the approval card and words know.
import { describe, expect, it } from 'vitest';
import type { NewEvent, SkeinEvent, SubagentEvent } from '../../shared/protocol.js';
import { childDecision, waitingRequest } from '../../webui/child-approval.js';
import { TimelineModel, type ToolRow } from '../../webui/timeline-model.js';

const rule = { tool: 'write_file', path: 'a.txt' };
const preview = { kind: 'diff' as const, text: '+a' };
const base = { callId: 't1', child: 'kid', agent: 'general', message: '' };
const asking: NewEvent = { kind: 'subagent', ...base, phase: 'approval', tool: 'write_file', approval: { session: 'kid', callId: 'w1', name: 'write_file', input: { path: 'a.txt' }, preview, rule } };
const decided: NewEvent = { kind: 'subagent', ...base, phase: 'approval_decision', tool: 'write_file', approval: { session: 'kid', callId: 'w1', name: 'write_file', decision: 'deny', by: 'user', reason: 'no' } };

function row(events: NewEvent[]): ToolRow {
  const model = new TimelineModel();
  const all: NewEvent[] = [{ kind: 'tool_call', callId: 't1', name: 'task', input: { description: 'd', prompt: 'p' } }, ...events];
  all.forEach((e, i) => model.ingest({ seq: i + 1, ts: new Date(1000 * i).toISOString(), ...e } as SkeinEvent));
  return model.rows.find((r): r is ToolRow => r.kind === 'tool')!;
}

describe("a child's approval on the task row", () => {
  it('is the waiting request until decided, then the decision, kept after the child finishes', () => {
    const waiting = row([{ kind: 'subagent', ...base, phase: 'started' }, asking]);
    expect(waitingRequest(waiting.childApproval)).toMatchObject({ kind: 'approval_request', callId: 'w1', name: 'write_file', input: { path: 'a.txt' }, preview, rule });
    expect(childDecision(waiting.childApproval)).toBeUndefined();

    const done = row([asking, decided, { kind: 'subagent', ...base, phase: 'finished', outcome: 'answered' }]);
    expect(done.subagent?.phase).toBe('finished');
    expect(waitingRequest(done.childApproval)).toBeUndefined();
    expect(childDecision(done.childApproval)).toMatchObject({ kind: 'approval_decision', callId: 'w1', decision: 'deny', by: 'user', reason: 'no' });
  });

  it('shows no answer it cannot word (no preview or rule) and no decision without one', () => {
    const bare = { seq: 1, ts: '', kind: 'subagent', ...base, phase: 'approval', approval: { session: 'kid', callId: 'w1', name: 'bash' } } as SubagentEvent;
    expect(waitingRequest(bare)).toBeUndefined();
    expect(childDecision({ ...bare, phase: 'approval_decision' })).toBeUndefined();
    expect(waitingRequest(undefined)).toBeUndefined();
  });
});
