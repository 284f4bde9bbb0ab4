// Building blocks for compaction tests: contexts, summarisers that misbehave.
import type { CompactionContext } from '../../server/compaction/pipeline.js';
import { PredictableProvider } from '../../server/llm/predictable.js';
import type { LlmRequest, LlmResponse, Provider } from '../../server/llm/types.js';

export const BASE = { system: 'You are a test agent.', tools: [] };

export function context(overrides: Partial<CompactionContext> = {}): CompactionContext {
  return {
    base: BASE,
    contextWindow: 8000,
    targetTokens: 4000,
    summariser: new PredictableProvider({ contextWindow: 100_000, maxOutputTokens: 4096 }),
    summariserTimeoutMs: 5000,
    trigger: 'threshold',
    force: false,
    skipSummariser: false,
    signal: new AbortController().signal,
    ...overrides,
  };
}

/** A summariser that answers with `behaviour` (a text, a thrown error, or never). */
export function summariser(behaviour: string | Error | 'hang', limits = { contextWindow: 100_000, maxOutputTokens: 4096 }): Provider & { calls: LlmRequest[] } {
  const calls: LlmRequest[] = [];
  return {
    model: 'test-summariser',
    limits,
    calls,
    complete(request: LlmRequest, signal: AbortSignal): Promise<LlmResponse> {
      calls.push(request);
      if (behaviour instanceof Error) return Promise.reject(behaviour);
      if (behaviour === 'hang') {
        return new Promise((_, reject) => signal.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')), { once: true }));
      }
      return Promise.resolve({ text: behaviour, toolCalls: [], stopReason: 'end_turn', usage: { input: 10, cacheRead: 0, cacheWrite: 0, output: 5, costUsd: 0 } });
    },
  };
}
