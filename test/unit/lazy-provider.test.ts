// A provider whose SDK package is not installed (an install with
// --omit=optional): its first call says which package to install; limits
// discovery does not throw (the window code relies on that); any other
// failure to load is passed on as it is.
import { describe, expect, it } from 'vitest';
import { lazyProvider } from '../../server/llm/lazy-provider.js';
import { hasLimitsDiscovery, ProviderError } from '../../server/llm/types.js';

const LIMITS = { contextWindow: 100_000, maxOutputTokens: 4_000 };
const REQUEST = { system: 's', messages: [{ role: 'user' as const, content: 'x' }], tools: [], maxOutputTokens: 10, purpose: 'turn' as const };
// A package nobody installs: the import fails as a missing SDK's would.
const ABSENT = 'skein-test-absent-sdk';

describe('lazyProvider when the SDK cannot load', () => {
  it('a missing SDK package: complete() refuses with the package to install, not retried; discoverLimits() says it failed', async () => {
    const provider = lazyProvider('gpt-4.1', LIMITS, ABSENT, { discovers: true }, async () => (await import(/* @vite-ignore */ ABSENT)) as never);
    if (!hasLimitsDiscovery(provider)) throw new Error('the wrapper should discover limits');
    const found = await provider.discoverLimits(new AbortController().signal);
    expect(found).toEqual({ failed: expect.stringContaining(`needs the package ${ABSENT}`) });
    const refused = await provider.complete(REQUEST, new AbortController().signal).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(ProviderError);
    expect((refused as ProviderError).retryable).toBe(false);
    expect((refused as Error).message).toBe(
      `model "gpt-4.1" needs the package ${ABSENT}, which is not installed (an install with --omit=optional leaves it out): run npm install ${ABSENT} where skein is installed, then restart skein`,
    );
  });

  it('another failure (another missing package, a broken module) is passed on unchanged', async () => {
    const other = lazyProvider('gpt-4.1', LIMITS, 'openai', {}, async () => (await import(/* @vite-ignore */ ABSENT)) as never);
    const err = await other.complete(REQUEST, new AbortController().signal).catch((e: unknown) => e);
    expect(err).not.toBeInstanceOf(ProviderError);
    expect((err as NodeJS.ErrnoException).code).toBe('ERR_MODULE_NOT_FOUND');
    const broken = new Error('boom');
    const failing = lazyProvider('gpt-4.1', LIMITS, 'openai', {}, () => Promise.reject(broken));
    await expect(failing.complete(REQUEST, new AbortController().signal)).rejects.toBe(broken);
  });
});
