// Overflow recovery's decisions with the host's numbers exactly on each
// boundary: a head that fills the window to the token is compacted, one token
// more is given up on at once (nothing folded) with an error that says what
// to do; a prompt the server read in full is sent again, one it refused is
// not; the floor-only retry comes back after an answer and goes out as it
// is; a failed compaction is the user's error, not a reason to send anyway;
// and hosts without the optional hooks work.
import { describe, expect, it } from 'vitest';
import { GuessedOverflowError, OverflowRecovery, WouldOverflowError, type RecoveryHost } from '../../server/agent/overflow-recovery.js';
import { outputFloor, windowMargin, type SessionWindow } from '../../server/agent/window.js';
import { ContextOverflowError, ProviderError } from '../../server/llm/types.js';

const W = 4000;
const FLOOR = outputFloor(W);
const MARGIN = windowMargin(W);
/** The largest input that leaves the answer its floor and the estimate its margin. */
const FULL = W - FLOOR - MARGIN;

/** A host with a fixed window of W (a refusal teaches it nothing), whose view folds down to `head`. */
function host(opts: { size: number; head: number; shrink?: number; proven?: number; calibrate?: boolean; note?: boolean }) {
  let size = opts.size;
  const levels: number[] = [];
  const caps: number[] = [];
  const reasons: string[] = [];
  const calibrations: [number, number][] = [];
  const notes: string[] = [];
  const window = {
    contextWindow: W,
    source: 'provider',
    provenPrompt: opts.proven ?? 0,
    cutsAt: undefined,
    tooLong: (estimate: number) => estimate + FLOOR + MARGIN > W,
    outputBudget: () => FLOOR,
    learn: () => false,
    capOutput: (cap: number) => caps.push(cap),
  } as unknown as SessionWindow;
  const h: RecoveryHost = {
    window,
    model: () => 'local-model',
    enterCompacting: (reason) => reasons.push(reason),
    compact: async (level) => {
      levels.push(level);
      size = Math.max(opts.head, size - (opts.shrink ?? 0));
    },
    estimate: () => size,
    headEstimate: () => opts.head,
    ...(opts.calibrate !== false && { calibrate: (raw: number, prompt: number) => calibrations.push([raw, prompt]) }),
    ...(opts.note !== false && { note: (m: string) => notes.push(m) }),
  };
  return { h, recovery: new OverflowRecovery(h), levels, caps, reasons, calibrations, notes };
}

const refusedAt = (prompt: number) => new ContextOverflowError('too long', { window: W, prompt });
const namesNothing = () => new ContextOverflowError('too long', {});
const fail = (p: Promise<unknown>) => p.then(() => new Error('resolved'), (e: Error) => e);

describe('the head check, on its boundary', () => {
  it('a head that leaves exactly the floor and the margin is compacted and sent', async () => {
    const t = host({ size: 3900, head: FULL, shrink: 1000 });
    expect(await t.recovery.recover(refusedAt(4100), { input: 3900, maxTokens: 512 })).toBe('compacted');
    expect(t.levels).toEqual([0]);
    expect(() => t.recovery.check(FULL, 512)).not.toThrow();
  });

  it('one token more is given up on before anything is folded, with an error that says what to do', async () => {
    const t = host({ size: 3900, head: FULL + 1, shrink: 1000 });
    const end = await fail(t.recovery.recover(refusedAt(4100), { input: 3900, maxTokens: 512 }));
    expect(end).toBeInstanceOf(ContextOverflowError);
    expect(t.levels).toEqual([]);
    expect(end.message).toContain(`the system prompt, the tools and your first message alone take about ${(FULL + 1).toLocaleString('en-US')} tokens`);
    expect(end.message).toContain("Send a shorter message (or the same in parts): this one stays in the history and folds out of the model's view once it is not the one being answered. Or give the server a larger context");
    expect(end.message).toContain('(llama.cpp: -c; Ollama: SKEIN_LOCAL_CONTEXT, num_ctx or OLLAMA_CONTEXT_LENGTH; vLLM: --max-model-len), or switch to a model with a larger window.');
  });

  it('a head the server already read in full (exactly the proven prompt) is no reason to give up: it goes out as it is', async () => {
    const t = host({ size: 3700, head: 3600, shrink: 400, proven: 3600 });
    expect(await t.recovery.recover(namesNothing(), { input: 3700, maxTokens: 512 })).toBe('compacted');
    expect(t.levels).toEqual([0, 1, 2]);
    // Too long for the window skein assumes, but sent as it is: skein's own check lets it.
    expect(() => t.recovery.check(3600, 512)).not.toThrow();
  });
});

describe('sent as it is only when strictly smaller than every refused request', () => {
  it('what is left equals the refused count: not sent again, the error names what is left', async () => {
    const t = host({ size: 3600, head: 3600, proven: 3650 });
    const end = await fail(t.recovery.recover(new ContextOverflowError('too long', { prompt: 3600 }), { input: 3600, maxTokens: 512 }));
    expect(end).toBeInstanceOf(ContextOverflowError);
    expect(end.message).toContain('compacting as hard as skein can still leaves about 3,600 tokens');
  });

  it('one token below the refused count (and within the proven prompt): sent as it is', async () => {
    const t = host({ size: 3600, head: 3600, proven: 3650 });
    expect(await t.recovery.recover(new ContextOverflowError('too long', { prompt: 3601 }), { input: 3601, maxTokens: 512 })).toBe('compacted');
    expect(() => t.recovery.check(3600, 512)).not.toThrow();
  });
});

