// A message typed while the model is answering joins the conversation after
// that answer and its tool results, never before it: the next request ends
// with the user's turn, and each message reaches the model once.
import { afterEach, describe, expect, it } from 'vitest';
import type { ModelServices } from '../../server/agent/model-switch.js';
import { deriveView, plain } from '../../server/compaction/view.js';
import { ProviderError } from '../../server/llm/types.js';
import { startAgent } from '../helpers/agent.js';
import { gate, scriptedProvider, transcript, until, untilAborted } from '../helpers/scripted-provider.js';
import { api, startTestServer, type TestServer } from '../helpers/server.js';
import { TestClient } from '../helpers/ws-client.js';

const lastUser = (messages: { role: string; content: string }[]) => messages.filter((m) => m.role === 'user').at(-1)?.content;

describe('a message typed while the model works', () => {
  it('typed while a request is out: it comes after the answer, and the next request ends with it', async () => {
    const held = gate();
    const provider = scriptedProvider(async (request, n, signal) => {
      // Answers the FIRST unanswered user message it sees: a request that put B before A's answer would show.
      if (n === 0) await Promise.race([held.promise, untilAborted(signal)]);
      return `answer to ${lastUser(request.messages)}`;
    });
    const run = startAgent(provider);
    run.session.userMessage('A');
    await until(() => provider.requests.length === 1, 'the first request');
    run.session.userMessage('B');
    held.open();
    await run.idle();
    expect(provider.requests).toHaveLength(2);
    expect(transcript(provider.requests[0]!.messages)).toEqual(['user: A']);
    expect(transcript(provider.requests[1]!.messages)).toEqual(['user: A', 'assistant: answer to A', 'user: B']);
    const view = transcript(plain(run.session.view()));
    expect(view).toEqual(['user: A', 'assistant: answer to A', 'user: B', 'assistant: answer to B']);
    // Derived from the log alone: a restart derives the same view.
    expect(transcript(plain(deriveView(run.events())))).toEqual(view);
  });

  it('typed while a request that asks for a tool is out: it comes after the tool result, in the same turn', async () => {
    const held = gate();
    const provider = scriptedProvider(async (_request, n, signal) => {
      if (n > 0) return 'done';
      await Promise.race([held.promise, untilAborted(signal)]);
      return { toolCalls: [{ id: 'call-1', name: 'bash', input: { command: 'echo hi' } }] };
    });
    const run = startAgent(provider);
    run.session.userMessage('A');
    await until(() => provider.requests.length === 1, 'the first request');
    run.session.userMessage('B');
    held.open();
    await run.idle();
    // B reached the model once: in the request after the tool result, not in a turn of its own.
    expect(provider.requests).toHaveLength(2);
    const second = provider.requests[1]!.messages;
    expect(second.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'user']);
    expect(second[3]!.content).toBe('B');
  });

  it('typed during a retry back-off: the retry is the request that was out; B comes after its answer', async () => {
    const provider = scriptedProvider((request, n) => (n === 0 ? new ProviderError('overloaded', 529, true) : `answer to ${lastUser(request.messages)}`));
    const models: ModelServices = { create: () => { throw new Error('no switch here'); }, summariser: () => undefined, retry: { max: 2, baseMs: 20 } };
    const run = startAgent(provider, { models });
    // B is typed as soon as the retry is announced (observed as appended, not once durable), while the agent waits to retry.
    run.session.observe((e) => {
      if (e.kind === 'error' && e.code === 'retrying') queueMicrotask(() => run.session.userMessage('B'));
    });
    run.session.userMessage('A');
    await run.idle();
    expect(provider.requests.map((r) => transcript(r.messages))).toEqual([
      ['user: A'],
      ['user: A'],
      ['user: A', 'assistant: answer to A', 'user: B'],
    ]);
  });

  it('typed during a compaction between tool calls and the next request: that request ends with it', async () => {
    const provider = scriptedProvider((_request, n) =>
      n === 0 ? { toolCalls: [{ id: 'call-1', name: 'compact_history', input: { focus: 'the task' } }] } : 'done',
    );
    const run = startAgent(provider);
    // Observed as it is appended: subscribers see it only once durable, when the compaction may be over.
    run.session.observe((e) => {
      if (e.kind === 'compaction' && e.phase === 'started') queueMicrotask(() => run.session.userMessage('B'));
    });
    run.session.userMessage('A');
    await run.idle();
    expect(run.events().filter((e) => e.kind === 'user').map((e) => e.seq)).toHaveLength(2);
    // B reached the model once, at the end of the request after the compaction.
    expect(provider.requests).toHaveLength(2);
    expect(provider.requests[1]!.messages.at(-1)).toMatchObject({ role: 'user', content: 'B' });
  });

  it('through the API: GET /view shows B after the answer it did not see (predictable, delay)', async () => {
    const server: TestServer = await startTestServer();
    servers.push(server);
    const { body } = await api<{ id: string }>(server.url, '/api/sessions', { body: {} });
    const client = await TestClient.connect(server.url, body.id);
    client.send({ type: 'user_message', text: 'delay: 500' });
    await client.until(() => client.events.some((e) => e.kind === 'state' && e.to === 'SendingToLLM'), 'request out');
    client.send({ type: 'user_message', text: 'echo: B' });
    await client.untilIdle(2);
    const view = await api<{ messages: { role: string; content: string }[] }>(server.url, `/api/sessions/${body.id}/view`);
    expect(view.body.messages.map((m) => `${m.role}: ${m.content}`)).toEqual([
      expect.stringMatching(/^system: /),
      'user: delay: 500',
      'assistant: waited 500 ms',
      'user: echo: B',
      'assistant: B',
    ]);
    client.close();
  });
});

const servers: TestServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});
