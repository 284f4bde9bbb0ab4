// The real agent loop with a summariser that fails in each way: the turn
// goes on with the deterministic fallback, and after three failures in a row
// the circuit breaker stops calling the summariser.
import { describe, expect, it } from 'vitest';
import type { CompactionEvent } from '../../shared/protocol.js';
import { PredictableProvider } from '../../server/llm/predictable.js';
import type { LlmRequest, LlmResponse, Provider } from '../../server/llm/types.js';
import { startAgent } from '../helpers/agent.js';

/** The predictable model for turns; summaries fail as told. */
function withFailingSummaries(failure: 'throws' | 'hangs' | 'empty' | 'error-text'): Provider & { summaryCalls: number } {
  const inner = new PredictableProvider({ contextWindow: 4000, maxOutputTokens: 512 });
  const provider = {
    model: 'predictable',
    limits: inner.limits,
    summaryCalls: 0,
    complete(request: LlmRequest, signal: AbortSignal): Promise<LlmResponse> {
      if (request.purpose !== 'summary') return inner.complete(request, signal);
      provider.summaryCalls++;
      const answer = (text: string) => Promise.resolve<LlmResponse>({ text, toolCalls: [], stopReason: 'end_turn', usage: { input: 1, cacheRead: 0, cacheWrite: 0, output: 1, costUsd: 0 } });
      switch (failure) {
        case 'throws':
          return Promise.reject(new Error('529 overloaded'));
        case 'hangs':
          return new Promise((_, reject) => signal.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')), { once: true }));
        case 'empty':
          return answer('   ');
        case 'error-text':
          return answer('Error: the model is overloaded, try again later');
      }
    },
  };
  return provider;
}

async function runTurns(provider: Provider, texts: string[], summariserTimeoutMs = 300) {
  const run = startAgent(provider, { summariserTimeoutMs, policy: { thresholdRatio: 0.5, preflight: true, everyNCalls: 0 } });
  for (const text of texts) {
    run.session.userMessage(text);
    await run.idle();
  }
  const events = run.events();
  return { run, events, compactions: events.filter((e): e is CompactionEvent => e.kind === 'compaction' && e.phase === 'finished') };
}

describe('summariser failures inside a running session', () => {
  it.each(['throws', 'hangs', 'empty', 'error-text'] as const)('summariser %s -> fallback, and the turn continues', async (failure) => {
    const provider = withFailingSummaries(failure);
    const { events, compactions } = await runTurns(provider, ['echo: task', 'big: 700', 'big: 700', 'big: 700', 'echo: still here']);
    expect(compactions.length).toBeGreaterThanOrEqual(1);
    const first = compactions[0]!;
    expect(first.strategy).toBe('fallback');
    expect(first.error).toBeTruthy();
    expect(first.summary).not.toMatch(/overloaded|529|Error:/);
    expect(first.tokensAfter!).toBeLessThan(first.tokensBefore!);
    expect(events.filter((e) => e.kind === 'error' && e.code !== 'compaction_breaker_open')).toEqual([]);
    expect(events.findLast((e) => e.kind === 'agent')).toMatchObject({ text: 'still here' });
    expect(provider.summaryCalls).toBeGreaterThan(0);
  }, 30_000);

  it('opens the circuit breaker after three failures in a row, shows it, and stops calling the summariser', async () => {
    const provider = withFailingSummaries('throws');
    const turns = ['echo: task', ...Array.from({ length: 14 }, () => 'big: 700')];
    const { events, compactions } = await runTurns(provider, turns);
    expect(compactions.length).toBeGreaterThanOrEqual(5);
    const breaker = events.filter((e) => e.kind === 'error' && e.code === 'compaction_breaker_open');
    expect(breaker).toHaveLength(1);
    // Exactly three summariser attempts (one per compaction, no chunking at this size), then none.
    expect(provider.summaryCalls).toBe(3);
    expect(compactions.every((c) => c.strategy === 'fallback')).toBe(true);
    expect(breaker[0]!.seq).toBeGreaterThan(compactions[2]!.seq);
    expect(events.some((e) => e.kind === 'error' && e.code === 'context_overflow')).toBe(false);
  }, 60_000);
});
