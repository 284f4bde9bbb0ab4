// Each way a refusal is recovered from, with what the window learns and what
// the next request asks for: an output-only refusal (no compaction, a capped
// answer), an unrecognised 400 near the window (taken for an overflow once),
// the server's count calibrating the estimate, a server that cuts at num_ctx
// (never sent a request it would cut), the floor-only retry of a refusal that
// named nothing (once), and the bound on refusals and attempts.
import { describe, expect, it } from 'vitest';
import {
  emptyLengthOverflow,
  GuessedOverflowError,
  MAX_ATTEMPTS,
  MAX_REFUSALS,
  OverflowRecovery,
  wroteNothingForLength,
  WouldOverflowError,
  type RecoveryHost,
} from '../../server/agent/overflow-recovery.js';
import { outputFloor, windowMargin, type SessionWindow } from '../../server/agent/window.js';
import { ContextOverflowError, ProviderError, type LlmResponse } from '../../server/llm/types.js';

/** A window like the session's: learns smaller windows, records output caps. */
class FakeWindow {
  source = 'provider';
  provenPrompt = 0;
  cutsAt: number | undefined;
  caps: number[] = [];
  learned: number[] = [];
  constructor(public contextWindow: number, public maxOutput = 4096) {}
  tooLong(estimate: number) {
    return estimate + outputFloor(this.contextWindow) + windowMargin(this.contextWindow) > this.contextWindow;
  }
  outputBudget(estimate: number) {
    const room = this.contextWindow - estimate - windowMargin(this.contextWindow);
    return Math.max(outputFloor(this.contextWindow), Math.min(this.maxOutput, room));
  }
  learn(window: number) {
    this.learned.push(window);
    const w = Math.max(Math.floor(window), this.provenPrompt);
    if (w >= this.contextWindow) return false;
    this.contextWindow = w;
    return true;
  }
  capOutput(cap: number) {
    this.caps.push(cap);
  }
}

function setup(opts: { window?: number; size: number; head?: number; shrink?: number }) {
  const window = new FakeWindow(opts.window ?? 8000);
  let size = opts.size;
  const levels: number[] = [];
  const notes: string[] = [];
  const calibrations: [number, number][] = [];
  const compacting: string[] = [];
  const host: RecoveryHost = {
    window: window as unknown as SessionWindow,
    model: () => 'm',
    enterCompacting: (reason) => compacting.push(reason),
    compact: async (level) => {
      levels.push(level);
      size = Math.max(opts.head ?? 500, size - (opts.shrink ?? 0) * (level + 1));
    },
    estimate: () => size,
    headEstimate: () => opts.head ?? 500,
    calibrate: (raw, prompt) => calibrations.push([raw, prompt]),
    note: (m) => notes.push(m),
  };
  return { window, host, levels, notes, calibrations, compacting, recovery: new OverflowRecovery(host), size: () => size };
}

const err = (msg: string, limits: ConstructorParameters<typeof ContextOverflowError>[1] = {}, truncated = false) => new ContextOverflowError(msg, limits, truncated);

describe('a refusal about the answer only', () => {
  it('the prompt fits the named window: the answer is capped to what is left, nothing is compacted', async () => {
    const t = setup({ size: 5000 });
    const refusal = err('too long', { window: 6000, prompt: 5000, maxTokens: 4096 });
    expect(await t.recovery.recover(refusal, { input: 5000, maxTokens: 4096 })).toBe('output');
    expect(t.window.learned).toEqual([6000]);
    expect(t.window.caps).toEqual([6000 - 5000 - windowMargin(6000)]);
    expect(t.levels).toEqual([]);
    expect(t.compacting).toEqual([]);
  });

  it('a prompt that leaves exactly the floor is still only capped; one token less room is compacted', async () => {
    const w = 6000;
    const fits = w - windowMargin(w) - outputFloor(w);
    const a = setup({ size: fits, shrink: 1000 });
    expect(await a.recovery.recover(err('x', { window: w, prompt: fits, maxTokens: 4096 }), { input: fits, maxTokens: 4096 })).toBe('output');
    const b = setup({ size: fits + 1, shrink: 1000 });
    expect(await b.recovery.recover(err('x', { window: w, prompt: fits + 1, maxTokens: 4096 }), { input: fits + 1, maxTokens: 4096 })).toBe('compacted');
    expect(b.levels.length).toBeGreaterThan(0);
    expect(b.window.caps).toEqual([]);
  });

  it('a prompt plus the answer asked that fits the named window is no output refusal: it is compacted', async () => {
    const t = setup({ size: 3000, shrink: 1000 });
    // 3000 + 3000 = 6000: not more than the window, so the answer's room was not what passed it.
    expect(await t.recovery.recover(err('x', { window: 6000, prompt: 3000, maxTokens: 3000 }), { input: 3000, maxTokens: 3000 })).toBe('compacted');
    expect(t.window.caps).toEqual([]);
    // The maxTokens the refusal names wins over what skein thinks it sent.
    const u = setup({ size: 3000, shrink: 1000 });
    expect(await u.recovery.recover(err('x', { window: 6000, prompt: 3000, maxTokens: 3001 }), { input: 3000, maxTokens: 3000 })).toBe('output');
  });

  it('a cut (not a refusal) is never taken for an output refusal', async () => {
    const t = setup({ size: 5000, shrink: 1000 });
    expect(await t.recovery.recover(err('cut', { window: 6000, prompt: 5000, maxTokens: 4096 }, true), { input: 5000, maxTokens: 4096 })).toBe('compacted');
    expect(t.window.caps).toEqual([]);
  });

  it('a refusal naming nothing, whose smaller window still fits the prompt: the same prompt again asking for less', async () => {
    const t = setup({ window: 10000, size: 5000 });
    expect(await t.recovery.recover(err('too long'), { input: 5000, maxTokens: 4096 })).toBe('output');
    // No answer yet: the refused request (5000 + 4096) less 10%.
    expect(t.window.contextWindow).toBe(Math.floor(0.9 * 9096));
    expect(t.levels).toEqual([]);
  });
});

