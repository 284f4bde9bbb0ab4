// What a finished compaction does to the model's view: old tool results
// cleared to a placeholder that says what they were (only those worth it),
// old images cleared to a line, a covered span replaced by its summary with
// everything around it kept in order, and Anthropic thinking dropped from
// every turn after the first change (its signature no longer matches).
import { describe, expect, it } from 'vitest';
import type { ImageRef, SkeinEvent } from '../../shared/protocol.js';
import {
  applyCompaction,
  CLEARABLE_CHARS,
  clearedImagesNote,
  clearedPlaceholder,
  COMPACTED_CLOSE,
  COMPACTED_OPEN,
  coveredRange,
  deriveView,
  IncrementalView,
  isSummaryMessage,
  plain,
  summaryMessage,
  type SourcedMessage,
} from '../../server/compaction/view.js';
import { LogBuilder } from '../helpers/events.js';
import { emptyLedger, renderLedger } from '../../server/compaction/ledger.js';

const big = (tag: string) => `${tag} `.repeat(Math.ceil((CLEARABLE_CHARS + 50) / (tag.length + 1)));
const image: ImageRef = { file: 'img-1.png', mediaType: 'image/png', bytes: 2048, width: 10, height: 20 };
const thinking = (provider: 'anthropic' | 'openai') => ({ provider, model: 'm', output: [{ type: 'thinking' }] });

function clearing(log: LogBuilder, clearedThroughSeq: number, clearedIndex?: boolean) {
  return log.add({ kind: 'compaction', phase: 'finished', trigger: 'auto', strategy: 'clear', clearedThroughSeq, ...(clearedIndex && { clearedIndex }), tokensBefore: 0, tokensAfter: 0, messagesBefore: 0, messagesAfter: 0 } as never);
}

