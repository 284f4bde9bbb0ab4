// The web UI's timeline model: rows, folding, compaction rows, sparkline data
// and streamed text, built incrementally from events.
import { describe, expect, it } from 'vitest';
import type { NewEvent, SkeinEvent } from '../../shared/protocol.js';
import { TimelineModel, type CompactionRow, type ToolRow } from '../../webui/timeline-model.js';

function build(events: NewEvent[]): { model: TimelineModel; log: SkeinEvent[] } {
  const model = new TimelineModel();
  const log = events.map((e, i) => ({ seq: i + 1, ts: new Date(1000 * i).toISOString(), ...e }) as SkeinEvent);
  for (const e of log) expect(model.ingest(e)).toBe(true);
  return { model, log };
}

const gauge = (contextTokens: number, estimated = false) => ({
  contextTokens, contextWindow: 1000, ratio: contextTokens / 1000, thresholdRatio: 0.8, model: 'm', totalCostUsd: 0, ...(estimated && { estimated }),
});

describe('TimelineModel', () => {
  it('refuses duplicates and gaps, so a replay cannot double or skip a row', () => {
    const { model, log } = build([{ kind: 'user', text: 'hi' }]);
    expect(model.ingest(log[0]!)).toBe(false);
    expect(model.ingest({ ...log[0]!, seq: 3 })).toBe(false);
    expect(model.rows).toHaveLength(1);
    expect(model.lastSeq).toBe(1);
  });

  it('pairs a tool call with its result in one row, and skips empty agent text', () => {
    const { model } = build([
      { kind: 'user', text: 'run it' },
      { kind: 'agent', text: '', model: 'm', endOfTurn: false },
      { kind: 'tool_call', callId: 'c1', name: 'bash', input: { command: 'ls' } },
      { kind: 'tool_result', callId: 'c1', name: 'bash', output: 'exit code: 0\na', isError: false, durationMs: 3 },
      { kind: 'agent', text: 'done', model: 'm', endOfTurn: true },
    ]);
    expect(model.rows.map((r) => r.kind)).toEqual(['user', 'tool', 'agent']);
    expect((model.rows[1] as ToolRow).result?.output).toBe('exit code: 0\na');
  });

  it('keeps one row per compaction, from queued to started (where it runs) to finished, and folds what it covers', () => {
    const { model } = build([
      { kind: 'user', text: 'first' }, // 1
      { kind: 'agent', text: 'a', model: 'm', endOfTurn: true }, // 2
      { kind: 'user', text: 'second' }, // 3
      { kind: 'compaction', phase: 'queued', trigger: 'manual' }, // 4
      { kind: 'agent', text: 'b', model: 'm', endOfTurn: true }, // 5
      { kind: 'compaction', phase: 'started', trigger: 'manual' }, // 6
    ]);
    let compactions = model.rows.filter((r): r is CompactionRow => r.kind === 'compaction');
    expect(compactions.map((r) => [r.seq, r.event.phase])).toEqual([[6, 'started']]);
    model.ingest({ seq: 7, ts: '', kind: 'compaction', phase: 'finished', trigger: 'manual', strategy: 'summarize', summary: 's',
      coversSeq: [2, 3], tokensBefore: 900, tokensAfter: 300, messagesBefore: 4, messagesAfter: 3 });
    compactions = model.rows.filter((r): r is CompactionRow => r.kind === 'compaction');
    expect(compactions.map((r) => [r.seq, r.event.phase])).toEqual([[6, 'finished']]);
    expect(model.rows.filter((r) => 'folded' in r && r.folded).map((r) => r.seq)).toEqual([2, 3]);
    // Without a ledger from the server, one is derived from the folded span.
    expect(compactions[0]!.ledger?.userMessages.map((m) => m.text)).toEqual(['second']);
    expect(model.marks).toEqual([{ seq: 7, rowSeq: 6, index: 0, before: 900, after: 300, trigger: 'manual' }]);
  });

  it('makes a sparkline point per provider-reported request, not per estimate', () => {
    const { model } = build([
      { kind: 'usage', gauge: gauge(100) },
      { kind: 'usage', gauge: gauge(600) },
      { kind: 'compaction', phase: 'started', trigger: 'threshold' },
      { kind: 'compaction', phase: 'finished', trigger: 'threshold', summary: 's', tokensBefore: 600, tokensAfter: 200 },
      { kind: 'usage', gauge: gauge(200, true) },
      { kind: 'usage', gauge: gauge(250) },
    ]);
    expect(model.points.map((p) => p.tokens)).toEqual([100, 600, 250]);
    expect(model.marks.map((m) => m.index)).toEqual([2]);
    expect(model.gauge?.contextTokens).toBe(250);
  });

  it('streams deltas of one attempt, restarts on a retry, ignores repeats and clears when the answer lands', () => {
    const { model } = build([{ kind: 'user', text: 'hi' }]);
    model.delta({ afterSeq: 1, attempt: 0, index: 0, text: 'Hel' });
    model.delta({ afterSeq: 1, attempt: 0, index: 1, text: 'lo' });
    model.delta({ afterSeq: 1, attempt: 0, index: 1, text: 'lo' });
    expect(model.streaming).toBe('Hello');
    model.delta({ afterSeq: 1, attempt: 1, index: 0, text: 'Hi' });
    expect(model.streaming).toBe('Hi');
    expect(model.retrying).toBe(true);
    model.ingest({ seq: 2, ts: '', kind: 'agent', text: 'Hi there', model: 'm', endOfTurn: true });
    expect(model.streaming).toBe('');
    model.delta({ afterSeq: 1, attempt: 1, index: 1, text: ' late' }); // its answer has already arrived
    expect(model.streaming).toBe('');
  });

  it('streams thinking on its own channel (own count), apart from the answer; an answer with only calls still shows its thinking', () => {
    const { model } = build([{ kind: 'user', text: 'hi' }]);
    model.delta({ afterSeq: 1, attempt: 0, index: 0, text: 'Let me ', channel: 'thinking' });
    model.delta({ afterSeq: 1, attempt: 0, index: 1, text: 'think.', channel: 'thinking' });
    model.delta({ afterSeq: 1, attempt: 0, index: 0, text: 'Answer' });
    model.delta({ afterSeq: 1, attempt: 0, index: 1, text: 'think.', channel: 'thinking' });
    expect(model.streamingThinking).toBe('Let me think.');
    expect(model.streaming).toBe('Answer');
    model.delta({ afterSeq: 1, attempt: 1, index: 0, text: 'Again', channel: 'thinking' });
    expect([model.streamingThinking, model.streaming]).toEqual(['Again', '']);
    const reasoning = { provider: 'anthropic' as const, model: 'm', output: [], text: 'plan' };
    model.ingest({ seq: 2, ts: '', kind: 'agent', text: '', model: 'm', endOfTurn: false, reasoning });
    expect(model.streamingThinking).toBe('');
    expect(model.rows.at(-1)).toMatchObject({ kind: 'agent', event: { reasoning: { text: 'plan' } } });
  });

  it('shows retries and cancels as notices, and a retry is not an error row', () => {
    const { model } = build([
      { kind: 'error', message: 'overloaded. Retrying in 1 s (retry 1 of 3).', code: 'retrying' },
      { kind: 'state', from: 'SendingToLLM', to: 'Cancelled', reason: 'cancelled by the user' },
      { kind: 'error', message: 'boom', code: 'provider_500' },
    ]);
    expect(model.rows.map((r) => (r.kind === 'notice' ? `notice:${r.tone}` : r.kind))).toEqual(['notice:retry', 'notice:cancel', 'error']);
    expect(model.state).toBe('Cancelled');
  });

  it('shows a status note to the agent as a small status notice with the numbers, not as a user message', () => {
    const { model } = build([
      { kind: 'user', text: 'hi' },
      { kind: 'status', text: '<skein-status>note</skein-status>', reason: '50%', contextTokens: 10_500, contextWindow: 20_000, costUsd: 0.125, calls: 5 },
    ]);
    expect(model.rows.map((r) => (r.kind === 'notice' ? `notice:${r.tone}` : r.kind))).toEqual(['user', 'notice:status']);
    const row = model.rows[1]!;
    expect(row.kind === 'notice' && row.text).toBe('Status note to the agent: 10,500 of 20,000 tokens (53%), $0.13, 5 LLM calls');
  });

  it('says under a cut answer that it was cut and why (a `cut` notice), once: the same note sent again after a fold adds no row', () => {
    const message = 'The answer was cut: prompt and answer filled the 2,048-token context window (1,759 prompt + 289 answer tokens).';
    const cut = { kind: 'answer_cut', reason: 'context', input: 1759, output: 289, maxTokens: 4096, contextWindow: 2048, message, text: '<skein-cut>go on</skein-cut>' } as const;
    const { model } = build([
      { kind: 'user', text: 'hi' },
      { kind: 'agent', text: 'a long answer that stops mid-', model: 'm', endOfTurn: false },
      cut,
      { ...cut, again: true },
      { kind: 'agent', text: 'sentence.', model: 'm', endOfTurn: true },
    ]);
    expect(model.rows.map((r) => (r.kind === 'notice' ? `notice:${r.tone}` : r.kind))).toEqual(['user', 'agent', 'notice:cut', 'agent']);
    const row = model.rows[2]!;
    expect(row.kind === 'notice' && row.text).toBe(message);
  });
});

