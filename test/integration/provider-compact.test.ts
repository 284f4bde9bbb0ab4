// provider_compact (SKEIN_COMPACT_PROVIDER=on): the provider's own compaction
// API folds the oldest groups, through the real SDKs against the fakes that
// serve and check it (test/fakes/compaction.ts, the Responses fake's
// /responses/compact). Recorded like any compaction, skein's ledger attached,
// the log untouched; where the provider cannot, skein's own strategies fold.
import { afterEach, describe, expect, it } from 'vitest';
import type { CompactionEvent, SkeinEvent } from '../../shared/protocol.js';
import { startAnthropicFake, type AnthropicFake } from '../fakes/anthropic-fake.js';
import { startResponsesFake, type ResponsesFake, type ResponsesUsageWire } from '../fakes/openai-responses-fake.js';
import { MODELS } from '../../server/llm/models.js';
import { refusals } from '../fakes/rules/rejection.js';
import { checkGauge, checkToolCalls, finished, longSession, startSession } from '../fakes/scenario.js';
import { api, startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { TestClient } from '../helpers/ws-client.js';

const servers: TestServer[] = [];
const closers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
  for (const f of closers.splice(0)) await f.close();
});

const SMALL = { SKEIN_CONTEXT_WINDOW: '9000', SKEIN_COMPACT_KEEP_TOOL_RESULTS: '1' };
const anthropicEnv = (f: AnthropicFake, model: string, extra: Record<string, string> = {}) => ({ SKEIN_MODEL: model, ANTHROPIC_API_KEY: f.key, ANTHROPIC_BASE_URL: f.url, ...SMALL, ...extra });
const byProvider = (events: SkeinEvent[]) => finished(events).filter((c) => c.strategies?.includes('provider_compact'));
const firstBlock = (r: any) => (Array.isArray(r.messages?.[0]?.content) ? r.messages[0].content[0] : undefined);

/** A provider compaction as recorded: its strategy, the provider's own output, skein's ledger and summary, smaller after. */
function checkRecorded(c: CompactionEvent, provider: 'anthropic' | 'openai'): void {
  expect(c.strategy).toBe('provider_compact');
  expect(c.provider?.provider).toBe(provider);
  expect(c.ledger?.userMessages.length).toBeGreaterThan(0);
  expect(c.summary).toBeTruthy();
  expect(c.coversSeq![0]).toBeLessThanOrEqual(3);
  expect(c.tokensAfter!).toBeLessThan(c.tokensBefore!);
}

