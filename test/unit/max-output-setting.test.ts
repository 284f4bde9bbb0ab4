// SKEIN_MAX_OUTPUT_TOKENS: no request asks for more answer than it, whatever
// the window leaves room for (a slow local model's turn stays short); without
// it, the model's own budget.
import { describe, expect, it } from 'vitest';
import { SessionWindow } from '../../server/agent/window.js';
import type { Session } from '../../server/agent/session.js';
import { loadConfig } from '../../server/config.js';
import type { ModelInfo } from '../../server/llm/models.js';
import type { Provider } from '../../server/llm/types.js';
import { KindIndex } from '../../server/store/kind-index.js';
import type { SkeinEvent } from '../../shared/protocol.js';

async function windowOf(maxOutput: number | undefined) {
  const events: SkeinEvent[] = [];
  const session = { id: 's1', log: { all: () => events, kinds: new KindIndex(events) }, append: (e: object) => void events.push({ seq: events.length + 1, ts: '', ...e } as SkeinEvent) } as unknown as Session;
  const provider = { model: 'local-model', limits: { contextWindow: 8192, maxOutputTokens: 2048 }, complete: async () => ({}), discoverLimits: async () => ({ contextWindow: 8192, via: 'GET /props (n_ctx)' }) } as unknown as Provider;
  const info = { provider: 'openai', contextWindow: 32_000, maxOutputTokens: 4096, prices: { input: 0, output: 0 } } as unknown as ModelInfo;
  const window = new SessionWindow({ session, provider: () => provider, tableInfo: () => info, apply: () => {}, setting: undefined, maxOutput, cache: undefined });
  await window.settle(new AbortController().signal);
  return window;
}

describe('SKEIN_MAX_OUTPUT_TOKENS', () => {
  it('caps every request\'s answer budget, with room in the window or not', async () => {
    const capped = await windowOf(256);
    expect(capped.contextWindow).toBe(8192);
    expect(capped.outputBudget(1000)).toBe(256);
    expect(capped.outputBudget(7000)).toBeLessThanOrEqual(256);
    const free = await windowOf(undefined);
    expect(free.outputBudget(1000)).toBe(2048);
  });

  it('is read from the environment and the flag, and refused out of range', () => {
    expect(loadConfig([], { SKEIN_MAX_OUTPUT_TOKENS: '512' }).maxOutputTokens).toBe(512);
    expect(loadConfig(['--max-output-tokens', '300'], {}).maxOutputTokens).toBe(300);
    expect(loadConfig([], {}).maxOutputTokens).toBeUndefined();
    expect(() => loadConfig([], { SKEIN_MAX_OUTPUT_TOKENS: '10' })).toThrow(/SKEIN_MAX_OUTPUT_TOKENS/);
  });
});
