// The rules the llama.cpp rows of the mismatch bench count by
// (test/bench/mismatch-llama-count.ts), on small hand-made logs.
import { describe, expect, it } from 'vitest';
import type { SkeinEvent } from '../../shared/protocol.js';
import type { Exchange } from '../bench/llama-proxy.js';
import { countLlama, foldedTurns, judgeCuts } from '../bench/mismatch-llama-count.js';

const T0 = Date.parse('2026-11-29T10:00:00.000Z');
let seq = 0;
/** An event at T0 + `ms`. */
function ev(ms: number, e: Record<string, unknown>): SkeinEvent {
  return { seq: ++seq, ts: new Date(T0 + ms).toISOString(), ...e } as SkeinEvent;
}
const user = (ms: number) => ev(ms, { kind: 'user', text: 'run bash: ls' });
const agent = (ms: number, extra: Record<string, unknown> = {}) => ev(ms, { kind: 'agent', text: 'x', model: 'm', endOfTurn: true, ...extra });
const idle = (ms: number) => ev(ms, { kind: 'state', from: 'ProcessingLLMResponse', to: 'WaitingForUserInput', reason: 'end' });
const folded = (ms: number, covers: [number, number]) => ev(ms, { kind: 'compaction', phase: 'finished', trigger: 'preflight', coversSeq: covers });
const x = (started: number, ended: number, more: Partial<Exchange>): Exchange => ({ purpose: 'agent', started: T0 + started, ended: T0 + ended, status: 200, stream: true, ...more });

describe('foldedTurns', () => {
  const carried = (started: number, userTexts: string[]) => x(started, started + 5, { userTexts });
  it('counts a turn with a request that does not carry its own user message as itself, once per turn', () => {
    seq = 0;
    const events = [user(0), agent(10), idle(11), ev(20, { kind: 'user', text: 'second question' }), agent(40), idle(41)];
    // Carried inside a longer user message (a wrapper around what was typed) counts as carried.
    const exchanges = [carried(1, ['run bash: ls']), carried(21, ['run bash: ls', 'second question']), carried(30, ['[typed] second question'])];
    expect(foldedTurns(events, exchanges)).toBe(0);
    // One request of turn 2 without it (only a summary held it, which the proxy leaves out): the turn counts once.
    expect(foldedTurns(events, [carried(1, ['run bash: ls']), carried(21, ['run bash: ls']), carried(30, ['second question'])])).toBe(1);
  });

  it('ignores summary requests and the requests of other turns; a turn with no request counts nothing', () => {
    seq = 0;
    const events = [user(0), agent(10), idle(11), ev(20, { kind: 'user', text: 'second question' }), ev(21, { kind: 'error', code: 'context_overflow', message: 'x' })];
    const exchanges = [carried(1, ['run bash: ls']), x(22, 30, { purpose: 'summary' })];
    expect(foldedTurns(events, exchanges)).toBe(0);
  });

  it('does not trust the log: a compaction event that claims to keep the message changes nothing', () => {
    seq = 0;
    const u2 = ev(20, { kind: 'user', text: 'second question' });
    const events = [user(0), agent(10), idle(11), u2, folded(21, [1, u2.seq]), agent(30), idle(31)];
    expect(foldedTurns(events, [carried(1, ['run bash: ls']), carried(25, ['second question'])])).toBe(0);
    expect(foldedTurns(events, [carried(1, ['run bash: ls']), carried(25, ['run bash: ls'])])).toBe(1);
  });
});

describe('judgeCuts', () => {
  it('a cut answer kept with nothing said is unnamed; one followed by skein\'s answer_cut event is named; one never kept is dropped', () => {
    seq = 0;
    const events = [
      user(0),
      agent(105), // answers exchange 1 (cut, nothing said)
      idle(106),
      user(200),
      agent(305), // answers exchange 2 (cut, named)
      ev(305, { kind: 'answer_cut', reason: 'max_tokens', text: 'The answer was cut' }),
      idle(306),
      user(400),
      // exchange 3 (cut) was dropped: skein compacted and asked again (exchange 4)
      agent(705),
      // an unrelated error does not name it
      ev(706, { kind: 'error', code: 'internal', message: 'something else' }),
    ];
    const exchanges = [
      x(10, 100, { finishReason: 'length', promptTokens: 1_000, completionTokens: 512 }),
      x(210, 300, { finishReason: 'length', promptTokens: 1_536, completionTokens: 512 }),
      x(410, 500, { finishReason: 'length', promptTokens: 2_000, completionTokens: 48 }),
      x(600, 700, { finishReason: 'length', promptTokens: 900, completionTokens: 512 }),
      x(650, 660, { purpose: 'summary', finishReason: 'length' }),
    ];
    expect(judgeCuts(events, exchanges, 2_048)).toEqual({ cuts: 4, cutsContextFull: 2, cutsUnnamed: 2, cutsDropped: 1 });
  });

  it('the model table warning does not name a cut', () => {
    seq = 0;
    const events = [user(0), agent(105), ev(106, { kind: 'error', code: 'unknown_model', message: 'not in the table' })];
    expect(judgeCuts(events, [x(10, 100, { finishReason: 'length', promptTokens: 10, completionTokens: 5 })], 2_048).cutsUnnamed).toBe(1);
  });
});

describe('countLlama', () => {
  it('counts turns, finished compactions, overflows that reached the user, and the server\'s refusals', () => {
    seq = 0;
    const events = [user(0), folded(5, [2, 2]), ev(6, { kind: 'error', code: 'context_overflow', message: 'does not fit' }), idle(7), user(10), agent(20), idle(21)];
    const counts = countLlama(events, [x(1, 2, { status: 400, errorType: 'exceed_context_size_error' }), x(3, 4, { purpose: 'summary', finishReason: 'length' })], 2_048);
    expect(counts).toMatchObject({ turns: 2, compactions: 1, userOverflows: 1, refusals: 1, cuts: 0, summaryCuts: 1, foldedTurns: 0 });
  });
});
