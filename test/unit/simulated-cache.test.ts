// The offline models' simulated prompt cache: a request reads the longest
// prefix it shares with any of the last few requests, so a summary request
// with its own prompt in between does not evict the conversation's prefix.
import { describe, expect, it } from 'vitest';
import { SimulatedCache } from '../../server/llm/simulated-usage.js';
import type { LlmRequest } from '../../server/llm/types.js';

const turn = (n: number): LlmRequest => ({
  system: 'You are a test agent.',
  tools: [],
  messages: Array.from({ length: n }, (_, i) => ({ role: i % 2 ? ('assistant' as const) : ('user' as const), content: `message ${i} `.repeat(50) })),
  maxOutputTokens: 100,
  purpose: 'turn',
});

describe('simulated prompt cache', () => {
  it('keeps the conversation prefix readable across a summary request with another system prompt', () => {
    const cache = new SimulatedCache();
    cache.usage(turn(5));
    const summary = cache.usage({ system: 'Summarise.', tools: [], messages: [{ role: 'user', content: 'a transcript' }], maxOutputTokens: 100, purpose: 'summary' });
    expect(summary.cacheRead).toBe(0);
    const next = cache.usage(turn(7));
    const alone = new SimulatedCache();
    alone.usage(turn(5));
    // The same read as with no summary request in between: the 5 messages and the system prompt.
    expect(next).toEqual(alone.usage(turn(7)));
    expect(next.cacheRead).toBeGreaterThan(0);
  });

  it('forgets prefixes older than the last 4 requests', () => {
    const cache = new SimulatedCache();
    cache.usage(turn(5));
    for (let i = 0; i < 4; i++) cache.usage({ system: `other ${i}`, tools: [], messages: [{ role: 'user', content: 'x' }], maxOutputTokens: 100, purpose: 'summary' });
    expect(cache.usage(turn(7)).cacheRead).toBe(0);
  });
});