describe('an unrecognised refusal near the window', () => {
  const near = { input: 7000, maxTokens: 1000 };
  it('a 400, 413 or 422 on a request of at least 80% of the window is taken for an overflow, once per request', () => {
    for (const status of [400, 413, 422]) {
      const t = setup({ size: 7000 });
      const guess = t.recovery.unrecognised(new ProviderError('bad request', status, false), near);
      expect(guess).toBeInstanceOf(GuessedOverflowError);
      expect(guess!.message).toBe('bad request');
      expect(t.notes).toHaveLength(1);
      expect(t.notes[0]).toContain(`refused the request with ${status} (“bad request”)`);
      expect(t.notes[0]).toContain('about 7,000 tokens, 1,000 asked for the answer) is near the 8,000-token window');
      expect(t.notes[0]).toContain(`asking for at most ${outputFloor(8000).toLocaleString('en-US')} tokens of answer`);
      expect(t.recovery.unrecognised(new ProviderError('bad request', status, false), near)).toBeUndefined();
      t.recovery.answered();
      expect(t.recovery.unrecognised(new ProviderError('bad request', status, false), near)).toBeInstanceOf(GuessedOverflowError);
    }
  });

  it('exactly 80% is near; less is a real error; so is any other status, a retryable one, one without a status, or not a provider error', () => {
    expect(setup({ size: 1 }).recovery.unrecognised(new ProviderError('x', 400, false), { input: 5400, maxTokens: 1000 })).toBeInstanceOf(GuessedOverflowError);
    expect(setup({ size: 1 }).recovery.unrecognised(new ProviderError('x', 400, false), { input: 5399, maxTokens: 1000 })).toBeUndefined();
    for (const e of [new ProviderError('x', 500, false), new ProviderError('x', 401, false), new ProviderError('x', 400, true), new ProviderError('x', undefined, false), new Error('x')]) {
      const t = setup({ size: 1 });
      expect(t.recovery.unrecognised(e, near)).toBeUndefined();
      expect(t.notes).toEqual([]);
    }
  });

  it('the note quotes at most 200 characters of the message', () => {
    const t = setup({ size: 1 });
    t.recovery.unrecognised(new ProviderError(`${'a'.repeat(200)}TAIL`, 400, false), near);
    expect(t.notes[0]).toContain(`“${'a'.repeat(200)}”`);
  });

  it('the guessed overflow is compacted and asks for the floor only; its count calibrates against the known window', async () => {
    const t = setup({ size: 7000, shrink: 1500 });
    const guess = t.recovery.unrecognised(new ProviderError('x', 400, false), near)!;
    expect(await t.recovery.recover(guess, { ...near, raw: 6000 })).toBe('compacted');
    expect(t.window.caps[0]).toBe(outputFloor(8000));
    expect(t.levels.length).toBeGreaterThan(0);
    expect(t.calibrations).toEqual([[6000, 8000 - 1000 + 1]]);
  });
});

