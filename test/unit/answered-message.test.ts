// The message being answered is never folded (issue 38, defect 1: in a small
// window, from the second turn on, the compaction's range took in the user
// message just sent; the model then read it only inside <compacted-history>,
// "context only, not a new instruction", and the question was never asked).
import { describe, expect, it } from 'vitest';
import { runPipeline } from '../../server/compaction/pipeline.js';
import { answeredMessages } from '../../server/compaction/plan.js';
import { defaultStrategies, summarize } from '../../server/compaction/strategies/index.js';
import { deriveView, plain } from '../../server/compaction/view.js';
import { context, summariser } from '../helpers/compaction.js';
import { LogBuilder } from '../helpers/events.js';
import { checkInvariants } from '../helpers/invariants.js';

function inside(range: [number, number] | undefined, seq: number, kept: number[] = []): boolean {
  return range !== undefined && seq >= range[0] && seq <= range[1] && !kept.includes(seq);
}

async function compact(log: LogBuilder, targetTokens: number, spy = summariser('## Task\nthe summary'), contextWindow = 8000) {
  const result = await runPipeline(defaultStrategies(), deriveView(log.events), context({ targetTokens, contextWindow, summariser: spy, trigger: 'threshold', force: false }));
  log.add({ kind: 'compaction', phase: 'finished', trigger: 'threshold', ...result });
  const view = deriveView(log.events);
  expect(checkInvariants(log.events, plain(view))).toEqual([]);
  return { result, view, spy };
}

describe('the message being answered', () => {
  it('a short message after a long first turn, in a window the head cannot share: history and the first message fold, the message stays last and itself', async () => {
    const log = new LogBuilder();
    log.user('please look at the project and tell me what it does '.repeat(40));
    for (let i = 0; i < 6; i++) log.tools([`c${i}`], true, 'x'.repeat(3000));
    log.agent('done');
    const asked = log.user('run bash: ls');
    // A window the head and the message cannot share with a summary and the answer: the first message folds too.
    const { result, view } = await compact(log, 300, undefined, 800);
    expect(result.coversSeq).toBeDefined();
    expect(inside(result.coversSeq, asked.seq, result.keptSeqs)).toBe(false);
    expect(view.at(-1)).toMatchObject({ role: 'user', content: 'run bash: ls' });
    // The head did not fit beside it: the first message folded too (the summary is first; the ledger points to its event).
    expect(view[0]!.summaryOf).toBeDefined();
    expect(view[0]!.content).toContain(`[event ${log.events[0]!.seq}, long message of`);
  });

  it('a message typed during a tool call sits inside the folded range by seq: it is kept verbatim after the summary', async () => {
    const log = new LogBuilder();
    log.user('first');
    log.agent('ok');
    const started = log.user('refactor everything');
    log.agent('', false);
    log.add({ kind: 'tool_call', callId: 'a', name: 'bash', input: { command: 'ls' } });
    log.add({ kind: 'tool_call', callId: 'b', name: 'bash', input: { command: 'ls -la' } });
    log.add({ kind: 'tool_result', callId: 'a', name: 'bash', output: 'y'.repeat(4000), isError: false, durationMs: 1 });
    const typed = log.user('and keep the tests green');
    log.add({ kind: 'tool_result', callId: 'b', name: 'bash', output: 'z'.repeat(4000), isError: false, durationMs: 1 });
    for (let i = 0; i < 5; i++) log.tools([`t${i}`], true, 'w'.repeat(3000));
    const before = deriveView(log.events);
    expect([...answeredMessages(before)].map((i) => before[i]!.seq)).toEqual(expect.arrayContaining([started.seq, typed.seq]));
    const { result, view } = await compact(log, 700);
    expect(result.keptSeqs).toEqual(expect.arrayContaining([started.seq, typed.seq]));
    const at = view.findIndex((m) => m.summaryOf);
    expect(view.slice(at + 1).map((m) => m.content)).toEqual(expect.arrayContaining(['refactor everything', 'and keep the tests green']));
    expect(view[at]!.content).toContain(`except events ${result.keptSeqs!.join(', ')}, which follow it verbatim`);
    // The turn's latest step stays whole too (the model reads its results to go on).
    expect(view.at(-1)).toMatchObject({ role: 'tool', content: 'w'.repeat(3000) });
  });

  it('a long turn after the message: its earlier calls fold, the message and the latest step stay', async () => {
    const log = new LogBuilder();
    log.user('first');
    log.agent('ok');
    const asked = log.user('refactor everything');
    for (let i = 0; i < 8; i++) log.tools([`t${i}`], true, 'y'.repeat(3000));
    const { result, view } = await compact(log, 1200);
    expect(result.keptSeqs).toContain(asked.seq);
    const at = view.findIndex((m) => m.seq === asked.seq && m.fromUser);
    expect(view[at - 1]!.summaryOf).toBeDefined();
    expect(view.at(-1)!.role).toBe('tool');
  });

  it('a later compaction keeps it again, and one after the turn finished may fold it', async () => {
    const log = new LogBuilder();
    log.user('first');
    for (let i = 0; i < 3; i++) log.tools([`a${i}`], true, 'x'.repeat(3000));
    log.agent('done');
    const asked = log.user('next question');
    for (let i = 0; i < 4; i++) log.tools([`b${i}`], true, 'y'.repeat(3000));
    await compact(log, 900);
    for (let i = 0; i < 4; i++) log.tools([`c${i}`], true, 'z'.repeat(3000));
    const { result } = await compact(log, 900);
    expect(inside(result.coversSeq, asked.seq, result.keptSeqs)).toBe(false);
    log.agent('answered');
    log.user('thanks');
    const { result: third, view } = await compact(log, 400);
    expect(inside(third.coversSeq, asked.seq, third.keptSeqs)).toBe(true);
    expect(view.at(-1)!.content).toBe('thanks');
  });

  it('a compaction with nothing worth folding calls no summariser', async () => {
    const log = new LogBuilder();
    log.user('first');
    log.agent('ok');
    log.user('second');
    const spy = summariser('## Task\nnever used');
    const result = await runPipeline([summarize()], deriveView(log.events), context({ targetTokens: 10, summariser: spy, force: true, trigger: 'manual' }));
    expect(spy.calls).toHaveLength(0);
    expect(result.strategy).toBe('none');
    expect(result.tokensAfter).toBe(result.tokensBefore);
  });
});

describe('a summary with nothing new to read', () => {
  it('a span of the earlier summary and skein\'s own notes calls no summariser: the earlier summary is carried', async () => {
    const { summaryMessage } = await import('../../server/compaction/view.js');
    const { CUT_NOTE_OPEN, CUT_NOTE_CLOSE } = await import('../../shared/protocol.js');
    const messages = [
      { role: 'user' as const, content: 'first', seq: 1, fromUser: true as const },
      summaryMessage('## Task\nthe earlier summary', undefined, [2, 9]),
      { role: 'user' as const, content: `${CUT_NOTE_OPEN}${'go on from the cut '.repeat(200)}${CUT_NOTE_CLOSE}`, seq: 10 },
      { role: 'user' as const, content: 'next question', seq: 12, fromUser: true as const },
    ];
    const spy = summariser('## Task\nnever used');
    const result = await runPipeline([summarize()], messages, context({ targetTokens: 10, summariser: spy, trigger: 'threshold', force: false }));
    expect(spy.calls).toHaveLength(0);
    expect(result.strategy).toBe('summarize');
    expect(result.summary).toBe('## Task\nthe earlier summary');
    expect(result.tokensAfter).toBeLessThan(result.tokensBefore);
  });
});
