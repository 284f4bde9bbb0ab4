// The mismatch bench's recording proxy tells a turn from a summary by the
// request's shape (a turn streams, a summary does not), not by skein's prompt
// wording: checked here on the requests skein's real calls send through the
// real OpenAI SDK (a turn through callModel, a transcript summary and an
// in-place one through the summariser).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { callModel } from '../../server/agent/model-call.js';
import { inPlaceRequest, summarise, summariseInPlace } from '../../server/compaction/summarizer.js';
import { createProvider } from '../../server/llm/providers.js';
import type { LlmRequest } from '../../server/llm/types.js';
import { purposeOf, startRecordingProxy, type RecordingProxy } from '../bench/llama-proxy.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** A chat completions server answering every request, streamed or not, with one short text. */
async function upstream(): Promise<string> {
  const text = 'The user asked for a list of the files; the model ran ls and reported them.';
  const usage = { prompt_tokens: 50, completion_tokens: 12, total_tokens: 62 };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const base = { id: 'c', created: 1, model: 'local-model' };
      if (!body.stream) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ ...base, object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }], usage }));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = (choices: unknown[], extra = {}) => `data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices, ...extra })}\n\n`;
      res.write(chunk([{ index: 0, delta: { role: 'assistant', content: text }, finish_reason: null }]));
      res.write(chunk([{ index: 0, delta: {}, finish_reason: 'stop' }]));
      res.end(chunk([], { usage }) + 'data: [DONE]\n\n');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  closers.push(() => new Promise((r) => (server.closeAllConnections(), server.close(() => r()))));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function skeinThroughProxy(): Promise<{ proxy: RecordingProxy; provider: ReturnType<typeof createProvider>['provider'] }> {
  const proxy = await startRecordingProxy(await upstream());
  closers.push(() => proxy.close());
  const { provider } = createProvider('openai:local-model', { credentials: { openai: { apiKey: 'none', baseURL: `${proxy.url}/v1` } }, requestTimeoutMs: 30_000 } as never);
  return { proxy, provider };
}

const turn: LlmRequest = { system: 'You are a coding agent.', messages: [{ role: 'user', content: 'run bash: ls' }], tools: [], maxOutputTokens: 256, purpose: 'turn' };

describe("the bench proxy's purposeOf", () => {
  it('by the shape alone: streamed is a turn, not streamed a summary, whatever the words', () => {
    expect(purposeOf({ stream: true })).toBe('agent');
    expect(purposeOf({ stream: false })).toBe('summary');
    expect(purposeOf({})).toBe('summary');
  });

  it("skein's real requests: a turn is recorded as agent, both kinds of summary as summary", async () => {
    const { proxy, provider } = await skeinThroughProxy();
    const hooks = { afterSeq: 0, broadcast: () => {}, retrying: () => {} };
    await callModel(provider, turn, new AbortController().signal, { max: 0, baseMs: 0 }, hooks).catch(() => undefined);
    const signal = new AbortController().signal;
    await summarise('', ['user: run bash: ls\nassistant: ran ls'], { summariser: provider, maxOutputTokens: 256, timeoutMs: 30_000, signal }).catch(() => undefined);
    await summariseInPlace(inPlaceRequest(turn, turn.messages, undefined, 256), { summariser: provider, timeoutMs: 30_000, signal }).catch(() => undefined);
    expect(proxy.exchanges.map((x) => x.purpose)).toEqual(['agent', 'summary', 'summary']);
    // The turn's user text is read as itself; the summary's are not read at all.
    expect(proxy.exchanges[0]!.userTexts).toEqual(['run bash: ls']);
  });
});
