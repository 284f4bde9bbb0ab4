// Gemini thinking through the real @google/genai SDK against the fake:
// thinkingConfig from the effort, thought summaries shown, thought signatures
// sent back from the log after compactions and a restart.
import { IN_PLACE_OPEN } from '../../server/compaction/summarizer.js';
import { afterEach, describe, expect, it } from 'vitest';
import { startGeminiFake, type GeminiFake } from '../fakes/gemini-fake.js';
import { agents, finished, longSession, startSession } from '../fakes/scenario.js';
import { startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { TestClient } from '../helpers/ws-client.js';

const servers: TestServer[] = [];
const fakes: GeminiFake[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
  for (const f of fakes.splice(0)) await f.close();
});

async function fake() {
  const f = await startGeminiFake();
  fakes.push(f);
  return f;
}
const env = (f: GeminiFake, model: string, extra: Record<string, string> = {}) => ({ SKEIN_MODEL: model, GEMINI_API_KEY: f.key, GEMINI_BASE_URL: f.url, ...extra });
const configOf = (r: any) => r.generationConfig?.thinkingConfig;

describe('Gemini thinking', () => {
  it('gemini-3-pro-preview: thinking level from the effort, thought summaries logged, signatures round-trip after compaction and a restart', async () => {
    const f = await fake();
    const dirs = { dataDir: tempDir('data'), workDir: tempDir('work') };
    const run = await startSession(env(f, 'gemini-3-pro-preview', { SKEIN_CONTEXT_WINDOW: '7000', SKEIN_REASONING_EFFORT: 'low' }), servers, dirs);
    const events = await longSession(run);
    expect(finished(events).length).toBeGreaterThan(0);
    // Turns (not the summaries asked for in place, which reuse the conversation's prefix).
    const turns = f.requests.filter((r) => r.tools?.length && !JSON.stringify(r).includes(IN_PLACE_OPEN));
    expect(turns.length).toBeGreaterThan(0);
    expect(turns.every((r) => configOf(r)?.includeThoughts === true && configOf(r)?.thinkingLevel === 'low')).toBe(true);
    const thought = agents(events).filter((a) => a.reasoning);
    expect(thought.length).toBe(agents(events).length);
    expect(thought[0]!.reasoning).toMatchObject({ provider: 'gemini', model: 'gemini-3-pro-preview', text: expect.stringContaining('Planning the answer') });
    // Thought summaries are not the answer, and their tokens are output.
    expect(agents(events).every((a) => !a.text.includes('Planning the answer'))).toBe(true);
    expect(thought.every((a) => (a.usage?.reasoning ?? 0) > 0)).toBe(true);

    await run.server.close();
    servers.splice(0);
    const again = await startTestServer(env(f, 'gemini-3-pro-preview', { SKEIN_CONTEXT_WINDOW: '7000' }), dirs);
    servers.push(again);
    const client = await TestClient.connect(again.url, run.id, run.client.events.length);
    client.send({ type: 'user_message', text: 'bash: echo after restart' });
    await client.untilIdle(1);
    // Every step kept after the compactions goes back with the signature it came with, none with the placeholder.
    const calls = f.requests.at(-1).contents.filter((c: any) => c.role === 'model').flatMap((c: any) => c.parts.filter((p: any) => p.functionCall && p.thoughtSignature));
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.every((p: any) => f.signatures.has(p.thoughtSignature))).toBe(true);
    expect([...run.client.events, ...client.events].filter((e) => e.kind === 'error')).toEqual([]);
  }, 60_000);

  it('budgets on 2.5: none turns thinking off only where the model allows it', async () => {
    const f = await fake();
    const flash = await startSession(env(f, 'gemini-2.5-flash', { SKEIN_REASONING_EFFORT: 'none' }), servers);
    await flash.say('echo: hi');
    expect(configOf(f.requests.at(-1))).toEqual({ thinkingBudget: 0 });
    const pro = await startSession(env(f, 'gemini-2.5-pro', { SKEIN_REASONING_EFFORT: 'none' }), servers);
    await pro.say('echo: hi');
    expect(configOf(f.requests.at(-1))).toEqual({ includeThoughts: true });
    const high = await startSession(env(f, 'gemini-2.5-pro', { SKEIN_REASONING_EFFORT: 'high' }), servers);
    await high.say('echo: hi');
    expect(configOf(f.requests.at(-1))).toEqual({ includeThoughts: true, thinkingBudget: 24_576 });
    for (const run of [flash, pro, high]) expect(run.client.events.filter((e) => e.kind === 'error')).toEqual([]);
    // What the fake refuses (and skein never sends).
    const post = (model: string, thinkingConfig: object) =>
      fetch(`${f.url}/v1beta/models/${model}:generateContent`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-goog-api-key': f.key }, body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }], generationConfig: { thinkingConfig } }) });
    expect((await post('gemini-2.5-pro', { thinkingBudget: 0 })).status).toBe(400);
    expect((await post('gemini-2.5-pro', { thinkingLevel: 'low' })).status).toBe(400);
  });
});
