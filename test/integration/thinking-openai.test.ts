// OpenAI reasoning models through the real `openai` SDK's Responses API
// against the local fake (test/fakes/openai-responses-fake.ts).
import { afterEach, describe, expect, it } from 'vitest';
import { MODELS } from '../../server/llm/models.js';
import { startAnthropicFake } from '../fakes/anthropic-fake.js';
import { startResponsesFake, type ResponsesFake, type ResponsesUsageWire } from '../fakes/openai-responses-fake.js';
import { api } from '../helpers/server.js';
import { agents, checkGauge, checkStreaming, checkToolCalls, longSession, startSession } from '../fakes/scenario.js';
import { startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { TestClient } from '../helpers/ws-client.js';
import { IN_PLACE_OPEN } from '../../server/compaction/summarizer.js';

const servers: TestServer[] = [];
const fakes: ResponsesFake[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
  for (const f of fakes.splice(0)) await f.close();
});

const env = (f: ResponsesFake, extra: Record<string, string> = {}) => ({ SKEIN_MODEL: 'gpt-5.6-terra', OPENAI_API_KEY: f.key, OPENAI_BASE_URL: f.url, ...extra });
const normalise = (u: ResponsesUsageWire) => ({ input: u.input_tokens - u.input_tokens_details.cached_tokens, cacheRead: u.input_tokens_details.cached_tokens, cacheWrite: 0, output: u.output_tokens });

describe('OpenAI Responses API (reasoning models)', () => {
  it('gpt-5.6-terra: tool loops (parallel), compaction, /compact and a restart; reasoning items go back encrypted; zero refusals', async () => {
    const f = await startResponsesFake();
    fakes.push(f);
    const dirs = { dataDir: tempDir('data'), workDir: tempDir('work') };
    const run = await startSession(env(f, { SKEIN_CONTEXT_WINDOW: '9000', SKEIN_REASONING_EFFORT: 'max' }), servers, dirs);
    const events = await longSession(run);
    checkToolCalls(events);
    checkGauge(events, f.reported, normalise, MODELS['gpt-5.6-terra']!);
    checkStreaming(run.client);
    await run.say('/compact');
    await run.say('parallel: echo p ;; echo q');
    // Stateless: nothing stored at OpenAI, encrypted reasoning asked for and sent back before its calls.
    const turns = f.requests.filter((r) => r.tools?.length && !JSON.stringify(r).includes(IN_PLACE_OPEN));
    for (const r of turns) {
      expect(r).toMatchObject({ store: false, include: ['reasoning.encrypted_content'], reasoning: { effort: 'xhigh', summary: 'auto' }, instructions: expect.any(String) });
    }
    expect(turns.some((r) => r.input.some((i: any) => i.type === 'reasoning' && typeof i.encrypted_content === 'string'))).toBe(true);
    // Each answer's reasoning is logged as returned, with the summary readable and the thinking tokens counted as output.
    const thought = agents(events).filter((a) => a.reasoning);
    expect(thought.length).toBe(agents(events).length);
    expect(thought[0]!.reasoning).toMatchObject({ provider: 'openai', model: 'gpt-5.6-terra', text: expect.stringContaining('Considering') });
    expect(thought.every((a) => (a.usage?.reasoning ?? 0) > 0 && a.usage!.output > a.usage!.reasoning!)).toBe(true);

    await run.server.close();
    servers.splice(0);
    const again = await startTestServer(env(f, { SKEIN_CONTEXT_WINDOW: '9000' }), dirs);
    servers.push(again);
    const client = await TestClient.connect(again.url, run.id, run.client.events.length);
    client.send({ type: 'user_message', text: 'parallel: echo after ;; echo restart' });
    await client.untilIdle(1);
    expect(client.events.some((e) => e.kind === 'tool_result' && e.output.includes('restart'))).toBe(true);
    expect(f.refusals).toEqual([]);
    expect([...run.client.events, ...client.events].filter((e) => e.kind === 'error')).toEqual([]);
  }, 60_000);

  it('switching between claude-sonnet-5-5 and gpt-5.6-terra and back: each model gets only its own reasoning, zero refusals', async () => {
    const f = await startResponsesFake();
    fakes.push(f);
    const a = await startAnthropicFake();
    try {
      const run = await startSession({ ...env(f), SKEIN_MODEL: 'claude-sonnet-5-5', ANTHROPIC_API_KEY: a.key, ANTHROPIC_BASE_URL: a.url }, servers);
      const to = async (model: string) => expect((await api(run.server.url, `/api/sessions/${run.id}/model`, { body: { model } })).status).toBe(202);
      await run.say('parallel: echo c1 ;; echo c2');
      await to('gpt-5.6-terra');
      await run.say('parallel: echo g1 ;; echo g2');
      await run.say('bash: echo g3');
      await to('claude-sonnet-5-5');
      await run.say('bash: echo c3');
      await to('gpt-5.6-terra');
      await run.say('echo: last');
      expect(agents(run.client.events).map((e) => e.reasoning?.provider)).toEqual(agents(run.client.events).map((e) => (e.model.startsWith('claude') ? 'anthropic' : 'openai')));
      // Claude's thinking never reaches OpenAI, OpenAI's reasoning items never reach Claude; each got its own back.
      expect(f.requests.every((r) => !JSON.stringify(r.input).includes('"thinking"'))).toBe(true);
      expect(a.requests.every((r) => !JSON.stringify(r.messages).includes('"reasoning"'))).toBe(true);
      expect(f.requests.some((r) => r.input.some((i: any) => i.type === 'reasoning'))).toBe(true);
      expect(a.requests.some((r) => r.messages.some((m: any) => m.role === 'assistant' && m.content.some((b: any) => b.type === 'thinking')))).toBe(true);
      expect([...f.refusals, ...a.thinking.refusals]).toEqual([]);
      expect(run.client.events.filter((e) => e.kind === 'error')).toEqual([]);
    } finally {
      await a.close();
    }
  });

  it('the fake refuses a tool-call continuation whose reasoning item is missing, and reasoning from another model', async () => {
    const f = await startResponsesFake();
    fakes.push(f);
    const post = async (body: object) => {
      const res = await fetch(`${f.url}/responses`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${f.key}` }, body: JSON.stringify(body) });
      return { status: res.status, body: (await res.json()) as any };
    };
    const tools = [{ type: 'function', name: 'bash', parameters: { type: 'object' } }];
    const base = { model: 'gpt-5.6-terra', store: false, include: ['reasoning.encrypted_content'], tools };
    const user = { role: 'user', content: 'bash: echo hi' };
    const first = await post({ ...base, input: [user] });
    expect(first.status).toBe(200);
    const output = first.body.output as any[];
    const call = output.find((i) => i.type === 'function_call');
    const result = { type: 'function_call_output', call_id: call.call_id, output: 'hi' };
    expect((await post({ ...base, input: [user, ...output, result] })).status).toBe(200);
    const missing = await post({ ...base, input: [user, ...output.filter((i) => i.type !== 'reasoning'), result] });
    expect(missing.status).toBe(400);
    expect(missing.body.error.message).toBe(`Item '${call.id}' of type 'function_call' was provided without its required 'reasoning' item: '${output[0].id}'.`);
    const other = await post({ ...base, model: 'gpt-5.6-sol', input: [user, ...output, result] });
    expect(other.body.error).toMatchObject({ code: 'invalid_encrypted_content', message: `The encrypted content for item ${output[0].id} could not be verified.` });
    const unencrypted = await post({ ...base, input: [user, { ...output[0], encrypted_content: undefined }, ...output.slice(1), result] });
    expect(unencrypted.status).toBe(404);
  });
});
