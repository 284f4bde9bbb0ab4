// The Models API's capabilities win over skein's model table: discovered
// once per model (recorded in the `limits` event, so a restart knows them)
// and used for every request's thinking options, through the real SDK
// against the Anthropic fake, which serves them and enforces them.
import { afterEach, describe, expect, it } from 'vitest';
import type { LimitsEvent, SessionSnapshot } from '../../shared/protocol.js';
import { startAnthropicFake, type AnthropicFake } from '../fakes/anthropic-fake.js';
import { agents, startSession } from '../fakes/scenario.js';
import { api, startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { TestClient } from '../helpers/ws-client.js';

const servers: TestServer[] = [];
const fakes: AnthropicFake[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
  for (const f of fakes.splice(0)) await f.close();
});

const supported = (yes: boolean) => ({ supported: yes });
/** The Models API's `capabilities` of a model that always thinks adaptively (it refuses `disabled`). */
const alwaysOn = {
  thinking: { supported: true, types: { adaptive: supported(true), enabled: supported(false), disabled: supported(false), between_tools: supported(false) } },
  effort: { supported: true, low: supported(true), medium: supported(true), high: supported(true), max: supported(true), xhigh: supported(true) },
  context_management: { supported: true, clear_thinking_20251015: null, clear_tool_uses_20250919: null, compact_20260112: null },
};
const noThinking = { ...alwaysOn, thinking: { supported: false, types: { adaptive: supported(false), enabled: supported(false), disabled: supported(true), between_tools: supported(false) } }, effort: { ...alwaysOn.effort, supported: false } };

async function fake(): Promise<AnthropicFake> {
  const f = await startAnthropicFake({ modelInfo: 'advertise' });
  fakes.push(f);
  return f;
}
const env = (f: AnthropicFake, model: string, effort: string) => ({ SKEIN_MODEL: model, ANTHROPIC_API_KEY: f.key, ANTHROPIC_BASE_URL: f.url, SKEIN_REASONING_EFFORT: effort });
const turns = (f: AnthropicFake) => f.requests.filter((r) => r.tools?.length);

describe('Models API capabilities over the model table', () => {
  it('a model the table does not know, which the API says always thinks: adaptive thinking with the effort asked, never disabled nor forced', async () => {
    const f = await fake();
    f.advertise('claude-nova-9', alwaysOn);
    const run = await startSession(env(f, 'claude-nova-9', 'high'), servers);
    await run.say('bash: echo one');
    await run.say('parallel: echo a ;; echo b');
    expect(turns(f).length).toBeGreaterThan(2);
    for (const r of turns(f)) {
      expect(r.thinking).toEqual({ type: 'adaptive', display: 'summarized' });
      expect(r.output_config).toEqual({ effort: 'high' });
      expect(r.tool_choice).toBeUndefined();
    }
    const limits = run.client.events.find((e): e is LimitsEvent => e.kind === 'limits');
    expect(limits?.thinking).toEqual({ mode: 'always', efforts: ['low', 'medium', 'high', 'max'] });
    expect(limits?.via).toMatch(/capabilities/);
    // The session says them, so the effort picker offers what the provider said, not the table.
    expect((await api<SessionSnapshot>(run.server.url, `/api/sessions/${run.id}`)).body.efforts).toEqual(['low', 'medium', 'high', 'max']);
    // Its thinking came back and went back (the prefix check ran) with zero refusals.
    expect(agents(run.client.events).every((a) => a.reasoning?.model === 'claude-nova-9')).toBe(true);
    expect(f.requests.some((r) => r.messages.some((m: any) => m.role === 'assistant' && m.content.some((b: any) => b.type === 'thinking')))).toBe(true);
    expect([...f.violations, ...f.thinking.refusals]).toEqual([]);
  });

  it('the API wins over the table: an always-on claude-sonnet-5-5 never gets the `disabled` the table would send for effort none, also after a restart', async () => {
    const f = await fake();
    f.advertise('claude-sonnet-5-5', alwaysOn);
    const dirs = { dataDir: tempDir('data'), workDir: tempDir('work') };
    const run = await startSession(env(f, 'claude-sonnet-5-5', 'none'), servers, dirs);
    await run.say('bash: echo one');
    await run.say('echo: two');
    expect(turns(f).length).toBeGreaterThan(0);
    expect(turns(f).every((r) => r.thinking?.type === 'adaptive' && r.output_config === undefined)).toBe(true);
    // A restart asks nothing: the log's limits event says the capabilities.
    await run.server.close();
    servers.splice(0);
    f.modelInfo = 'missing';
    const again = await startTestServer(env(f, 'claude-sonnet-5-5', 'none'), dirs);
    servers.push(again);
    const client = await TestClient.connect(again.url, run.id, run.client.events.length);
    const before = f.requests.length;
    client.send({ type: 'user_message', text: 'bash: echo after restart' });
    await client.untilIdle(1);
    const resumed = f.requests.slice(before);
    expect(resumed.length).toBeGreaterThan(0);
    expect(resumed.every((r) => r.thinking?.type === 'adaptive')).toBe(true);
    expect([...f.violations, ...f.thinking.refusals]).toEqual([]);
  });

  it('a model the API says does not think gets no thinking option, whatever the table says', async () => {
    const f = await fake();
    f.advertise('claude-sonnet-5-5', noThinking);
    const run = await startSession(env(f, 'claude-sonnet-5-5', 'high'), servers);
    await run.say('bash: echo plain');
    expect(turns(f).length).toBeGreaterThan(0);
    expect(turns(f).every((r) => r.thinking === undefined && r.output_config === undefined)).toBe(true);
    expect(run.client.events.find((e): e is LimitsEvent => e.kind === 'limits')?.thinking).toEqual({ mode: 'off', efforts: [] });
    // No effort to offer, though the table lists five.
    expect((await api<SessionSnapshot>(run.server.url, `/api/sessions/${run.id}`)).body.efforts).toEqual([]);
    expect([...f.violations, ...f.thinking.refusals]).toEqual([]);
  });
});
