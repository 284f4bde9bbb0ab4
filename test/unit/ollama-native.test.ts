// Ollama's native chat adapter: the body it sends (system first, tool calls
// with object arguments, tool results named, num_ctx and num_predict), how it
// reads Ollama's failures (a 4xx/5xx `{"error"}` body, an error line in the
// middle of a stream, a stream that stops before `done`), and the setting's
// validation.
import { afterEach, describe, expect, it } from 'vitest';
import { InvalidSettingError, loadConfig } from '../../server/config.js';
import { ollamaRequestedLimits } from '../../server/llm/limits/discover.js';
import { ollamaChat, ollamaChatBody, ollamaVersion, type OllamaEndpoint } from '../../server/llm/ollama-native.js';
import { ContextOverflowError, ProviderError, type LlmRequest } from '../../server/llm/types.js';
import { checkOllamaChat } from '../fakes/ollama-native-fake.js';
import { listen, type FakeServer } from '../fakes/http.js';

const request: LlmRequest = {
  system: 'You are skein.',
  messages: [
    { role: 'user', content: 'list the files' },
    { role: 'assistant', content: '', toolCalls: [{ id: 'call_1', name: 'bash', input: { command: 'ls' } }] },
    { role: 'tool', content: 'a.txt', toolCallId: 'call_1' },
    { role: 'system', content: 'status: 40% of the window' },
  ],
  tools: [{ name: 'bash', description: 'Run a command', inputSchema: { type: 'object', properties: { command: { type: 'string' } } } }],
  maxOutputTokens: 2048,
  purpose: 'turn',
};

const servers: FakeServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

async function serve(handler: Parameters<typeof listen>[0]): Promise<OllamaEndpoint> {
  const s = await listen(handler);
  servers.push(s);
  return { root: s.url, apiKey: undefined, model: 'qwen3', numCtx: 16384, timeoutMs: 5000 };
}