describe('provider_compact', () => {
  it('Anthropic on-demand compaction: the signed block replaces the span and goes back first; restart and a model switch keep zero refusals', async () => {
    const f = await startAnthropicFake();
    closers.push(f);
    const dirs = { dataDir: tempDir('data'), workDir: tempDir('work') };
    const env = anthropicEnv(f, 'claude-sonnet-5-5', { SKEIN_COMPACT_PROVIDER: 'on' });
    const run = await startSession(env, servers, dirs);
    const events = await longSession(run);
    checkToolCalls(events);
    // The automatic compactions so far cleared old results (cheapest first), and may have folded by the provider
    // already (the fake counts with Claude's tokenizer, higher than skein's estimate); /compact folds, by the provider.
    const earlier = byProvider(events).length;
    await run.say('/compact');
    await run.say('bash: echo after the first provider compaction');
    await run.say('echo: one more turn on the compacted view');
    const done = byProvider(run.client.events);
    expect(done.length).toBe(earlier + 1);
    const asked = done.at(-1)!;
    checkRecorded(asked, 'anthropic');
    expect(asked.provider!.output[0]).toMatchObject({ type: 'compaction', content: expect.stringContaining('Summary'), signature: expect.any(String) });
    // The compaction request carried the beta parameter; later turns open with the block, exactly as returned.
    const compacting = f.requests.filter((r) => r.compaction);
    expect(compacting.length).toBe(f.compaction.compactions);
    const after = f.requests.slice(f.requests.indexOf(compacting.at(-1)) + 1).filter((r) => !r.compaction);
    expect(after.length).toBeGreaterThan(1);
    for (const r of after) expect(firstBlock(r)).toEqual(asked.provider!.output[0]);
    expect(f.compaction.blocksAccepted).toBeGreaterThan(1);
    // Thinking still goes back in turns produced after the block.
    expect(after.some((r) => r.messages.slice(1).some((m: any) => m.role === 'assistant' && m.content.some((b: any) => b.type === 'thinking')))).toBe(true);

    // /compact: the provider again, its earlier block folded into the new one.
    await run.say('/compact keep the echo steps');
    await run.say('bash: echo after the second compaction');
    expect(byProvider(run.client.events).length).toBe(done.length + 1);
    expect(f.requests.filter((r) => r.compaction).at(-1).compaction).toEqual({ type: 'summarize', instructions: 'keep the echo steps' });

    // The log is untouched: every user message is still in it.
    const log = await api<{ events: SkeinEvent[] }>(run.server.url, `/api/sessions/${run.id}/events`);
    expect(log.body.events.filter((e) => e.kind === 'user').length).toBe(run.turns);

    // A restart rebuilds the view from the log alone: the block goes back first again.
    await run.server.close();
    servers.splice(0);
    const again = await startTestServer(env, dirs);
    servers.push(again);
    const client = await TestClient.connect(again.url, run.id, run.client.events.length);
    const before = f.requests.length;
    client.send({ type: 'user_message', text: 'parallel: echo after ;; echo restart' });
    await client.untilIdle(1);
    expect(f.requests.slice(before).every((r) => firstBlock(r)?.type === 'compaction')).toBe(true);

    // Another model never gets the block: it reads skein's summary text (with the ledger).
    expect((await api(again.url, `/api/sessions/${run.id}/model`, { body: { model: 'claude-fable-5-1' } })).status).toBe(202);
    const switched = f.requests.length;
    client.send({ type: 'user_message', text: 'bash: echo on fable' });
    await client.untilIdle(2);
    const fable = f.requests.slice(switched).filter((r) => r.model === 'claude-fable-5-1');
    expect(fable.length).toBeGreaterThan(0);
    expect(JSON.stringify(fable.map((r) => r.messages))).not.toContain('"type":"compaction"');
    expect([...f.violations, ...f.thinking.refusals]).toEqual([]);
    expect([...run.client.events, ...client.events].filter((e) => e.kind === 'error')).toEqual([]);
  }, 90_000);

  it('OpenAI /responses/compact: the compacted items replace the span, the encrypted item goes back; zero refusals', async () => {
    const f: ResponsesFake = await startResponsesFake();
    closers.push(f);
    const run = await startSession({ SKEIN_MODEL: 'gpt-5.6-terra', OPENAI_API_KEY: f.key, OPENAI_BASE_URL: f.url, SKEIN_COMPACT_PROVIDER: 'on', ...SMALL }, servers);
    const events = await longSession(run);
    checkToolCalls(events);
    await run.say('/compact');
    await run.say('parallel: echo p ;; echo q');
    await run.say('/compact');
    await run.say('bash: echo after two');
    const done = byProvider(run.client.events);
    expect(done.length).toBeGreaterThan(1);
    checkRecorded(done[0]!, 'openai');
    expect(done[0]!.provider!.output.at(-1)).toMatchObject({ type: 'compaction', encrypted_content: expect.any(String) });
    expect(done[0]!.summary).toContain('The user\'s messages in it were');
    expect(f.compactions).toBe(done.length);
    // The compactions' usage is in the session's cost, at the model's prices; the gauge is still the turns' usage.
    const normalise = (u: ResponsesUsageWire) => ({ input: u.input_tokens - u.input_tokens_details.cached_tokens, cacheRead: u.input_tokens_details.cached_tokens, cacheWrite: 0, output: u.output_tokens });
    checkGauge(run.client.events, f.reported, normalise, MODELS['gpt-5.6-terra']!);
    const last = f.requests.at(-1);
    expect(last.input.filter((i: any) => i.type === 'compaction').length).toBe(1);
    expect(last.input.some((i: any) => i.type === 'reasoning')).toBe(true);
    expect(f.refusals).toEqual([]);
    expect(run.client.events.filter((e) => e.kind === 'error')).toEqual([]);
  }, 90_000);

  it('off by default; where the provider refuses, skein folds with its own strategies and says why', async () => {
    const f = await startAnthropicFake();
    closers.push(f);
    const off = await startSession(anthropicEnv(f, 'claude-sonnet-5-5'), servers);
    await longSession(off);
    await off.say('/compact');
    expect(f.compaction.compactions).toBe(0);
    // Off: skein folded with its own strategies.
    expect(finished(off.client.events).some((c) => c.coversSeq !== undefined)).toBe(true);
    expect(finished(off.client.events).every((c) => !c.strategies?.includes('provider_compact'))).toBe(true);

    // claude-sonnet-4-5 has no on-demand compaction: the API refuses, skein's summary folds instead.
    const on = await startSession(anthropicEnv(f, 'claude-sonnet-4-5', { SKEIN_COMPACT_PROVIDER: 'on' }), servers);
    await longSession(on);
    await on.say('/compact');
    const refused = refusals.splice(0);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.every((r) => r.includes('on-demand compaction is not supported on claude-sonnet-4-5'))).toBe(true);
    f.violations.splice(0);
    const folded = finished(on.client.events).filter((c) => c.coversSeq);
    expect(folded.length).toBeGreaterThan(0);
    expect(folded.every((c) => c.strategy !== 'provider_compact' && !c.provider)).toBe(true);
    const said = on.client.events.filter((e) => e.kind === 'error' && e.code === 'provider_compact_failed');
    expect(said.length).toBe(refused.length);
    expect(said[0]!.kind === 'error' && said[0]!.message).toMatch(/not supported on claude-sonnet-4-5.*skein's own strategies compacted instead/);
  }, 90_000);
});
