// An answer stopped by its output budget, on every hosted provider, through
// the real SDKs against the fakes (which stop an answer at max_tokens as the
// APIs do: max-tokens.ts): each adapter reports the cut, streaming and not,
// and a session names it ("reached its max_tokens limit of N"), never shows
// it as finished, and asks the model to continue from the cut.
import { afterEach, describe, expect, it } from 'vitest';
import { createProvider } from '../../server/llm/providers.js';
import { PREDICTABLE_CONTINUED } from '../../server/llm/predictable.js';
import type { LlmResponse } from '../../server/llm/types.js';
import { CUT_NOTE_OPEN, type AgentEvent, type AnswerCutEvent, type SkeinEvent, type StateEvent } from '../../shared/protocol.js';
import { startAnthropicFake } from '../fakes/anthropic-fake.js';
import { startGeminiFake } from '../fakes/gemini-fake.js';
import { startOpenAIFake } from '../fakes/openai-fake.js';
import { startResponsesFake } from '../fakes/openai-responses-fake.js';
import { startSession } from '../fakes/scenario.js';
import { api, type TestServer } from '../helpers/server.js';

const servers: TestServer[] = [];
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
  for (const close of closers.splice(0)) await close();
});

/** A provider, its fake, and how skein is pointed at it. */
interface Case {
  name: string;
  model: string;
  start(): Promise<{ env: Record<string, string>; credentials: Parameters<typeof createProvider>[1]['credentials']; close(): Promise<void> }>;
}

const none = { apiKey: undefined, baseURL: undefined };
const CASES: Case[] = [
  {
    name: 'Anthropic (stop_reason "max_tokens")',
    model: 'claude-haiku-4-5',
    async start() {
      const f = await startAnthropicFake();
      return { env: { ANTHROPIC_API_KEY: f.key, ANTHROPIC_BASE_URL: f.url }, credentials: { anthropic: { apiKey: f.key, baseURL: f.url }, openai: none, gemini: none }, close: f.close };
    },
  },
  {
    name: 'Gemini (finishReason MAX_TOKENS)',
    model: 'gemini-2.5-pro',
    async start() {
      const f = await startGeminiFake();
      return { env: { GEMINI_API_KEY: f.key, GEMINI_BASE_URL: f.url }, credentials: { gemini: { apiKey: f.key, baseURL: f.url }, openai: none, anthropic: none }, close: f.close };
    },
  },
  {
    name: 'OpenAI Responses (status "incomplete", max_output_tokens)',
    model: 'gpt-5.6-terra',
    async start() {
      const f = await startResponsesFake();
      return { env: { OPENAI_API_KEY: f.key, OPENAI_BASE_URL: f.url }, credentials: { openai: { apiKey: f.key, baseURL: f.url }, anthropic: none, gemini: none }, close: f.close };
    },
  },
  {
    name: 'OpenAI Chat Completions (finish_reason "length")',
    model: 'gpt-4.1',
    async start() {
      const f = await startOpenAIFake();
      return { env: { OPENAI_API_KEY: f.key!, OPENAI_BASE_URL: f.url }, credentials: { openai: { apiKey: f.key!, baseURL: f.url }, anthropic: none, gemini: none }, close: f.close };
    },
  },
];

/** About 1,200 tokens of ours (up to 2,400 by a fake's tokenizer) to echo back: longer than a 1,000-token output budget, well inside the window. */
const LONG = Array.from({ length: 600 }, (_, i) => `word${i % 50}`).join(' ');
const WINDOW = 4000;

describe.each(CASES)('$name', (c) => {
  it('the adapter reports a cut answer, streaming and not: stop reason max_tokens, the text so far, the whole budget as output', async () => {
    const fake = await c.start();
    closers.push(fake.close);
    const { provider } = createProvider(c.model, { credentials: fake.credentials, requestTimeoutMs: 20_000 });
    const request = { system: 'You echo.', messages: [{ role: 'user' as const, content: `echo: ${LONG}` }], tools: [], maxOutputTokens: 300, purpose: 'turn' as const };
    const streamed: string[] = [];
    const answers: LlmResponse[] = [
      await provider.complete(request, new AbortController().signal),
      await provider.complete(request, new AbortController().signal, { onText: (t) => streamed.push(t) }),
    ];
    for (const answer of answers) {
      expect(answer.stopReason).toBe('max_tokens');
      expect(answer.text.length).toBeGreaterThan(0);
      expect(LONG.startsWith(answer.text)).toBe(true);
      expect(answer.text.length).toBeLessThan(LONG.length);
      expect(answer.usage.output).toBe(300);
    }
    expect(streamed.join('')).toBe(answers[1]!.text);
  });

  it('a session names the cut ("reached its max_tokens limit of N"), never as finished, and the model continues from it', async () => {
    const fake = await c.start();
    closers.push(fake.close);
    const run = await startSession({ SKEIN_MODEL: c.model, SKEIN_CONTEXT_WINDOW: String(WINDOW), ...fake.env }, servers);
    const events: SkeinEvent[] = await run.say(`echo: ${LONG}`);
    const answers = events.filter((e): e is AgentEvent => e.kind === 'agent');
    // (A compaction that folds the note asking to continue sends it again, marked `again`: not a new cut.)
    const cuts = events.filter((e): e is AnswerCutEvent => e.kind === 'answer_cut' && !e.again);
    const [cutAnswer, continued] = answers;
    expect(cuts).toHaveLength(1);
    const cut = cuts[0]!;
    // The cut answer: the text so far, kept, and not the end of the turn.
    expect(cutAnswer!.text.length).toBeGreaterThan(0);
    expect(LONG.startsWith(cutAnswer!.text.trim())).toBe(true);
    expect(cutAnswer!.endOfTurn).toBe(false);
    expect(cut).toMatchObject({ reason: 'max_tokens', output: cutAnswer!.usage!.output, contextWindow: WINDOW });
    expect(cut.maxTokens).toBe(cut.output);
    expect(cut.seq).toBeGreaterThan(cutAnswer!.seq);
    expect(cut.message).toContain(`the answer reached its max_tokens limit of ${cut.maxTokens.toLocaleString('en-US')}`);
    expect(cut.text?.startsWith(CUT_NOTE_OPEN)).toBe(true);
    // Never "finished" after the cut: the turn went on to the continuation, which ended it.
    const states = events.filter((e): e is StateEvent => e.kind === 'state');
    const ended = states.find((s) => s.to === 'EndOfTurn')!;
    expect(ended.seq).toBeGreaterThan(continued!.seq);
    expect(states.some((s) => s.reason === 'continuing the cut answer')).toBe(true);
    expect(continued).toMatchObject({ text: PREDICTABLE_CONTINUED, endOfTurn: true });
    expect(events.filter((e) => e.kind === 'error')).toEqual([]);
    // The model was asked to continue: in its view the note comes last before the continuation (after the cut answer, or after the summary that folded it).
    const { body: view } = await api<{ messages: { role: string; content: string }[] }>(run.server.url, `/api/sessions/${run.id}/view`);
    const note = view.messages.findLastIndex((m) => m.content.startsWith(CUT_NOTE_OPEN));
    expect(note).toBeGreaterThan(0);
    expect(view.messages.slice(note + 1)).toEqual([expect.objectContaining({ role: 'assistant', content: PREDICTABLE_CONTINUED })]);
  });
});
