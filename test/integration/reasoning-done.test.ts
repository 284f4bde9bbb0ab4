// Issue 12's "done when", one session per reasoning model, through the real
// SDKs against the thinking fakes: parallel tool calls, three compactions of
// every strategy (clear_tool_results, provider_compact, summarize, fallback),
// /compact, two instruction changes (mid-session system messages), a model
// switch and a restart, with zero provider refusals and the system prompt and
// tools never changed (append-only).
import { afterEach, describe, expect, it } from 'vitest';
import type { SkeinEvent } from '../../shared/protocol.js';
import { startAnthropicFake, type AnthropicFake } from '../fakes/anthropic-fake.js';
import { startResponsesFake, type ResponsesFake } from '../fakes/openai-responses-fake.js';
import { checkToolCalls, finished, longSession, startSession, type Running } from '../fakes/scenario.js';
import { emulateInstructionChanges, type InstructionChange } from '../helpers/instructions.js';
import { api, startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { TestClient } from '../helpers/ws-client.js';

const servers: TestServer[] = [];
const closers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
  for (const c of closers.splice(0)) await c.close();
});

const STRATEGIES = ['clear_tool_results', 'provider_compact', 'summarize', 'fallback'] as const;

interface Case {
  model: string;
  switchTo: string;
}

const CASES: Case[] = [
  { model: 'claude-sonnet-5-5', switchTo: 'claude-fable-5-1' },
  { model: 'claude-fable-5-1', switchTo: 'claude-sonnet-5-5' },
  { model: 'gpt-5.6-terra', switchTo: 'claude-sonnet-5-5' },
];

/** Requests that were turns (with tools), whichever fake got them. */
function turnRequests(a: AnthropicFake, o: ResponsesFake): { model: string; system: unknown; tools: unknown; body: any }[] {
  const anthropic = a.requests.filter((r) => r.tools?.length && !r.compaction).map((r) => ({ model: r.model, system: r.system.map((b: any) => b.text), tools: r.tools, body: r }));
  const openai = o.requests.filter((r) => r.tools?.length).map((r) => ({ model: r.model, system: r.instructions, tools: r.tools, body: r }));
  return [...anthropic, ...openai];
}

/** Tool steps that grow the context: old big results to clear, groups to fold. */
async function work(run: Pick<Running, 'say'>, tag: string): Promise<void> {
  await run.say(`parallel: echo ${tag}-a ;; echo ${tag}-b`);
  await run.say('big: 900');
  await run.say(`bash: echo ${tag}-done`);
}