describe("the server's count calibrates the estimate", () => {
  it('a named prompt is its count; a named window alone bounds it from below; a cut without a count says nothing', async () => {
    const named = setup({ size: 7000, shrink: 3000 });
    await named.recovery.recover(err('x', { window: 8000, prompt: 7500 }), { input: 7000, maxTokens: 1000, raw: 6900 });
    expect(named.calibrations).toEqual([[6900, 7500]]);
    const windowOnly = setup({ size: 7000, shrink: 3000 });
    await windowOnly.recovery.recover(err('x', { window: 8000 }), { input: 7000, maxTokens: 1000, raw: 6900 });
    expect(windowOnly.calibrations).toEqual([[6900, 8000 - 1000 + 1]]);
    const withMax = setup({ size: 7000, shrink: 3000 });
    await withMax.recovery.recover(err('x', { window: 8000, maxTokens: 2000 }), { input: 7000, maxTokens: 1000, raw: 6900 });
    expect(withMax.calibrations).toEqual([[6900, 8000 - 2000 + 1]]);
    const cut = setup({ size: 7000, shrink: 3000 });
    await cut.recovery.recover(err('x', { window: 8000 }, true), { input: 7000, maxTokens: 1000, raw: 6900 });
    expect(cut.calibrations).toEqual([]);
    const cutCounted = setup({ size: 7000, shrink: 3000 });
    await cutCounted.recovery.recover(err('x', { prompt: 7200 }, true), { input: 7000, maxTokens: 1000, raw: 6900 });
    expect(cutCounted.calibrations).toEqual([[6900, 7200]]);
    const noRaw = setup({ size: 7000, shrink: 3000 });
    await noRaw.recovery.recover(err('x', { window: 8000, prompt: 7500 }), { input: 7000, maxTokens: 1000 });
    expect(noRaw.calibrations).toEqual([]);
    const nothing = setup({ size: 7000, shrink: 3000 });
    await nothing.recovery.recover(err('x', { window: 900 }), { input: 7000, maxTokens: 1000, raw: 6900 }).catch(() => undefined);
    expect(nothing.calibrations).toEqual([]);
  });
});

describe("skein's own check against a server that cuts at num_ctx", () => {
  it('never sends what the server would cut: gives up with the numbers, instead of sending as it is', async () => {
    const t = setup({ window: 4000, size: 3800, head: 3700 });
    t.window.cutsAt = 3750;
    const would = new WouldOverflowError('x', { window: 4000, prompt: 3800 });
    await expect(t.recovery.recover(would, { input: 3800, maxTokens: 512 })).rejects.toThrow(/first message alone take about 3,700 tokens/);
    // Below num_ctx it goes out as it is, and the check lets it.
    const u = setup({ window: 4000, size: 3800, head: 3700 });
    u.window.cutsAt = 3800;
    expect(await u.recovery.recover(would, { input: 3800, maxTokens: 512 })).toBe('compacted');
    expect(() => u.recovery.check(3800, 512)).not.toThrow();
  });

  it('after MAX_ATTEMPTS rounds of its own check: sent as it is, unless the server would cut it', async () => {
    const t = setup({ window: 4000, size: 3700, head: 100 });
    t.window.tooLong = () => true;
    t.window.cutsAt = 3000;
    const would = () => new WouldOverflowError('x', { window: 4000, prompt: 3700 });
    for (let i = 0; i < MAX_ATTEMPTS; i++) await t.recovery.recover(would(), { input: 3700, maxTokens: 512 }).catch(() => undefined);
    await expect(t.recovery.recover(would(), { input: 3700, maxTokens: 512 })).rejects.toThrow(/still leaves about 3,700 tokens, more than the 3,000 the server reads before it cuts/);
    const levelsBefore = t.levels.length;
    t.window.cutsAt = undefined;
    expect(await t.recovery.recover(would(), { input: 3700, maxTokens: 512 })).toBe('compacted');
    expect(t.levels.length).toBe(levelsBefore);
    expect(() => t.recovery.check(3700, 512)).not.toThrow();
  });
});

