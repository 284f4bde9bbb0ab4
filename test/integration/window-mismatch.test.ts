// skein told a window far larger than the server's (SKEIN_CONTEXT_WINDOW=200000
// against a server of 9,000 tokens), for every server family: the session is
// driven well past the real window through the real SDKs and keeps answering;
// after the first refusal there is at most one more; the learned window is in
// the log and survives a restart; the first user message stays in the view.
// llama.cpp refuses only a prompt that alone reaches its context: a prompt a
// few tokens under it is answered, cut when the context is full, and skein
// learns the window from that cut instead. Which of the two comes first
// depends on the prompt's exact size (the work folder's random name is in the
// system prompt), so both count as the server pushing back.
import { afterEach, describe, expect, it } from 'vitest';
import type { LimitsEvent, SessionSnapshot, SkeinEvent } from '../../shared/protocol.js';
import { startAnthropicFake, type AnthropicFake } from '../fakes/anthropic-fake.js';
import { startGeminiFake, type GeminiFake } from '../fakes/gemini-fake.js';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai-fake.js';
import { agents, startSession } from '../fakes/scenario.js';
import { FLAVOURS, type CompatFlavour } from '../fakes/dialects.js';
import { api, startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { TestClient } from '../helpers/ws-client.js';

const REAL = 9000;
const TOLD = '200000';
const FIRST = 'echo: the task is to keep answering while the context grows well past the window (this is the first message)';

const servers: TestServer[] = [];
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
  for (const c of closers.splice(0)) await c();
});

interface Family {
  name: string;
  start(): Promise<{ env: Record<string, string>; refused: () => number; fake: AnthropicFake | GeminiFake | OpenAIFake; filled?: () => OpenAIFake['filled'] }>;
}

const anthropic = (checkMaxTokens: boolean, name: string): Family => ({
  name,
  async start() {
    const f = await startAnthropicFake({ window: REAL, checkMaxTokens });
    closers.push(f.close);
    return { fake: f, refused: () => f.refused, env: { SKEIN_MODEL: 'claude-sonnet-4-5', ANTHROPIC_API_KEY: f.key, ANTHROPIC_BASE_URL: f.url } };
  },
});

/** `advertise`: the server answers its model-info endpoint (a real Ollama always answers /api/show, which tells skein it cuts prompts). */
const compatible = (flavour: CompatFlavour, advertise = false): Family => ({
  name: flavour,
  async start() {
    const f = await startOpenAIFake({ key: null, models: ['local-model'], server: { flavour, window: REAL, advertise } });
    closers.push(f.close);
    return { fake: f, refused: () => f.refused + f.cut.length + f.filled.length, filled: () => f.filled, env: { SKEIN_MODEL: 'openai:local-model', OPENAI_BASE_URL: f.url } };
  },
});

const FAMILIES: Family[] = [
  anthropic(false, 'Anthropic "prompt is too long"'),
  anthropic(true, 'Anthropic "input length and `max_tokens` exceed context limit"'),
  // Every OpenAI-compatible family, each counting with its own tokenizer and refusing in its own shape (test/fakes/dialects.ts).
  ...FLAVOURS.map((flavour) => compatible(flavour, flavour === 'ollama')),
  {
    name: 'Gemini',
    async start() {
      const f = await startGeminiFake({ window: REAL });
      closers.push(f.close);
      return { fake: f, refused: () => f.refused, env: { SKEIN_MODEL: 'gemini-2.5-flash', GEMINI_API_KEY: f.key, GEMINI_BASE_URL: f.url } };
    },
  },
];

const limitsEvents = (events: SkeinEvent[]) => events.filter((e): e is LimitsEvent => e.kind === 'limits');

/** Every turn ended with an answer, none with an error. */
function everyTurnAnswered(events: SkeinEvent[]): void {
  const errors = events.filter((e) => e.kind === 'error' && e.code !== 'unknown_model');
  expect(errors, JSON.stringify(errors)).toEqual([]);
  const ends = events.filter((e) => e.kind === 'state' && e.to === 'WaitingForUserInput');
  for (const end of ends) expect(events.find((e) => e.kind === 'state' && e.seq < end.seq && e.to === 'EndOfTurn' && e.seq > (ends[ends.indexOf(end) - 1]?.seq ?? 0))).toBeDefined();
}

async function firstUserInView(server: TestServer, id: string): Promise<void> {
  const view = await api<{ messages: { role: string; content: string }[] }>(server.url, `/api/sessions/${id}/view`);
  expect(view.body.messages.find((m) => m.role === 'user')?.content).toBe(FIRST);
}