describe('TimelineModel: approvals', () => {
  it('puts the request and the decision on the tool row, and follows WaitingForApproval', () => {
    const { model } = build([
      { kind: 'user', text: 'bash: ls' },
      { kind: 'agent', text: '', model: 'm', endOfTurn: false },
      { kind: 'tool_call', callId: 'c1', name: 'bash', input: { command: 'ls' } },
      { kind: 'state', from: 'ProcessingLLMResponse', to: 'RunningTools', reason: '1 tool call' },
      { kind: 'approval_request', callId: 'c1', name: 'bash', input: { command: 'ls' }, preview: { kind: 'command', text: 'ls' }, rule: { tool: 'bash', command: 'ls' } },
      { kind: 'state', from: 'RunningTools', to: 'WaitingForApproval', reason: 'bash waits for approval' },
    ]);
    expect(model.state).toBe('WaitingForApproval');
    const row = model.rows.find((r): r is ToolRow => r.kind === 'tool')!;
    expect(row.approvalRequest?.preview.text).toBe('ls');
    expect(row.approvalDecision).toBeUndefined();
    model.ingest({ seq: 7, ts: '', kind: 'approval_decision', callId: 'c1', name: 'bash', decision: 'deny', by: 'user', reason: 'no' });
    const after = model.rows.find((r): r is ToolRow => r.kind === 'tool')!;
    expect(after.approvalDecision).toMatchObject({ decision: 'deny', reason: 'no' });
    expect(model.rows.filter((r) => r.kind === 'tool')).toHaveLength(1);
  });
});