describe('the floor-only retry of a refusal that named nothing', () => {
  it('is once per request, and an answer makes it available again', async () => {
    const t = host({ size: 3000, head: 3000 });
    const sent = { input: 3000, maxTokens: 2048 };
    expect(await t.recovery.recover(namesNothing(), sent)).toBe('compacted');
    expect(t.caps).toEqual([FLOOR]);
    const second = await fail(t.recovery.recover(namesNothing(), sent));
    expect(second.message).toContain('cannot make it smaller than the 3,000 tokens the server refused');
    // The server keeps refusing what skein counts as fitting: the error says what to set.
    expect(second.message).toContain("local-model's server keeps refusing this request as too long");
    expect(second.message).toContain('(from the provider), so the server counts tokens differently or its window is smaller than it says.');
    expect(second.message).toContain("Set SKEIN_CONTEXT_WINDOW below the server's real context, or start a new session.");
    t.recovery.answered();
    expect(await t.recovery.recover(namesNothing(), sent)).toBe('compacted');
    expect(t.caps).toEqual([FLOOR, FLOOR]);
  });

  it('goes out as it is: skein’s own check (whose estimate may count higher) does not fold it again', async () => {
    const t = host({ size: 3000, head: 3000 });
    expect(await t.recovery.recover(namesNothing(), { input: 3000, maxTokens: 2048 })).toBe('compacted');
    expect(() => t.recovery.check(FULL + 1, 2048)).not.toThrow();
  });
});

describe('a give-up whose numbers sit exactly on the window', () => {
  it('input and the answer’s floor summing to exactly the window: the margin is named too, so the sum passes it', async () => {
    const t = host({ size: W - FLOOR, head: W - FLOOR });
    const end = await fail(t.recovery.recover(refusedAt(4100), { input: W - FLOOR, maxTokens: 512 }));
    expect(end.message).toContain(`the answer needs at least ${FLOOR} more and skein keeps ${MARGIN} free for the error of its estimate: ${(W + MARGIN).toLocaleString('en-US')} in all`);
  });

  it('one token more: the input and the floor alone pass the window', async () => {
    const t = host({ size: W - FLOOR + 1, head: W - FLOOR + 1 });
    const end = await fail(t.recovery.recover(refusedAt(4100), { input: W - FLOOR + 1, maxTokens: 512 }));
    expect(end.message).toContain(`, and the answer needs at least ${FLOOR} more.`);
    expect(end.message).not.toContain('in all');
  });
});

describe("the server's count, on the edge of saying anything", () => {
  it('a window that names no room for the prompt (count 0) calibrates nothing; one token of room does', async () => {
    const zero = host({ size: 3000, head: 500, shrink: 1000 });
    await zero.recovery.recover(new ContextOverflowError('x', { window: 1000 }), { input: 3000, maxTokens: 1001, raw: 2900 }).catch(() => undefined);
    expect(zero.calibrations).toEqual([]);
    const one = host({ size: 3000, head: 500, shrink: 1000 });
    await one.recovery.recover(new ContextOverflowError('x', { window: 1000 }), { input: 3000, maxTokens: 1000, raw: 2900 }).catch(() => undefined);
    expect(one.calibrations).toEqual([[2900, 1]]);
  });
});

describe('hosts and compactions that fail', () => {
  it('a host without the calibrate and note hooks recovers all the same', async () => {
    const t = host({ size: 3900, head: 1000, shrink: 1000, calibrate: false, note: false });
    expect(await t.recovery.recover(refusedAt(4100), { input: 3900, maxTokens: 512, raw: 3800 })).toBe('compacted');
    expect(t.recovery.unrecognised(new ProviderError('bad request', 400, false), { input: 3500, maxTokens: 500 })).toBeInstanceOf(GuessedOverflowError);
  });

  it('a compaction that fails on skein’s own check is the error the user gets, not a reason to send the request anyway', async () => {
    const t = host({ size: 3900, head: 1000 });
    const broken: RecoveryHost = { ...t.h, compact: async () => Promise.reject(new Error('the summariser is unreachable')) };
    const recovery = new OverflowRecovery(broken);
    const would = (() => {
      try {
        recovery.check(3900, 512);
      } catch (e) {
        return e as WouldOverflowError;
      }
      throw new Error('the check let a too-long request through');
    })();
    expect(would).toBeInstanceOf(WouldOverflowError);
    await expect(recovery.recover(would, { input: 3900, maxTokens: 512 })).rejects.toThrow('the summariser is unreachable');
    // Not marked to go out as it is: the next check still stops it.
    expect(() => recovery.check(3900, 512)).toThrow(WouldOverflowError);
  });

  it('skein’s own check says, in the Compacting reason the user sees, how large the request is and what the window leaves', async () => {
    const t = host({ size: 3900, head: 1000, shrink: 1000 });
    let would: unknown;
    try {
      t.recovery.check(3900, 512);
    } catch (e) {
      would = e;
    }
    expect(await t.recovery.recover(would as WouldOverflowError, { input: 3900, maxTokens: 512 })).toBe('compacted');
    expect(t.reasons).toEqual([`overflow: the next request (about 3,900 tokens) leaves less than ${FLOOR} for the answer in a 4,000-token window`]);
  });
});
