// The model table and model selection: names, snapshots, keys, defaults, limits.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config.js';
import { defaultModel, readCredentials } from '../../server/llm/credentials.js';
import { MODELS, modelInfo } from '../../server/llm/models.js';
import { createProvider, parseModelName, requestLimits, UnknownModelError, unknownModelWarning } from '../../server/llm/providers.js';

const settings = (env: Record<string, string>, contextWindow?: number) => ({ credentials: readCredentials(env), requestTimeoutMs: 1000, contextWindow });

describe('the model table', () => {
  it('has every provider, each entry with a window, a max output and prices', () => {
    const providers = new Set(Object.values(MODELS).map((m) => m.provider));
    expect(providers).toEqual(new Set(['predictable', 'replay', 'anthropic', 'openai', 'gemini']));
    for (const [name, m] of Object.entries(MODELS)) {
      expect(m.contextWindow, name).toBeGreaterThanOrEqual(8000);
      expect(m.maxOutputTokens, name).toBeLessThan(m.contextWindow);
      if (m.provider !== 'predictable' && m.provider !== 'replay') expect(m.prices.input * m.prices.output, name).toBeGreaterThan(0);
      expect(m.prices.cacheRead, name).toBeLessThanOrEqual(m.prices.input);
    }
  });

  it('is the table of docs/providers.md, model for model', () => {
    const providers = fs.readFileSync('docs/providers.md', 'utf8');
    for (const name of Object.keys(MODELS)) expect(providers, name).toMatch(new RegExp(`^\\| [^|]*\`${name.replaceAll('.', '\\.')}\``, 'm'));
  });

  it('maps dated snapshots to their model', () => {
    expect(modelInfo('claude-sonnet-4-5-20250929')).toBe(MODELS['claude-sonnet-4-5']);
    expect(modelInfo('gpt-4.1-2025-04-14')).toBe(MODELS['gpt-4.1']);
    expect(modelInfo('made-up')).toBeUndefined();
  });
});

describe('model names', () => {
  it('reads table names, prefixes and provider:model', () => {
    expect(parseModelName('claude-sonnet-4-5')).toEqual({ provider: 'anthropic', model: 'claude-sonnet-4-5' });
    expect(parseModelName('gpt-4.1')).toEqual({ provider: 'openai', model: 'gpt-4.1' });
    expect(parseModelName('o3')).toEqual({ provider: 'openai', model: 'o3' });
    expect(parseModelName('gemini-2.5-pro')).toEqual({ provider: 'gemini', model: 'gemini-2.5-pro' });
    expect(parseModelName('claude-next-9')).toEqual({ provider: 'anthropic', model: 'claude-next-9' });
    expect(parseModelName('openai:llama3.1:8b')).toEqual({ provider: 'openai', model: 'llama3.1:8b' });
    expect(parseModelName('google:gemini-2.5-flash')).toEqual({ provider: 'gemini', model: 'gemini-2.5-flash' });
    expect(parseModelName('llama3.1')).toBeUndefined();
  });

  it('refuses a provider without its key, naming the variable', () => {
    expect(() => createProvider('claude-haiku-4-5', settings({}))).toThrow(/needs ANTHROPIC_API_KEY/);
    expect(() => createProvider('gpt-4.1', settings({}))).toThrow(/needs OPENAI_API_KEY \(or OPENAI_BASE_URL/);
    expect(() => createProvider('gemini-2.5-pro', settings({}))).toThrow(UnknownModelError);
    expect(createProvider('gemini-2.5-pro', settings({ GOOGLE_API_KEY: 'g' })).provider.model).toBe('gemini-2.5-pro');
    expect(createProvider('openai:qwen', settings({ OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1' })).provider.model).toBe('openai:qwen');
  });

  it('gives an unknown model a conservative window (the warning waits for its server: agent/window.ts); SKEIN_CONTEXT_WINDOW overrides', () => {
    const unknown = createProvider('openai:qwen', settings({ OPENAI_BASE_URL: 'http://127.0.0.1:1/v1' }));
    expect(unknown.info).toMatchObject({ contextWindow: 32_000, unknown: true });
    expect(unknown.warning).toBeUndefined();
    const warning = unknownModelWarning('openai:qwen', 32_000, 'its server does not say its window', 'GET /v1/models: 404');
    expect(warning).toBe(
      `"openai:qwen" is not in skein's model table and its server does not say its window: assuming a 32,000-token window and no prices; set SKEIN_CONTEXT_WINDOW to its real window (asking it: GET /v1/models: 404)`,
    );
    const overridden = createProvider('openai:qwen', settings({ OPENAI_BASE_URL: 'http://127.0.0.1:1/v1' }, 128_000));
    expect(overridden.info.contextWindow).toBe(128_000);
  });

  it('asks for at most 16k output tokens and a quarter of a small window per request', () => {
    expect(requestLimits(MODELS['claude-sonnet-4-5']!)).toEqual({ contextWindow: 200_000, maxOutputTokens: 16_384 });
    expect(requestLimits(MODELS['claude-sonnet-4-5']!, 8000)).toEqual({ contextWindow: 8000, maxOutputTokens: 2000 });
    expect(requestLimits(MODELS.predictable!)).toEqual({ contextWindow: 8000, maxOutputTokens: 1024 });
    // A small local window: a quarter of it, not the old floor of 1,024 (half of 2,048); never under 256.
    expect(requestLimits({ contextWindow: 2048, maxOutputTokens: 4096 })).toEqual({ contextWindow: 2048, maxOutputTokens: 512 });
    expect(requestLimits({ contextWindow: 4096, maxOutputTokens: 4096 })).toEqual({ contextWindow: 4096, maxOutputTokens: 1024 });
    expect(requestLimits({ contextWindow: 600, maxOutputTokens: 4096 })).toEqual({ contextWindow: 600, maxOutputTokens: 256 });
  });
});

describe('the default model', () => {
  it('is predictable without keys, else the first provider set up', () => {
    expect(defaultModel({})).toBe('predictable');
    expect(defaultModel({ GEMINI_API_KEY: 'g' })).toBe('gemini-2.5-pro');
    expect(defaultModel({ OPENAI_API_KEY: 'o', GEMINI_API_KEY: 'g' })).toBe('gpt-5.6-terra');
    expect(defaultModel({ ANTHROPIC_API_KEY: 'a', OPENAI_API_KEY: 'o' })).toBe('claude-sonnet-5-5');
    expect(defaultModel({ OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1' })).toBe('openai:auto');
    expect(defaultModel({ OPENAI_BASE_URL: 'https://api.openai.com/v1', OPENAI_API_KEY: 'o' })).toBe('gpt-5.6-terra');
    expect(loadConfig([], { ANTHROPIC_API_KEY: 'a', SKEIN_MODEL: 'gpt-4.1' }).model).toBe('gpt-4.1');
    expect(loadConfig([], { ANTHROPIC_API_KEY: 'a' }).credentials.anthropic.apiKey).toBe('a');
  });
});