describe('told 200,000 tokens, the server has 9,000', () => {
  for (const family of FAMILIES) {
    it(`${family.name}: keeps answering past the real window, at most one refusal after the first, learned window in the log and after a restart`, async () => {
      const { env, refused, filled } = await family.start();
      const dirs = { dataDir: tempDir('data'), workDir: tempDir('work') };
      const run = await startSession({ ...env, SKEIN_CONTEXT_WINDOW: TOLD }, servers, dirs);
      await run.say(FIRST);
      // About 2.5 times the real window in tool output.
      for (let i = 0; i < 25; i++) await run.say('big: 900');
      await run.say('echo: still answering after all that');
      const events = run.client.events;
      everyTurnAnswered(events);
      expect(agents(events).at(-1)?.text).toBe('still answering after all that');
      const refusals = refused();
      expect(refusals, 'after the first refusal, at most one more').toBeLessThanOrEqual(2);
      // Ollama says it cuts (/api/show) and its num_ctx: a server that cuts gives no more than that, whatever
      // SKEIN_CONTEXT_WINDOW says, so nothing is ever cut or refused.
      const known = family.name === 'ollama';
      if (known) expect(refusals, 'nothing cut').toBe(0);
      else expect(refusals, 'the server refused (or cut the prompt or the answer) at least once').toBeGreaterThanOrEqual(1);
      const learned = limitsEvents(events).filter((e) => e.source === (known ? 'provider' : 'refusal'));
      expect(learned.length).toBeGreaterThanOrEqual(1);
      // An answer cut at the full context (llama.cpp) is named as such; one before any refusal taught the window.
      const fills = filled?.() ?? [];
      const cutAtContext = events.filter((e) => e.kind === 'answer_cut' && e.reason === 'context');
      expect(cutAtContext.length, 'every answer cut at the full context is named').toBeGreaterThanOrEqual(fills.length);
      if (fills[0]?.refusedBefore === 0) expect(learned[0]).toMatchObject({ contextWindow: fills[0]!.prompt + fills[0]!.answer, via: expect.stringMatching(/answer cut for length/) });
      // A refusal that names no number says only that the window is below what was asked (the prompt and the output budget).
      expect(learned.at(-1)!.contextWindow).toBeLessThanOrEqual(family.name === 'ollama-refuses' ? REAL + 4096 : REAL);
      // The gauge's window followed.
      const lastUsage = events.findLast((e) => e.kind === 'usage');
      expect(lastUsage?.kind === 'usage' && lastUsage.gauge).toMatchObject({ contextWindow: learned.at(-1)!.contextWindow, windowSource: known ? 'provider' : 'refusal' });
      await firstUserInView(run.server, run.id);
      // No false "silently cutting" from a server that refuses, whatever its tokenizer.
      if (family.name !== 'ollama') expect(events.some((e) => e.kind === 'limits' && e.truncated)).toBe(false);

      // A restart reads the learned window from the log: no new refusal, same window.
      run.client.close();
      await run.server.close();
      servers.splice(servers.indexOf(run.server), 1);
      const again = await startTestServer({ SKEIN_RETRY_BASE_MS: '5', ...env, SKEIN_CONTEXT_WINDOW: TOLD }, dirs);
      servers.push(again);
      const snapshot = await api<SessionSnapshot>(again.url, `/api/sessions/${run.id}`);
      expect(snapshot.body.gauge).toMatchObject({ contextWindow: learned.at(-1)!.contextWindow, windowSource: known ? 'provider' : 'refusal' });
      // Only new events: the history is not replayed to this client.
      const client = await TestClient.connect(again.url, run.id, snapshot.body.lastSeq);
      const before = 0;
      client.send({ type: 'user_message', text: 'big: 900' });
      await client.untilIdle(before + 1, 20_000);
      client.send({ type: 'user_message', text: 'echo: and after the restart' });
      await client.untilIdle(before + 2, 20_000);
      expect(agents(client.events).at(-1)?.text).toBe('and after the restart');
      expect(refused()).toBe(refusals);
      expect(limitsEvents(client.events)).toEqual([]);
      await firstUserInView(again, run.id);
      client.close();
    }, 120_000);
  }

  it('a server not known to cut prompts (no /api/show) that cuts them: skein notices the count standing still while the content grows, says so, and drops the answer to the cut prompt', async () => {
    const f = await startOpenAIFake({ key: null, models: ['local-model'], server: { flavour: 'ollama', window: 4096, advertise: false } });
    closers.push(f.close);
    const run = await startSession({ SKEIN_MODEL: 'openai:local-model', OPENAI_BASE_URL: f.url, SKEIN_CONTEXT_WINDOW: TOLD }, servers);
    await run.say(FIRST);
    for (let i = 0; i < 12; i++) await run.say('big: 400');
    await run.say('echo: still answering');
    everyTurnAnswered(run.client.events);
    // Concluded from a plateau (the count stood still while the content grew), whatever the tokenizer: a first cut
    // that drops little may pass unseen, the next one cannot.
    expect(f.cut.length).toBeGreaterThanOrEqual(1);
    expect(f.cut.length).toBeLessThanOrEqual(3);
    const notices = limitsEvents(run.client.events).filter((e) => e.truncated);
    expect(notices.length).toBe(1);
    expect(notices[0]!.message).toMatch(/only keeps [\d,]+ tokens of context.*SKEIN_LOCAL_CONTEXT.*num_ctx/);
    // The answer to the prompt seen cut was dropped and asked again after compacting.
    const turnsAnswered = f.reported.filter((r) => !r.summary).length;
    expect(agents(run.client.events).length).toBe(turnsAnswered - notices.length);
    await firstUserInView(run.server, run.id);
  }, 120_000);
});
