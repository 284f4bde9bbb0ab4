// The model view (server/compaction/view.ts) from the user's side, where the
// other view tests leave a decision untested: a cut answer and the note that
// asks the model to go on, where a message typed mid-turn joins when the turn
// goes on without a new request (a changed AGENTS.md logged after a tool ran),
// the summary's words for the events it keeps verbatim, and which of them stay.
import { describe, expect, it } from 'vitest';
import { applyCompaction, deriveView, summaryMessage, type SourcedMessage } from '../../server/compaction/view.js';
import { LogBuilder } from '../helpers/events.js';

const cut = (log: LogBuilder, text?: string) =>
  log.add({ kind: 'answer_cut', reason: 'max_tokens', input: 100, output: 50, maxTokens: 50, contextWindow: 8000, ...(text !== undefined && { text }) } as never);
const state = (log: LogBuilder, to: string) => log.add({ kind: 'state', from: 'x', to, reason: 'x' } as never);
const roles = (view: SourcedMessage[]) => view.map((m) => `${m.role}:${m.content}`);

describe('a cut answer in the view', () => {
  it('the cut answer stays, marked as going on; the note asking to go on follows it as a user message', () => {
    const log = new LogBuilder();
    log.user('write it');
    log.agent('half of it', false);
    cut(log, 'go on');
    const view = deriveView(log.events);
    expect(roles(view)).toEqual(['user:write it', 'assistant:half of it', 'user:go on']);
    expect(view[1]!.goesOn).toBe(true);
    expect(view[2]!.seq).toBe(3);
    expect(view[0]!.goesOn).toBeUndefined();
    // A status note logged after it (before the next request) comes after it, as logged.
    log.add({ kind: 'status', text: 'note' } as never);
    expect(roles(deriveView(log.events)).slice(2)).toEqual(['user:go on', 'user:note']);
  });

  it('a cut with no note (continuations used up) adds nothing and marks nothing', () => {
    const log = new LogBuilder();
    log.user('write it');
    log.agent('half of it', false);
    cut(log);
    const view = deriveView(log.events);
    expect(roles(view)).toEqual(['user:write it', 'assistant:half of it']);
    expect(view[1]!.goesOn).toBeUndefined();
  });

  it('an answer that asked for tools is not marked; its note waits for the results of its open calls', () => {
    const log = new LogBuilder();
    log.user('task');
    log.tools(['a'], false);
    cut(log, 'go on');
    log.result('a');
    const view = deriveView(log.events);
    expect(roles(view)).toEqual(['user:task', 'assistant:', 'tool:ok', 'user:go on']);
    expect(view[1]!.goesOn).toBeUndefined();
  });

  it('the latest answer is marked, even with a status note after it; a cut before any answer marks nothing', () => {
    const log = new LogBuilder();
    log.user('task');
    log.agent('part', false);
    log.add({ kind: 'status', text: 'note' } as never);
    cut(log, 'go on');
    const view = deriveView(log.events);
    expect(view.map((m) => m.goesOn ?? false)).toEqual([false, true, false, false]);
    const early = new LogBuilder();
    early.user('task');
    cut(early, 'go on');
    expect(roles(deriveView(early.events))).toEqual(['user:task', 'user:go on']);
  });
});

describe('a message typed mid-turn', () => {
  it('is what the user typed, marked mid-turn; one typed between turns is not', () => {
    const log = new LogBuilder();
    log.user('A');
    state(log, 'SendingToLLM');
    log.user('B');
    log.agent('done');
    state(log, 'WaitingForUserInput');
    log.user('C');
    const view = deriveView(log.events);
    expect(roles(view)).toEqual(['user:A', 'assistant:done', 'user:B', 'user:C']);
    expect(view.map((m) => m.fromUser ?? false)).toEqual([true, false, true, true]);
    expect(view.map((m) => m.midTurn ?? false)).toEqual([false, false, true, false]);
  });

  it('joins once the answer it missed has its results, before a change logged after them', () => {
    const log = new LogBuilder();
    log.user('A');
    state(log, 'SendingToLLM');
    log.user('B'); // typed while the request was out
    log.tools(['a'], false);
    state(log, 'ProcessingLLMResponse');
    log.result('a');
    log.add({ kind: 'instructions', phase: 'changed', text: 'new AGENTS.md' } as never);
    log.user('C'); // typed after the results, before the next request
    const view = deriveView(log.events);
    expect(roles(view)).toEqual(['user:A', 'assistant:', 'tool:ok', 'user:B', 'system:new AGENTS.md', 'user:C']);
    expect(view[5]!.midTurn).toBeUndefined();
  });

  it('a log that begins with an answer (a damaged start) still attaches its calls', () => {
    const log = new LogBuilder();
    log.tools(['a']);
    const view = deriveView(log.events);
    expect(view[0]!.toolCalls?.map((c) => c.id)).toEqual(['a']);
    expect(roles(view)).toEqual(['assistant:', 'tool:ok']);
  });
});

describe('a cleared result', () => {
  it('is cleared once: a later clearing leaves its placeholder (with its names, over the 400-character floor) as it is', () => {
    const output = Array.from({ length: 300 }, (_, i) => `error in src/handlers/handler${i}.ts:${i + 1} at HandlerNumber${i}`).join('\n');
    const messages: SourcedMessage[] = [{ role: 'user', content: 'task', seq: 1 }, { role: 'assistant', content: '', seq: 2, toolCalls: [{ id: 'a', name: 'bash', input: {} }] }, { role: 'tool', content: output, toolCallId: 'a', seq: 3 }];
    const calls = new Map([['a', { name: 'bash', input: { command: 'cat handlers.ts' } }]]);
    applyCompaction(messages, { clearedThroughSeq: 3, clearedIndex: true }, calls);
    const once = messages[2]!;
    expect(once.clearedChars).toBe(output.length);
    expect(once.content.length).toBeGreaterThan(400);
    applyCompaction(messages, { clearedThroughSeq: 3, clearedIndex: true }, calls);
    expect(messages[2]).toEqual(once);
  });
});

describe('a summary that keeps events verbatim', () => {
  const preambleOf = (m: SourcedMessage) => m.content.split('\n')[1];

  it('names the one or several events that follow it verbatim; without any it names none', () => {
    expect(preambleOf(summaryMessage('s', undefined, [2, 7]))).toBe(
      'Events 2-7 of this conversation were compacted into the summary below (context only, not a new instruction); search_history {"fromSeq": 2, "toSeq": 7, "query": "..."} reads back any detail of them.',
    );
    expect(preambleOf(summaryMessage('s', undefined, [2, 7], [7]))).toContain('(context only, not a new instruction) except event 7, which follows it verbatim; search_history');
    expect(preambleOf(summaryMessage('s', undefined, [2, 7], [5, 7]))).toContain('(context only, not a new instruction) except events 5, 7, which follow it verbatim; search_history');
  });

  it('the kept messages follow the summary, in order; an older summary in the span is folded, never kept', () => {
    const older = summaryMessage('old', undefined, [1, 3]);
    const messages: SourcedMessage[] = [older, { role: 'user', content: 'asked', seq: 4 }, { role: 'assistant', content: 'step', seq: 5 }, { role: 'user', content: 'after', seq: 9 }];
    applyCompaction(messages, { coversSeq: [1, 5], summary: 'new', keptSeqs: [1, 4] }, new Map());
    expect(messages.map((m) => m.seq)).toEqual([1, 4, 9]);
    expect(messages[0]!.summaryOf?.summary).toBe('new');
    expect(messages[1]!.content).toBe('asked');
  });
});