describe('Ollama native chat', () => {
  it('sends the system prompt first, tool calls with object arguments, tool results named by their tool, num_ctx and num_predict; the real API rules accept it', () => {
    const body = ollamaChatBody({ model: 'qwen3', numCtx: 16384 }, request, true) as any;
    expect(body.messages).toEqual([
      { role: 'system', content: 'You are skein.' },
      { role: 'user', content: 'list the files' },
      { role: 'assistant', content: '', tool_calls: [{ id: 'call_1', function: { name: 'bash', arguments: { command: 'ls' } } }] },
      { role: 'tool', content: 'a.txt', tool_name: 'bash', tool_call_id: 'call_1' },
      { role: 'user', content: 'status: 40% of the window' },
    ]);
    expect(body.options).toEqual({ num_ctx: 16384, num_predict: 2048 });
    expect(body.tools[0].function.name).toBe('bash');
    expect(checkOllamaChat(body, ['qwen3'])).toBeUndefined();
    // The rules the fake holds are the server's: arguments as a JSON string are refused.
    const stringArgs = { ...body, messages: [{ role: 'assistant', content: '', tool_calls: [{ function: { name: 'bash', arguments: '{"command":"ls"}' } }] }] };
    expect(checkOllamaChat(stringArgs, ['qwen3'])?.error).toMatch(/cannot unmarshal string/);
  });

  it('a refusal that speaks of the context length is an overflow; a missing model is not worth retrying; a 500 is', async () => {
    let status = 400;
    let error = 'the prompt is longer than the context length currently available to the model; shorten the prompt, adjust the context length in settings, or use a model with a longer context length';
    const endpoint = await serve((_req, res) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error }));
    });
    const signal = new AbortController().signal;
    await expect(ollamaChat(endpoint, request, signal)).rejects.toBeInstanceOf(ContextOverflowError);
    status = 404;
    error = "model 'qwen3' not found";
    await expect(ollamaChat(endpoint, request, signal)).rejects.toMatchObject({ name: 'ProviderError', status: 404, retryable: false, message: expect.stringContaining('not found') });
    status = 500;
    error = 'llama runner process has terminated: exit status 2';
    await expect(ollamaChat(endpoint, request, signal)).rejects.toMatchObject({ name: 'ProviderError', status: 500, retryable: true });
  });

  it('streams text, reads usage from the done object; an error line mid-stream and a stream cut before done are retryable failures', async () => {
    let lines: object[] = [];
    const endpoint = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      res.end(lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
    });
    const signal = new AbortController().signal;
    lines = [
      { message: { role: 'assistant', content: 'Hel', thinking: 'hmm' }, done: false },
      { message: { role: 'assistant', content: 'lo' }, done: false },
      { message: { role: 'assistant', content: '', tool_calls: [{ id: 'call_x', function: { index: 0, name: 'bash', arguments: { command: 'ls' } } }] }, done: false },
      { message: { role: 'assistant', content: '' }, done: true, done_reason: 'stop', prompt_eval_count: 1234, eval_count: 56 },
    ];
    const texts: string[] = [];
    const thoughts: string[] = [];
    const r = await ollamaChat(endpoint, request, signal, { onText: (t) => texts.push(t), onThinking: (t) => thoughts.push(t) });
    expect(texts.join('')).toBe('Hello');
    expect(thoughts).toEqual(['hmm']);
    expect(r).toMatchObject({ text: 'Hello', stopReason: 'tool_use', toolCalls: [{ id: 'call_x', name: 'bash', input: { command: 'ls' } }], usage: { input: 1234, output: 56, cacheRead: 0, cacheWrite: 0 } });
    lines = [{ message: { role: 'assistant', content: 'Hel' }, done: false }, { error: 'an error was encountered while running the model: unexpected EOF' }];
    await expect(ollamaChat(endpoint, request, signal, { onText: () => {} })).rejects.toMatchObject({ name: 'ProviderError', retryable: true });
    lines = [{ message: { role: 'assistant', content: 'Hel' }, done: false }];
    await expect(ollamaChat(endpoint, request, signal, { onText: () => {} })).rejects.toBeInstanceOf(ProviderError);
  });

  it('tells Ollama from other servers by /api/version', async () => {
    const ollama = await serve((req, res) => {
      res.writeHead(req.url === '/api/version' ? 200 : 404, { 'content-type': 'application/json' });
      res.end(JSON.stringify(req.url === '/api/version' ? { version: '0.12.6' } : { error: 'not found' }));
    });
    const other = await serve((_req, res) => {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"error":{"code":404,"message":"File Not Found","type":"not_found_error"}}');
    });
    const signal = new AbortController().signal;
    expect(await ollamaVersion(ollama.root, undefined, signal)).toBe('0.12.6');
    expect(await ollamaVersion(other.root, undefined, signal)).toBe(false);
    expect(await ollamaVersion('http://127.0.0.1:9', undefined, signal)).toBeUndefined();
  });

  it("the requested context is the window, capped by the model's trained context_length; an /api/show that fails leaves the requested one, quietly", async () => {
    let status = 200;
    const s = await serve((_req, res) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(status === 200 ? { model_info: { 'general.architecture': 'qwen3', 'qwen3.context_length': 40960 }, parameters: '' } : { error: "model 'qwen3' not found" }));
    });
    const signal = new AbortController().signal;
    expect(await ollamaRequestedLimits(s.root, undefined, 'qwen3', 16384, signal)).toMatchObject({ contextWindow: 16384, truncates: true, via: expect.stringContaining('SKEIN_LOCAL_CONTEXT') });
    expect(await ollamaRequestedLimits(s.root, undefined, 'qwen3', 65536, signal)).toMatchObject({ contextWindow: 40960, via: expect.stringContaining('context_length (40960)') });
    status = 404;
    expect(await ollamaRequestedLimits(s.root, undefined, 'qwen3', 65536, signal)).toMatchObject({ contextWindow: 65536 });
  });

  it('SKEIN_LOCAL_CONTEXT out of range is refused at start, naming the variable and the range', () => {
    for (const bad of ['1000', '99999999', '8k', '4096.5']) {
      expect(() => loadConfig([], { SKEIN_LOCAL_CONTEXT: bad })).toThrow(InvalidSettingError);
      expect(() => loadConfig([], { SKEIN_LOCAL_CONTEXT: bad })).toThrow(/SKEIN_LOCAL_CONTEXT.*2048 to 10000000/);
    }
    expect(loadConfig([], { SKEIN_LOCAL_CONTEXT: '32768' }).localContext).toBe(32768);
    expect(loadConfig([], {}).localContext).toBeUndefined();
  });
});