describe('reasoning models end to end (issue 12, done when)', () => {
  for (const { model, switchTo } of CASES) {
    it(`${model}: parallel tools, 3 compactions of every strategy, /compact, instruction changes, a switch to ${switchTo} and a restart, zero refusals`, async () => {
      const a = await startAnthropicFake();
      const o = await startResponsesFake();
      closers.push(a, o);
      const dirs = { dataDir: tempDir('data'), workDir: tempDir('work') };
      const env = {
        SKEIN_MODEL: model,
        ANTHROPIC_API_KEY: a.key,
        ANTHROPIC_BASE_URL: a.url,
        OPENAI_API_KEY: o.key,
        OPENAI_BASE_URL: o.url,
        SKEIN_CONTEXT_WINDOW: '9000',
        SKEIN_COMPACT_KEEP_TOOL_RESULTS: '1',
        SKEIN_COMPACT_PROVIDER: 'on',
        SKEIN_RETRY_MAX: '0',
      };
      const fake = model.startsWith('claude') ? a : o;
      const run = await startSession(env, servers, dirs);
      checkToolCalls(await longSession(run));

      // Instruction change 1, delivered with a user message: a system message right after it.
      const changes: InstructionChange[] = [];
      const seqOf = (events: SkeinEvent[], text: string) => events.find((e) => e.kind === 'user' && e.text === text)!.seq;
      await run.say('echo: the instructions change now');
      changes.push({ afterSeq: seqOf(run.client.events, 'echo: the instructions change now'), text: 'Instruction update: answer tersely.' });
      await emulateInstructionChanges(run.server, run.id, changes);

      // Three rounds: the provider compacts; then its compaction fails and skein summarises; then both fail: the fallback.
      for (let round = 1; round <= 3; round++) {
        await work(run, `r${round}p`);
        await run.say('/compact');
        await work(run, `r${round}s`);
        // Enough new history beyond the kept tail for a summary to fold (the provider's item leads the view).
        await work(run, `r${round}s2`);
        fake.failures.next(500);
        await run.say('/compact');
        await work(run, `r${round}f`);
        fake.failures.next(500, 500);
        await run.say('/compact');
        if (round === 2) {
          // Instruction change 2, at the end after the model's answer: it reaches the model with the next message.
          changes.push({ afterSeq: run.client.events.at(-1)!.seq, text: 'Instruction update: report every command you ran.' });
        }
      }
      await work(run, 'before-switch');

      // A model switch, then a restart (the log alone rebuilds the view; the instruction changes stay where they were).
      expect((await api(run.server.url, `/api/sessions/${run.id}/model`, { body: { model: switchTo } })).status).toBe(202);
      await run.say(`parallel: echo on ${switchTo} ;; echo switched`);
      await run.server.close();
      servers.splice(0);
      const again = await startTestServer(env, dirs);
      servers.push(again);
      await emulateInstructionChanges(again, run.id, changes);
      const client = await TestClient.connect(again.url, run.id, run.client.events.length);
      client.send({ type: 'user_message', text: 'parallel: echo after ;; echo restart' });
      await client.untilIdle(1);
      client.send({ type: 'user_message', text: 'bash: echo done' });
      await client.untilIdle(2);
      const events = [...run.client.events, ...client.events];

      // Three compactions of every strategy.
      const compactions = finished(events);
      for (const s of STRATEGIES) expect(compactions.filter((c) => c.strategies?.includes(s)).length, `${s} in ${compactions.map((c) => c.strategies?.join('+')).join(', ')}`).toBeGreaterThanOrEqual(3);
      // Zero refusals from either fake; the only errors are the provider compactions made to fail (and said so).
      expect([...a.violations, ...a.thinking.refusals, ...o.refusals]).toEqual([]);
      const errors = events.filter((e) => e.kind === 'error');
      expect(errors.every((e) => e.kind === 'error' && e.code === 'provider_compact_failed')).toBe(true);
      expect(errors.length).toBe(6);
      // Append-only: one system prompt and one tool list per provider for the whole session, both models, across the restart.
      const turns = turnRequests(a, o);
      // (A session on Anthropic models only sends nothing to the OpenAI fake: that provider has no turns, not zero prompts.)
      let providersUsed = 0;
      for (const provider of [a, o]) {
        const own = turns.filter((t) => (provider === a ? t.body.messages : t.body.input));
        if (own.length) providersUsed++;
        expect(new Set(own.map((t) => JSON.stringify([t.system, t.tools]))).size).toBe(own.length ? 1 : 0);
      }
      expect(providersUsed).toBeGreaterThan(0);
      expect(turns.some((t) => t.model === switchTo)).toBe(true);
      // The instruction changes reached the model as messages, never in `system` / `instructions`.
      const wire = JSON.stringify(turns.map((t) => t.body.messages ?? t.body.input));
      expect(wire).toContain('Instruction update: answer tersely.');
      expect(wire).toContain('Instruction update: report every command you ran.');
      expect(JSON.stringify(turns.map((t) => t.system))).not.toContain('Instruction update');
      if (model.startsWith('claude')) {
        expect(a.requests.some((r) => r.messages.some((m: any) => m.role === 'system'))).toBe(true);
        expect(a.compaction.blocksAccepted).toBeGreaterThan(0);
      } else {
        expect(o.requests.some((r) => r.input?.some((i: any) => i.role === 'developer'))).toBe(true);
        expect(o.compactions).toBeGreaterThanOrEqual(3);
      }
      // Reasoning went back to the model that made it (the fakes' checks ran on it).
      const thinkingBack = a.requests.filter((r) => r.messages?.some((m: any) => m.role === 'assistant' && Array.isArray(m.content) && m.content.some((b: any) => b.type === 'thinking')));
      const reasoningBack = o.requests.filter((r) => r.input?.some?.((i: any) => i.type === 'reasoning'));
      expect(model.startsWith('claude') ? thinkingBack.length : reasoningBack.length).toBeGreaterThan(3);
    }, 180_000);
  }
});
