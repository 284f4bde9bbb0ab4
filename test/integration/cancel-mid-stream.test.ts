// A turn cancelled while its answer streams ends Cancelled, never as a
// finished answer. The OpenAI SDK ends a stream quietly when it is aborted
// mid-answer (no error), so the partial text came back as if the model had
// ended its turn (red team, issue 38: a cancel during a cut
// answer's continuation logged "the model finished its answer"; the OpenAI
// case fails without the check in model-call.ts). Real SDKs,
// against servers that stream one chunk every 20 ms and never finish.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { callModel } from '../../server/agent/model-call.js';
import { createProvider } from '../../server/llm/providers.js';
import type { LlmRequest } from '../../server/llm/types.js';

const servers: http.Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise<void>((r) => (s.closeAllConnections(), s.close(() => r())));
});

/** An SSE server writing `first` then `chunk(i)` every 20 ms until the client goes away. */
async function endless(first: string[], chunk: (i: number) => string): Promise<string> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const f of first) res.write(f);
      let i = 0;
      const timer = setInterval(() => res.write(chunk(i++)), 20);
      res.on('close', () => clearInterval(timer));
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const request: LlmRequest = { system: 's', messages: [{ role: 'user', content: 'tell me a story' }], tools: [], maxOutputTokens: 512, purpose: 'turn' };
const sse = (event: string | undefined, data: unknown) => `${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`;

async function cancelAfterText(model: string, credentials: Parameters<typeof createProvider>[1]['credentials']): Promise<{ error: unknown; text: string }> {
  const { provider } = createProvider(model, { credentials, requestTimeoutMs: 30_000 });
  const controller = new AbortController();
  let text = '';
  const hooks = {
    afterSeq: 0,
    broadcast: (f: { text: string }) => {
      text += f.text;
      if (text.length > 10) controller.abort();
    },
    retrying: () => {},
  };
  const error = await callModel(provider, request, controller.signal, { max: 0, baseMs: 0 }, hooks as never).then(
    (r) => ({ answered: r }),
    (e: unknown) => e,
  );
  return { error, text };
}

describe('a cancel while the answer streams', () => {
  it('OpenAI-compatible: the call is cancelled, not answered with the partial text', async () => {
    const url = await endless([], (i) => sse(undefined, { id: 'c', object: 'chat.completion.chunk', created: 1, model: 'gpt-4.1', choices: [{ index: 0, delta: { content: `word${i} ` }, finish_reason: null }] }));
    const { error, text } = await cancelAfterText('gpt-4.1', { openai: { apiKey: 'sk-test', baseURL: `${url}/v1` } } as never);
    expect(text.length).toBeGreaterThan(10);
    expect(error).not.toHaveProperty('answered');
  });

  it('Anthropic: the call is cancelled, not answered with the partial text', async () => {
    const start = [
      sse('message_start', { type: 'message_start', message: { id: 'm', type: 'message', role: 'assistant', model: 'claude-sonnet-5-5', content: [], stop_reason: null, usage: { input_tokens: 10, output_tokens: 1 } } }),
      sse('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
    ];
    const url = await endless(start, (i) => sse('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: `word${i} ` } }));
    const { error, text } = await cancelAfterText('claude-sonnet-5-5', { anthropic: { apiKey: 'sk-ant-test', baseURL: url } } as never);
    expect(text.length).toBeGreaterThan(10);
    expect(error).not.toHaveProperty('answered');
  });
});