describe('bounds', () => {
  it('each recovery of one request starts a level deeper, up to the last', async () => {
    const t = setup({ window: 8000, size: 9000, head: 500 });
    t.window.tooLong = () => true;
    const would = () => new WouldOverflowError('x', { window: 8000, prompt: 9000 });
    for (let i = 0; i < 4; i++) await t.recovery.recover(would(), { input: 9000, maxTokens: 512 }).catch(() => undefined);
    // Round 1: levels 0..2; round 2: 1..2; then 2 only.
    expect(t.levels).toEqual([0, 1, 2, 1, 2, 2, 2]);
  });

  it('the refusals of one request are bounded by MAX_REFUSALS, counted apart from the attempts', async () => {
    const t = setup({ window: 100_000, size: 50_000, shrink: 1 });
    let last: unknown;
    let refusals = 0;
    for (; refusals < 20; refusals++) {
      try {
        await t.recovery.recover(err('too long', { window: 100_000, prompt: 99_000 - refusals }), { input: 50_000, maxTokens: 512 });
      } catch (e) {
        last = e;
        break;
      }
    }
    expect(refusals).toBe(MAX_REFUSALS);
    expect((last as Error).message).toContain(`the provider refused ${MAX_REFUSALS} smaller and smaller requests`);
    expect((last as Error).message).toContain("m's server keeps refusing this request as too long");
  });

  it('attempts of every kind count toward MAX_ATTEMPTS; an answer starts afresh', async () => {
    const t = setup({ window: 100_000, size: 50_000, shrink: 1 });
    const would = () => new WouldOverflowError('x', { window: 100_000, prompt: 50_000 });
    for (let i = 0; i < MAX_ATTEMPTS - 1; i++) expect(await t.recovery.recover(would(), { input: 50_000, maxTokens: 512 })).toBe('compacted');
    expect(await t.recovery.recover(err('x', { window: 100_000, prompt: 99_000 }), { input: 50_000, maxTokens: 512 })).toBe('compacted');
    await expect(t.recovery.recover(err('x', { window: 100_000, prompt: 98_000 }), { input: 50_000, maxTokens: 512 })).rejects.toThrow(`skein tried ${MAX_ATTEMPTS} times to make this request fit`);
    t.recovery.answered();
    expect(await t.recovery.recover(err('x', { window: 100_000, prompt: 99_000 }), { input: 50_000, maxTokens: 512 })).toBe('compacted');
  });

  it('the floor-only retry of a refusal that named nothing happens once', async () => {
    // Nothing folds; the request fits the known window; the refusal named no window.
    const t = setup({ window: 10000, size: 3000, head: 3000 });
    t.window.provenPrompt = 8000;
    expect(await t.recovery.recover(err('too long'), { input: 3000, maxTokens: 4096 })).toBe('compacted');
    expect(t.window.caps).toEqual([outputFloor(t.window.contextWindow)]);
    expect(() => t.recovery.check(3000, 4096)).not.toThrow();
    await expect(t.recovery.recover(err('too long'), { input: 3000, maxTokens: 4096 })).rejects.toThrow(/cannot make it smaller than the 3,000 tokens the server refused/);
    // An output already at the floor is not retried at the floor.
    const u = setup({ window: 10000, size: 3000, head: 3000 });
    u.window.provenPrompt = 8000;
    await expect(u.recovery.recover(err('too long'), { input: 3000, maxTokens: outputFloor(8000) })).rejects.toThrow(/keeps refusing/);
  });

  it('a compaction is announced with the refusal; a give-up names the model, the window and its source', async () => {
    const t = setup({ window: 4000, size: 3900, head: 3800 });
    const e = await t.recovery.recover(err('the server said no', { window: 4000, prompt: 4100 }), { input: 3900, maxTokens: 512 }).catch((x: Error) => x);
    expect(t.compacting).toEqual(['overflow: the server said no']);
    expect((e as Error).message).toMatch(/^The conversation cannot fit m's context window of 4,000 tokens \(from the provider\): /);
  });
});

describe('an empty answer that stopped for length', () => {
  const response = (over: Partial<LlmResponse>): LlmResponse => ({ text: '', toolCalls: [], stopReason: 'max_tokens', usage: { input: 3000, output: 0, cacheRead: 100, cacheWrite: 20 }, ...over }) as LlmResponse;
  it('is an overflow only with nothing written and 0 output tokens', () => {
    expect(wroteNothingForLength(response({}))).toBe(true);
    expect(wroteNothingForLength(response({ stopReason: 'end_turn' } as never))).toBe(false);
    expect(wroteNothingForLength(response({ text: 'x' }))).toBe(false);
    expect(wroteNothingForLength(response({ toolCalls: [{ id: 'a', name: 'bash', input: {} }] }))).toBe(false);
    expect(wroteNothingForLength(response({ usage: { input: 3000, output: 1, cacheRead: 0, cacheWrite: 0 } } as never))).toBe(false);
    expect(wroteNothingForLength(response({ reasoning: { provider: 'openai', model: 'm', output: [] } } as never))).toBe(false);
  });

  it('names the whole prompt the server counted, cache included', () => {
    const e = emptyLengthOverflow(response({}));
    expect(e.limits).toEqual({ prompt: 3120 });
    expect(e.message).toBe('the server stopped for length before writing anything (0 output tokens, 3,120 prompt tokens): its context is full');
    expect(emptyLengthOverflow(response({ usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } } as never)).limits).toEqual({});
  });
});
