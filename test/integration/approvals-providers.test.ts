// SKEIN_APPROVAL through each provider's real SDK against its fake: several
// tool calls in one answer each wait for their own decision, in order; a
// denial's reason reaches the provider in the tool result; every request
// still satisfies the provider's rules (the fakes refuse any that does not).
import { afterEach, describe, expect, it } from 'vitest';
import { startAnthropicFake } from '../fakes/anthropic-fake.js';
import { startGeminiFake } from '../fakes/gemini-fake.js';
import { startOpenAIFake } from '../fakes/openai-fake.js';
import { startSession, type Running } from '../fakes/scenario.js';
import { decisionOf, resultOf, untilAsked } from '../helpers/approvals.js';
import { api, type TestServer } from '../helpers/server.js';

const servers: TestServer[] = [];
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
  for (const c of closers.splice(0)) await c();
});

const PROVIDERS = {
  anthropic: async () => {
    const f = await startAnthropicFake();
    closers.push(() => f.close());
    return { requests: f.requests, env: { SKEIN_MODEL: 'claude-sonnet-5-5', ANTHROPIC_API_KEY: f.key, ANTHROPIC_BASE_URL: f.url } };
  },
  openai: async () => {
    const f = await startOpenAIFake();
    closers.push(() => f.close());
    return { requests: f.requests, env: { SKEIN_MODEL: 'gpt-4.1', OPENAI_API_KEY: f.key!, OPENAI_BASE_URL: f.url } };
  },
  gemini: async () => {
    const f = await startGeminiFake();
    closers.push(() => f.close());
    return { requests: f.requests, env: { SKEIN_MODEL: 'gemini-2.5-pro', GEMINI_API_KEY: f.key, GEMINI_BASE_URL: f.url } };
  },
};

function decide(run: Running, callId: string, body: unknown) {
  return api<{ error?: string }>(run.server.url, `/api/sessions/${run.id}/approvals/${encodeURIComponent(callId)}`, { body });
}

describe.each(Object.keys(PROVIDERS) as (keyof typeof PROVIDERS)[])('approvals with %s', (name) => {
  it('two calls in one answer: each is asked in order; the first denied with a reason the provider receives, the second approved', async () => {
    const { requests, env } = await PROVIDERS[name]();
    const run = await startSession({ ...env, SKEIN_APPROVAL: 'on-write' }, servers);
    run.client.send({ type: 'user_message', text: 'parallel: echo first-call ;; echo second-call' });
    const first = await untilAsked(run.client);
    expect(first.input).toEqual({ command: 'echo first-call' });
    const calls = run.client.events.filter((e) => e.kind === 'tool_call');
    expect(calls).toHaveLength(2);
    const secondId = calls[1]!.kind === 'tool_call' ? calls[1]!.callId : '';
    // Only the first is waiting: a decision for the second is refused, and changes nothing.
    expect((await decide(run, secondId, { decision: 'approve' })).status).toBe(409);
    expect((await decide(run, first.callId, { decision: 'deny', reason: 'print something else' })).status).toBe(202);
    const second = await run.client.until(() => run.client.events.find((e) => e.kind === 'approval_request' && e.callId === secondId), 'the second request');
    expect(second.kind === 'approval_request' && second.input).toEqual({ command: 'echo second-call' });
    expect((await decide(run, secondId, { decision: 'approve' })).status).toBe(202);
    const events = await run.client.untilIdle(1, 30_000);
    expect(resultOf(events, first.callId)).toMatchObject({ isError: true, output: 'denied by the user: print something else' });
    expect(resultOf(events, secondId)).toMatchObject({ isError: false, output: expect.stringContaining('second-call') });
    expect(decisionOf(events, first.callId)?.decision).toBe('deny');
    // The request after the decisions carries the denial's reason to the provider, in its own wire format.
    const last = JSON.stringify(requests.at(-1));
    expect(last).toContain('denied by the user: print something else');
    expect(last).toContain('second-call');
    expect(events.filter((e) => e.kind === 'error')).toEqual([]);
  }, 60_000);

  it('a new message while the first of two calls waits denies both with its text; the provider gets both results, then the message', async () => {
    const { requests, env } = await PROVIDERS[name]();
    const run = await startSession({ ...env, SKEIN_APPROVAL: 'always' }, servers);
    run.client.send({ type: 'user_message', text: 'parallel: echo one ;; echo two' });
    const first = await untilAsked(run.client);
    run.client.send({ type: 'user_message', text: 'echo: stop, do nothing' });
    const events = await run.client.untilIdle(1, 30_000);
    const calls = events.flatMap((e) => (e.kind === 'tool_call' ? [e.callId] : []));
    expect(calls).toHaveLength(2);
    // The second was never asked: the message already answered the whole answer.
    expect(events.filter((e) => e.kind === 'approval_request').map((e) => e.kind === 'approval_request' && e.callId)).toEqual([first.callId]);
    for (const id of calls) {
      expect(decisionOf(events, id)).toMatchObject({ decision: 'deny', by: 'message', reason: 'echo: stop, do nothing' });
      expect(resultOf(events, id)?.output).toBe('denied by the user: echo: stop, do nothing');
    }
    const last = events.filter((e) => e.kind === 'agent').at(-1);
    expect(last?.kind === 'agent' && last.text).toBe('stop, do nothing');
    const wire = JSON.stringify(requests.at(-1));
    expect(wire.lastIndexOf('echo: stop, do nothing')).toBeGreaterThan(wire.lastIndexOf('denied by the user'));
  }, 60_000);
});
