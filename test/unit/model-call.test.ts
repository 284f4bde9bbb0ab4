// Retries with backoff around one model call, and the delta frames of a stream.
import { describe, expect, it } from 'vitest';
import { backoffMs, callModel, MAX_DELAY_MS } from '../../server/agent/model-call.js';
import { ContextOverflowError, ProviderError, type LlmRequest, type LlmResponse, type Provider, type StreamHandlers } from '../../server/llm/types.js';
import type { DeltaFrame } from '../../shared/protocol.js';

const request: LlmRequest = { system: 's', messages: [{ role: 'user', content: 'hi' }], tools: [], maxOutputTokens: 10, purpose: 'turn' };
const ok: LlmResponse = { text: 'hello', toolCalls: [], stopReason: 'end_turn', usage: { input: 1, cacheRead: 0, cacheWrite: 0, output: 1, costUsd: 0 } };

/** A provider that fails with the given errors, then streams "hel" + "lo". */
function flaky(errors: Error[]): Provider & { calls: number } {
  return {
    model: 'flaky',
    limits: { contextWindow: 1000, maxOutputTokens: 10 },
    calls: 0,
    async complete(_r: LlmRequest, _s: AbortSignal, stream?: StreamHandlers) {
      this.calls++;
      stream?.onText?.('hel');
      const error = errors.shift();
      if (error) throw error;
      stream?.onText?.('lo');
      return ok;
    },
  };
}

function hooks() {
  const frames: DeltaFrame[] = [];
  const retries: string[] = [];
  return { frames, retries, afterSeq: 7, broadcast: (f: DeltaFrame) => frames.push(f), retrying: (m: string) => retries.push(m) };
}

const policy = { max: 3, baseMs: 1 };

describe('callModel', () => {
  it('retries retryable failures, says so each time, and numbers the attempts of the deltas', async () => {
    const h = hooks();
    const p = flaky([new ProviderError('overloaded', 529, true), new ProviderError('boom', 500, true)]);
    expect(await callModel(p, request, new AbortController().signal, policy, h)).toBe(ok);
    expect(p.calls).toBe(3);
    expect(h.retries).toHaveLength(2);
    expect(h.retries[0]).toMatch(/flaky \(529\): overloaded\. Retrying in \d+ ms \(retry 1 of 3\)/);
    expect(h.frames.map((f) => [f.afterSeq, f.attempt, f.index, f.text])).toEqual([
      [7, 0, 0, 'hel'],
      [7, 1, 0, 'hel'],
      [7, 2, 0, 'hel'],
      [7, 2, 1, 'lo'],
    ]);
  });

  it('gives up after the last retry with the provider error', async () => {
    const h = hooks();
    const errors = Array.from({ length: 5 }, () => new ProviderError('boom', 500, true));
    const p = flaky(errors);
    await expect(callModel(p, request, new AbortController().signal, policy, h)).rejects.toMatchObject({ status: 500 });
    expect(p.calls).toBe(4);
    expect(h.retries).toHaveLength(3);
  });

  it('does not retry what a retry cannot fix: overflow, a 400, a non-provider error', async () => {
    for (const error of [new ContextOverflowError('prompt is too long'), new ProviderError('bad', 400, false), new Error('bug')]) {
      const p = flaky([error]);
      await expect(callModel(p, request, new AbortController().signal, policy, hooks())).rejects.toBe(error);
      expect(p.calls).toBe(1);
    }
  });

  it('a cancel during the backoff ends the wait at once', async () => {
    const controller = new AbortController();
    const p = flaky([new ProviderError('overloaded', 529, true)]);
    const started = Date.now();
    const call = callModel(p, request, controller.signal, { max: 3, baseMs: 10_000 }, { ...hooks(), retrying: () => controller.abort(new Error('cancelled')) });
    await expect(call).rejects.toThrow('cancelled');
    expect(Date.now() - started).toBeLessThan(1000);
  });
});

describe('backoff', () => {
  it('doubles from the base, with a little jitter, honours retry-after, and is capped', () => {
    const p = { max: 5, baseMs: 1000 };
    for (let retry = 1; retry <= 4; retry++) {
      const ms = backoffMs(retry, p);
      expect(ms).toBeGreaterThanOrEqual(0.9 * 1000 * 2 ** (retry - 1));
      expect(ms).toBeLessThanOrEqual(1.1 * 1000 * 2 ** (retry - 1));
    }
    expect(backoffMs(1, p, 5000)).toBe(5000);
    expect(backoffMs(1, p, 10 * 60_000)).toBe(MAX_DELAY_MS);
    expect(backoffMs(20, p)).toBe(MAX_DELAY_MS);
  });
});
