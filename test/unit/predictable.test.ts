import { describe, expect, it } from 'vitest';
import { contextTokensOf } from '../../shared/protocol.js';
import { PredictableProvider } from '../../server/llm/predictable.js';
import { requestTokens } from '../../server/llm/tokens.js';
import { ContextOverflowError, ProviderError, type LlmRequest } from '../../server/llm/types.js';
import type { ViewMessage } from '../../shared/protocol.js';

const signal = new AbortController().signal;
const req = (messages: ViewMessage[], purpose: LlmRequest['purpose'] = 'turn'): LlmRequest => ({
  system: 'system prompt',
  messages,
  tools: [{ name: 'bash', description: 'run', inputSchema: { type: 'object' } }],
  maxOutputTokens: 100,
  purpose,
});

describe('predictable model', () => {
  it('reports usage equal to the token count of the real request, split by the simulated cache', async () => {
    const p = new PredictableProvider({ contextWindow: 8000, maxOutputTokens: 100 });
    const first = req([{ role: 'user', content: 'echo: hello there' }]);
    const a = await p.complete(first, signal);
    expect(a.text).toBe('hello there');
    expect(contextTokensOf(a.usage)).toBe(requestTokens(first));
    expect(a.usage.cacheRead).toBe(0);
    const second = req([...first.messages, { role: 'assistant', content: a.text }, { role: 'user', content: 'echo: again' }]);
    const b = await p.complete(second, signal);
    expect(contextTokensOf(b.usage)).toBe(requestTokens(second));
    expect(b.usage.cacheRead).toBeGreaterThan(0); // the shared prefix is read from the cache
    expect(b.usage.output).toBeGreaterThan(0);
  });

  it('asks for tools from bash:, read: and big:', async () => {
    const p = new PredictableProvider({ contextWindow: 8000, maxOutputTokens: 100 });
    expect((await p.complete(req([{ role: 'user', content: 'bash: ls -la' }]), signal)).toolCalls[0]).toMatchObject({ name: 'bash', input: { command: 'ls -la' } });
    expect((await p.complete(req([{ role: 'user', content: 'read: a.txt' }]), signal)).toolCalls[0]).toMatchObject({ name: 'read_file', input: { path: 'a.txt' } });
    const big = await p.complete(req([{ role: 'user', content: 'big: 500' }]), signal);
    expect(big.toolCalls[0]!.input.command).toContain('head -n 50');
    expect(big.stopReason).toBe('tool_use');
  });

  it('refuses a request over its window with the provider-style overflow error', async () => {
    const p = new PredictableProvider({ contextWindow: 1000, maxOutputTokens: 100 });
    await expect(p.complete(req([{ role: 'user', content: 'word '.repeat(2000) }]), signal)).rejects.toThrow(ContextOverflowError);
    await expect(p.complete(req([{ role: 'user', content: 'word '.repeat(2000) }]), signal)).rejects.toThrow(/prompt is too long/);
  });

  it('error: fails once, and the retry of the same message succeeds', async () => {
    const p = new PredictableProvider({ contextWindow: 8000, maxOutputTokens: 100 });
    const r = req([{ role: 'user', content: 'error: 500' }]);
    await expect(p.complete(r, signal)).rejects.toBeInstanceOf(ProviderError);
    expect((await p.complete(r, signal)).text).toContain('recovered');
    await expect(p.complete(req([{ role: 'user', content: 'error: overflow' }]), signal)).rejects.toBeInstanceOf(ContextOverflowError);
  });

  it('writes a deterministic summary that keeps user messages and carries the previous one forward', async () => {
    const p = new PredictableProvider({ contextWindow: 8000, maxOutputTokens: 100 });
    const transcript = '<transcript>\n<previous-summary>\n- user: the first ask\n</previous-summary>\n[user] fix test_api.py\n[assistant -> bash {"command":"pytest"}]\n[tool result] exit code: 1\n[tool error] exit code: 1\n</transcript>';
    const a = await p.complete(req([{ role: 'user', content: transcript }], 'summary'), signal);
    const b = await p.complete(req([{ role: 'user', content: transcript }], 'summary'), signal);
    expect(a.text).toBe(b.text);
    expect(a.text).toContain('- user: the first ask');
    expect(a.text).toContain('- user: fix test_api.py');
    expect(a.text).toContain('bash {"command":"pytest"}');
    expect(a.text).toContain('- error: exit code: 1');
  });

  it('delay: is cancellable', async () => {
    const p = new PredictableProvider({ contextWindow: 8000, maxOutputTokens: 100 });
    const abort = new AbortController();
    const pending = p.complete(req([{ role: 'user', content: 'delay: 10000' }]), abort.signal);
    setTimeout(() => abort.abort(), 50);
    await expect(pending).rejects.toThrow();
  });
});