describe('clearing old tool results', () => {
  it('clears results up to the seq, longer than the floor, once; later and short ones stay verbatim', () => {
    const log = new LogBuilder();
    log.user('task'); // 1
    log.tools(['a'], true, big('alpha')); // 2,3,4
    log.tools(['b'], true, 'x'.repeat(CLEARABLE_CHARS)); // 5,6,7: exactly the floor: not worth it
    log.tools(['c'], true, 'y'.repeat(CLEARABLE_CHARS + 1)); // 8,9,10
    log.tools(['d'], true, big('delta')); // 11,12,13: after the cut
    clearing(log, 10); // 14
    const view = deriveView(log.events);
    const tools = view.filter((m) => m.role === 'tool');
    expect(tools.map((m) => m.toolCallId)).toEqual(['a', 'b', 'c', 'd']);
    expect(tools[0]!.clearedChars).toBe(big('alpha').length);
    expect(tools[0]!.content).toBe(
      `[tool result cleared to save context (event 4): bash {"command":"run a"} returned ${big('alpha').length} characters. ` +
        `search_history {"fromSeq": 4, "toSeq": 4} shows its start and end; add a "query" to find any line of it.]`,
    );
    expect(tools[1]!.content).toBe('x'.repeat(CLEARABLE_CHARS));
    expect(tools[1]!.clearedChars).toBeUndefined();
    expect(tools[2]!.clearedChars).toBe(CLEARABLE_CHARS + 1);
    expect(tools[2]!.content).toContain('(event 10)');
    expect(tools[3]!.content).toBe(big('delta'));
    // The user's messages and the answers are never cleared; order and roles are kept.
    expect(view.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool', 'assistant', 'tool', 'assistant', 'tool']);
    expect(view[0]!.content).toBe('task');

    // A second clearing leaves an already cleared result as it is (its size stays the original's).
    clearing(log, 13);
    const again = deriveView(log.events).filter((m) => m.role === 'tool');
    expect(again[0]).toEqual(tools[0]);
    expect(again[3]!.clearedChars).toBe(big('delta').length);
  });

  it("a cleared user message's long text is never cleared, only tool results are", () => {
    const log = new LogBuilder();
    log.user(big('user'));
    clearing(log, 1);
    expect(deriveView(log.events)[0]!.content).toBe(big('user'));
  });

  it('with clearedIndex the placeholder lists the names the output held; sizes of thousands get separators', () => {
    const output = `${'filler line\n'.repeat(200)}the bug is in src/config.ts:42 and ParseConfig\n`;
    const log = new LogBuilder();
    log.user('task');
    log.tools(['a'], true, output);
    clearing(log, 4, true);
    const cleared = deriveView(log.events).find((m) => m.role === 'tool')!;
    expect(cleared.content).toContain(' Names in it: ');
    expect(cleared.content).toContain('src/config.ts:42');
    expect(cleared.content).toContain('ParseConfig');
    expect(cleared.content).toContain(`returned ${output.length.toLocaleString('en-US')} characters.`);
    expect(output.length).toBeGreaterThan(1000);
  });

  it('the placeholder names the call; a long input is clipped to 200 characters; an unknown call says so', () => {
    const text = clearedPlaceholder({ name: 'bash', input: { command: 'z'.repeat(500) } }, 1234567, 42);
    const what = /\(event 42\): (.*) returned 1,234,567 characters\. search_history/.exec(text)![1]!;
    expect(what.startsWith('bash {"command":"zzz')).toBe(true);
    expect(what.length).toBe('bash '.length + 200);
    expect(what.endsWith('z…')).toBe(true);
    expect(clearedPlaceholder({ name: 'bash', input: { command: 'ls' } }, 500, 7)).toContain('(event 7): bash {"command":"ls"} returned 500 characters.');
    expect(clearedPlaceholder(undefined, 999, 3)).toContain('(event 3): this tool call returned 999 characters.');
    // An input of exactly 200 characters is not clipped.
    const exact = JSON.stringify({ c: 'q'.repeat(192) });
    expect(exact.length).toBe(200);
    expect(clearedPlaceholder({ name: 't', input: { c: 'q'.repeat(192) } }, 1, 1)).toContain(`t ${exact} returned`);
    // Without an output no names are listed, even for the index.
    expect(clearedPlaceholder(undefined, 999, 3)).not.toContain('Names in it');
  });

  it('old images become a line each that says what they were; newer ones stay', () => {
    const log = new LogBuilder();
    log.add({ kind: 'user', text: 'look', images: [image, { ...image, file: 'img-2.jpg', mediaType: 'image/jpeg', bytes: 500 }] } as never); // 1
    log.agent('seen'); // 2
    log.add({ kind: 'user', text: '', images: [image] } as never); // 3
    log.agent('seen too'); // 4
    log.add({ kind: 'user', text: 'new', images: [image] } as never); // 5
    clearing(log, 3);
    const view = deriveView(log.events);
    expect(view[0]!.images).toBeUndefined();
    expect(view[0]!.content).toBe(`look\n${clearedImagesNote(view.length ? [image, { ...image, file: 'img-2.jpg', mediaType: 'image/jpeg', bytes: 500 }] : [], 1)}`);
    expect(view[0]!.content).toBe('look\n[image cleared to save context (event 1): PNG image, 10x20, 2.0 KB; the session\'s log keeps it]\n[image cleared to save context (event 1): JPEG image, 10x20, 500 bytes; the session\'s log keeps it]');
    // No text: the note alone, no blank first line.
    expect(view[2]!.content).toBe("[image cleared to save context (event 3): PNG image, 10x20, 2.0 KB; the session's log keeps it]");
    expect(view[4]!.images).toEqual([image]);
    expect(view[4]!.content).toBe('new');
  });
});

describe('a summary replaces exactly the span it covers', () => {
  it('messages before and after stay, in order; the summary sits where the span began', () => {
    const log = new LogBuilder();
    log.user('first'); // 1
    log.agent('a2'); // 2
    log.user('u3'); // 3
    log.agent('a4'); // 4
    log.user('u5'); // 5
    log.agent('a6'); // 6
    log.compaction([3, 4], 'SUM'); // 7
    const view = deriveView(log.events);
    expect(view.map((m) => (isSummaryMessage(m) ? 'S' : m.content))).toEqual(['first', 'a2', 'S', 'u5', 'a6']);
    expect(view[2]!.seq).toBe(3);
    expect(view[2]!.summaryOf).toEqual({ summary: 'SUM', covers: [3, 4] });
    expect(view[2]!.content).toBe(
      `${COMPACTED_OPEN}\nEvents 3-4 of this conversation were compacted into the summary below (context only, not a new instruction); ` +
        `search_history {"fromSeq": 3, "toSeq": 4, "query": "..."} reads back any detail of them.\n\nSUM\n${COMPACTED_CLOSE}`,
    );
  });

  it('a span up to the last message replaces the tail; a span that covers nothing in the view changes nothing', () => {
    const log = new LogBuilder();
    log.user('first'); // 1
    log.agent('a2'); // 2
    log.agent('a3'); // 3
    log.compaction([2, 3], 'TAIL'); // 4
    expect(deriveView(log.events).map((m) => (isSummaryMessage(m) ? 'S' : m.content))).toEqual(['first', 'S']);
    const none = new LogBuilder();
    none.user('first'); // 1
    none.agent('a2'); // 2
    none.compaction([50, 60], 'NOTHING'); // 3
    expect(deriveView(none.events).map((m) => m.content)).toEqual(['first', 'a2']);
  });

  it("a provider's compaction goes with its summary; a compaction without a summary replaces nothing", () => {
    const messages: SourcedMessage[] = [
      { role: 'user', content: 'u1', seq: 1 },
      { role: 'assistant', content: 'a2', seq: 2 },
      { role: 'user', content: 'u3', seq: 3 },
    ];
    const provider = { provider: 'anthropic' as const, model: 'm', output: [{ type: 'compaction' }] };
    const copy = messages.map((m) => ({ ...m }));
    applyCompaction(copy, { coversSeq: [1, 2], summary: 'S', provider }, new Map());
    expect(copy).toHaveLength(2);
    expect(copy[0]!.compacted).toEqual(provider);
    expect(copy[1]!.content).toBe('u3');
    const without = messages.map((m) => ({ ...m }));
    applyCompaction(without, { coversSeq: [1, 2], summary: '' }, new Map());
    expect(without).toEqual(messages);
    const noProvider = messages.map((m) => ({ ...m }));
    applyCompaction(noProvider, { coversSeq: [1, 2], summary: 'S' }, new Map());
    expect(noProvider[0]).not.toHaveProperty('compacted');
  });

  it('a summary with a ledger carries it: its text after the summary inside the markers, the ledger itself kept on the message', () => {
    const ledger = { ...emptyLedger(), filesRead: ['src/app.ts'], userMessages: [{ text: 'fix the parser', seq: 2 }] };
    const m = summaryMessage('the summary', ledger, [2, 7]);
    const rendered = renderLedger(ledger);
    expect(m.content).toBe(`${COMPACTED_OPEN}\n${m.content.split('\n')[1]}\n\nthe summary\n\n${rendered}\n${COMPACTED_CLOSE}`);
    expect(m.content).toContain('- fix the parser');
    expect(m.summaryOf).toEqual({ summary: 'the summary', ledger, covers: [2, 7] });
    // Without one, no ledger key at all (a later fold must not read an undefined ledger as one).
    expect(summaryMessage('s', undefined, [2, 7]).summaryOf).toEqual({ summary: 's', covers: [2, 7] });
    expect(summaryMessage('s', undefined, [2, 7]).content).toBe(`${COMPACTED_OPEN}\n${m.content.split('\n')[1]}\n\ns\n${COMPACTED_CLOSE}`);
  });

  it('a summary with a ledger renders it after the text; the range of a fold counts a summary as its whole span', () => {
    const s = summaryMessage('text', undefined, [5, 9]);
    expect(coveredRange([{ role: 'user', content: 'x', seq: 3 }, s, { role: 'assistant', content: 'y', seq: 12 }])).toEqual([3, 12]);
    expect(coveredRange([s])).toEqual([5, 9]);
    expect(coveredRange([{ role: 'user', content: 'x', seq: 20 }, s])).toEqual([5, 20]);
    expect(isSummaryMessage({ role: 'assistant', content: `${COMPACTED_OPEN}x` })).toBe(false);
    expect(isSummaryMessage({ role: 'user', content: `x${COMPACTED_OPEN}` })).toBe(false);
  });
});

describe('Anthropic thinking after a change is dropped, the rest kept', () => {
  function withThinking(): SourcedMessage[] {
    return [
      { role: 'user', content: 'u1', seq: 1 },
      { role: 'assistant', content: 'a2', seq: 2, reasoning: thinking('anthropic') },
      { role: 'user', content: 'u3', seq: 3 },
      { role: 'assistant', content: 'a4', seq: 4, reasoning: thinking('anthropic') },
      { role: 'assistant', content: 'a5', seq: 5, reasoning: thinking('openai') },
    ];
  }

  it('a summary at index 1: the turns after it lose Anthropic thinking, OpenAI reasoning stays', () => {
    const m = withThinking();
    applyCompaction(m, { coversSeq: [2, 2], summary: 'S' }, new Map());
    expect(m.map((x) => x.reasoning?.provider)).toEqual([undefined, undefined, undefined, undefined, 'openai']);
    expect(m.map((x) => x.content)).toEqual(['u1', expect.stringContaining('S'), 'u3', 'a4', 'a5']);
  });

  it('the changed message itself and those before it keep theirs; no change drops nothing', () => {
    const m = withThinking();
    applyCompaction(m, { coversSeq: [3, 3], summary: 'S' }, new Map());
    expect(m.map((x) => x.reasoning?.provider)).toEqual([undefined, 'anthropic', undefined, undefined, 'openai']);
    const none = withThinking();
    applyCompaction(none, { clearedThroughSeq: 5 }, new Map());
    expect(none).toEqual(withThinking());
  });

  it('clearing a result changes the prefix from that result on', () => {
    const m: SourcedMessage[] = [
      { role: 'assistant', content: '', seq: 1, reasoning: thinking('anthropic'), toolCalls: [{ id: 'a', name: 'bash', input: {} }] },
      { role: 'tool', content: big('out'), toolCallId: 'a', seq: 2 },
      { role: 'assistant', content: 'after', seq: 3, reasoning: thinking('anthropic') },
    ];
    applyCompaction(m, { clearedThroughSeq: 2 }, new Map());
    expect(m[0]!.reasoning).toBeDefined();
    expect(m[1]!.clearedChars).toBe(big('out').length);
    expect(m[2]!.reasoning).toBeUndefined();
  });

  it('a new toolset drops every Anthropic thinking block, also of a deferred message', () => {
    const log = new LogBuilder();
    log.user('u1');
    log.add({ kind: 'agent', text: 'a2', model: 'm', endOfTurn: true, reasoning: thinking('anthropic') } as never);
    log.add({ kind: 'agent', text: 'a3', model: 'm', endOfTurn: true, reasoning: thinking('openai') } as never);
    const before = deriveView(log.events);
    expect(before[1]!.reasoning?.provider).toBe('anthropic');
    log.add({ kind: 'toolset' } as never);
    const after = deriveView(log.events);
    expect(after.map((m) => m.reasoning?.provider)).toEqual([undefined, undefined, 'openai']);
    expect(after.map((m) => m.content)).toEqual(['u1', 'a2', 'a3']);
  });
});

describe('notes and held-back messages', () => {
  it('changed instructions are a system message; those read at start are not in the view; a status is a user message', () => {
    const log = new LogBuilder();
    log.user('u1');
    log.add({ kind: 'instructions', phase: 'loaded', text: 'AT START' } as never);
    log.add({ kind: 'instructions', phase: 'changed', text: 'CHANGED' } as never);
    log.add({ kind: 'tools_changed', text: 'TOOLS' } as never);
    log.add({ kind: 'status', text: 'STATUS' } as never);
    expect(deriveView(log.events).map((m) => `${m.role}:${m.content}`)).toEqual(['user:u1', 'system:CHANGED', 'system:TOOLS', 'user:STATUS']);
  });

  it('a note while calls are open waits until their results are in', () => {
    const log = new LogBuilder();
    log.user('u1');
    log.tools(['a'], false);
    log.add({ kind: 'status', text: 'STATUS' } as never);
    expect(deriveView(log.events).map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    log.result('a');
    expect(deriveView(log.events).map((m) => `${m.role}:${m.content}`)).toEqual(['user:u1', 'assistant:', 'tool:ok', 'user:STATUS']);
  });

  it('a result of a call never made, or a call with no answer before it, changes nothing', () => {
    const log = new LogBuilder();
    log.user('u1');
    log.add({ kind: 'tool_call', callId: 'x', name: 'bash', input: {} });
    log.result('x');
    log.result('never');
    expect(deriveView(log.events).map((m) => m.role)).toEqual(['user']);
  });

  it('a call after a tool result still belongs to the answer before them', () => {
    const log = new LogBuilder();
    log.user('u1');
    log.tools(['a']);
    log.add({ kind: 'tool_call', callId: 'b', name: 'bash', input: {} });
    log.result('b');
    const view = deriveView(log.events);
    expect(view[1]!.toolCalls!.map((c) => c.id)).toEqual(['a', 'b']);
    expect(view.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool']);
  });

  it('a message typed while a request is out waits for its answer and its calls, not for the state after it', () => {
    const log = new LogBuilder();
    const state = (from: string, to: string) => log.add({ kind: 'state', from, to, reason: 'x' } as never);
    log.user('A');
    state('WaitingForUserInput', 'SendingToLLM');
    log.user('B');
    state('SendingToLLM', 'ProcessingLLMResponse');
    expect(deriveView(log.events).map((m) => m.content)).toEqual(['A', 'B']);
    log.tools(['a'], false);
    // The answer came, its call is open: B still waits.
    expect(deriveView(log.events).map((m) => m.content)).toEqual(['A', '', 'B']);
    log.result('a');
    expect(deriveView(log.events).map((m) => `${m.role}:${m.content}`)).toEqual(['user:A', 'assistant:', 'tool:ok', 'user:B']);
    // A result that closes the calls while the request is still out (no answer logged yet) releases nothing.
    const out = new LogBuilder();
    const s2 = (from: string, to: string) => out.add({ kind: 'state', from, to, reason: 'x' } as never);
    out.user('A');
    out.tools(['a'], false);
    s2('RunningTools', 'SendingToLLM');
    out.user('B');
    out.result('a');
    const view = new IncrementalView();
    view.update(out.events);
    expect(view.messages().map((m) => `${m.role}:${m.content}`)).toEqual(['user:A', 'assistant:', 'tool:ok', 'user:B']);
    out.agent('answer');
    view.update(out.events);
    expect(view.messages().map((m) => `${m.role}:${m.content}`)).toEqual(['user:A', 'assistant:', 'tool:ok', 'assistant:answer', 'user:B']);
  });

  it('the incremental view applies each event once, and its messages are a copy', () => {
    const log = new LogBuilder();
    log.user('u1');
    const view = new IncrementalView();
    view.update(log.events);
    view.update(log.events);
    expect(view.messages().map((m) => m.content)).toEqual(['u1']);
    view.messages().push({ role: 'user', content: 'intruder', seq: 99 });
    expect(view.messages()).toHaveLength(1);
    log.agent('a2');
    view.update(log.events);
    expect(view.messages().map((m) => m.content)).toEqual(['u1', 'a2']);
    expect(view.messages()).toEqual(deriveView(log.events));
  });

  it('an image stays on its message; a message without images has none', () => {
    const log = new LogBuilder();
    log.add({ kind: 'user', text: 'pic', images: [image] } as never);
    log.add({ kind: 'user', text: 'no pic', images: [] } as never);
    const view = deriveView(log.events as SkeinEvent[]);
    expect(view[0]!.images).toEqual([image]);
    expect(view[1]).not.toHaveProperty('images');
  });

  it('plain strips the provenance and nothing else', () => {
    const m: SourcedMessage = { ...summaryMessage('s', undefined, [1, 2]), clearedChars: 5 };
    const [p] = plain([m]);
    expect(p).toEqual({ role: 'user', content: m.content });
  });
});

describe('the names a cleared result lists', () => {
  const names = (n: number) => Array.from({ length: n }, (_, i) => `WidgetFactory${String(i).padStart(3, '0')}Impl`);
  const listed = (content: string) => /Names in it: (.*?)(?: \(\+(\d+) more\))?\. search_history/.exec(content);

  it('spend at most 30% of the output, the rest counted; at most 4,000 characters however long the output', () => {
    const small = names(40).join(' ');
    const text = clearedPlaceholder({ name: 'bash', input: {} }, small.length, 5, small);
    const [, list, more] = listed(text)!;
    expect(list!.split(', ').join('').length).toBeLessThanOrEqual(Math.floor(0.3 * small.length));
    expect(Number(more)).toBe(40 - list!.split(', ').length);
    expect(Number(more)).toBeGreaterThan(0);

    const huge = names(700).join(' ');
    const [, hugeList, hugeMore] = listed(clearedPlaceholder({ name: 'bash', input: {} }, huge.length, 5, huge))!;
    const chars = hugeList!.split(', ').join('').length;
    expect(chars).toBeLessThanOrEqual(4000);
    expect(chars).toBeGreaterThan(3000);
    expect(huge.length * 0.3).toBeGreaterThan(4000);
    expect(Number(hugeMore)).toBe(700 - hugeList!.split(', ').length);
  });

  it('an output with no names lists none; all of them fitting counts nothing more', () => {
    expect(clearedPlaceholder(undefined, 500, 5, 'x '.repeat(250))).not.toContain('Names in it');
    const few = `${names(2).join(' ')} ${'x '.repeat(200)}`;
    const text = clearedPlaceholder(undefined, few.length, 5, few);
    expect(text).toContain(`Names in it: ${names(2).join(', ')}. search_history`);
    expect(text).not.toContain('more)');
  });

  it('clearing an image changes the prefix from that message on: later Anthropic thinking goes', () => {
    const m: SourcedMessage[] = [
      { role: 'user', content: 'see', seq: 1, images: [image] },
      { role: 'assistant', content: 'a2', seq: 2, reasoning: thinking('anthropic') },
    ];
    applyCompaction(m, { clearedThroughSeq: 1 }, new Map());
    expect(m[0]!.images).toBeUndefined();
    expect(m[1]!.reasoning).toBeUndefined();
  });
});

describe('a message too large for the window', () => {
  it('is seen as its head and where the whole of it is kept', () => {
    const text = 'line one\nline two\nline three';
    const log = new LogBuilder();
    log.add({ kind: 'user', text, saved: { file: 'big.txt', chars: text.length, tokens: 9, headChars: 8 } } as never);
    const [m] = deriveView(log.events);
    expect(m!.content).toContain('kept whole in the file big.txt');
    expect(m!.content).toContain('line one\n[… ');
    expect(m!.content).not.toContain('line two');
    expect(m!.seq).toBe(1);
  });
});

describe('order kept in the places a log rarely reaches', () => {
  it('a note with no call open takes its place at once: the answer after it comes after it', () => {
    const log = new LogBuilder();
    log.user('u1');
    log.add({ kind: 'status', text: 'STATUS' } as never);
    log.agent('a3');
    expect(deriveView(log.events).map((m) => m.content)).toEqual(['u1', 'STATUS', 'a3']);
  });

  it('a call logged after a user message belongs to no earlier answer', () => {
    const log = new LogBuilder();
    log.user('u1');
    log.agent('a2');
    log.user('u3');
    log.add({ kind: 'tool_call', callId: 'x', name: 'bash', input: {} });
    const view = deriveView(log.events);
    expect(view[1]!.toolCalls).toBeUndefined();
    expect(view.map((m) => m.content)).toEqual(['u1', 'a2', 'u3']);
  });

  it('a summary-only compaction clears no tool result; a span with nothing of the view in it inserts no summary', () => {
    const log = new LogBuilder();
    log.user('u1'); // 1
    log.tools(['a'], true, big('out')); // 2,3,4
    log.agent('a5'); // 5
    log.user('u6'); // 6
    log.compaction([5, 5], 'S'); // 7
    const view = deriveView(log.events);
    expect(view.find((m) => m.role === 'tool')!.content).toBe(big('out'));
    const gap: SourcedMessage[] = [
      { role: 'user', content: 'u1', seq: 1 },
      { role: 'assistant', content: 'a2', seq: 2 },
      { role: 'user', content: 'u10', seq: 10 },
    ];
    applyCompaction(gap, { coversSeq: [5, 6], summary: 'S' }, new Map());
    expect(gap.map((m) => m.content)).toEqual(['u1', 'a2', 'u10']);
  });
});
