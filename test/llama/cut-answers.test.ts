// Issue 38, defect 2, against llama.cpp's own llama-server: it refuses only a
// prompt that alone reaches n_ctx; prompt + max_tokens past n_ctx is taken,
// and the answer stops when the context is full, with finish_reason "length"
// and a non-empty text. skein must name that cut (never "the model finished
// its answer"), learn the window from it when it believed a larger one, and
// go on from the cut with a request that fits.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentEvent, AnswerCutEvent, LimitsEvent, SkeinEvent, StateEvent } from '../../shared/protocol.js';
import { CUT_NOTE_OPEN } from '../../shared/protocol.js';
import { startSession } from '../fakes/scenario.js';
import { ensureTinyModel, startLlamaServer, type LlamaServer } from '../helpers/llama-server.js';
import type { TestServer } from '../helpers/server.js';

const CTX = 2048;
let endless: LlamaServer;
const servers: TestServer[] = [];

beforeAll(async () => {
  // The endless model never stops by itself: its answers run until max_tokens or a full context.
  endless = await startLlamaServer({ model: await ensureTinyModel({ vocab: 'qwen2', endless: true }), ctxSize: CTX });
}, 20 * 60_000);

afterAll(async () => {
  for (const s of servers.splice(0)) await s.close();
  await endless?.close();
});

/** The cuts named (a note sent again after a fold took it away, `again`, is not a new cut). */
const cuts = (events: SkeinEvent[]) => events.filter((e): e is AnswerCutEvent => e.kind === 'answer_cut' && !e.again);
const answers = (events: SkeinEvent[]) => events.filter((e): e is AgentEvent => e.kind === 'agent');

describe('an answer cut by a full context (real llama-server, n_ctx 2,048)', () => {
  it('is named in the timeline, the window is learned from it, and the continuation request fits the context', async () => {
    // Told a window three times the server's (SKEIN_CONTEXT_WINDOW wins over /props; at that size the session sends
    // the lean toolset, so the prompt fits the real 2,048): max_tokens 1,536 leaves the
    // answer more room than the context, so it stops at n_ctx, not at max_tokens.
    const run = await startSession({ SKEIN_MODEL: 'openai:local-model', OPENAI_BASE_URL: `${endless.url}/v1`, SKEIN_CONTEXT_WINDOW: String(3 * CTX) }, servers);
    const { client } = run;
    client.send({ type: 'user_message', text: 'hi' });
    // The cut answer, then the answer to the continuation: then the turn is stopped (an endless model is cut every time).
    const idle = () => client.events.some((e) => e.kind === 'state' && e.to === 'WaitingForUserInput');
    // (A turn that ends after the first answer, as it did before cut answers were named, ends the wait too.)
    await client.until(() => answers(client.events).length >= 2 || idle(), 'the continuation was answered', 170_000);
    if (!idle()) client.send({ type: 'cancel' });
    await client.until(idle, 'the turn ended', 30_000);
    const events = client.events;

    const [first, second] = answers(events);
    const cut = cuts(events)[0]!;
    expect(first!.text.length).toBeGreaterThan(0);
    expect(first!.endOfTurn).toBe(false);
    // What the server reported: prompt + answer is exactly its context.
    expect(first!.usage!.input + first!.usage!.cacheRead + first!.usage!.output).toBe(CTX);
    expect(cut).toMatchObject({ reason: 'context', input: first!.usage!.input + first!.usage!.cacheRead, output: first!.usage!.output, contextWindow: CTX });
    expect(cut.output).toBeLessThan(cut.maxTokens);
    expect(cut.seq).toBeGreaterThan(first!.seq);
    expect(cut.message).toContain('The answer was cut: prompt and answer filled the 2,048-token context window');
    expect(cut.message).toContain('skein believed the window was 6,144 tokens and now uses 2,048');
    expect(cut.text?.startsWith(CUT_NOTE_OPEN)).toBe(true);

    // The window is relearned: a limits event with the server's context, winning over SKEIN_CONTEXT_WINDOW.
    const learned = events.filter((e): e is LimitsEvent => e.kind === 'limits' && e.source === 'refusal');
    expect(learned).toEqual([expect.objectContaining({ contextWindow: CTX, via: `an answer cut for length at ${CTX} tokens of prompt and answer` })]);
    expect(learned[0]!.seq).toBeLessThan(cut.seq);
    // And the data folder keeps it (red team): the next process starts from the learned window, not the told one.
    const file = JSON.parse(fs.readFileSync(path.join(run.server.dataDir, 'learned-limits.json'), 'utf8'));
    expect(file.servers).toEqual([expect.objectContaining({ model: 'openai:local-model', limits: expect.objectContaining({ contextWindow: CTX, source: 'refusal' }) })]);

    // Never "finished": no state says so, and the turn went on instead of ending.
    const states = events.filter((e): e is StateEvent => e.kind === 'state');
    expect(states.some((s) => s.reason === 'the model finished its answer')).toBe(false);
    expect(states.some((s) => s.from === 'ProcessingLLMResponse' && s.to === 'EndOfTurn' && s.seq < second!.seq)).toBe(false);

    // The continuation fitted: no refusal, no overflow, and the server read the whole of it (prompt + its max_tokens within n_ctx).
    expect(events.filter((e) => e.kind === 'error' && e.code !== 'unknown_model' && e.code !== 'retrying')).toEqual([]);
    const secondInput = second!.usage!.input + second!.usage!.cacheRead;
    expect(secondInput).toBeGreaterThan(0);
    expect(secondInput + second!.usage!.output).toBeLessThanOrEqual(CTX);
    // The second answer is named too (an endless model is cut again): by max_tokens now that the window is right.
    const again = cuts(events)[1];
    expect(again).toMatchObject({ reason: 'max_tokens', contextWindow: CTX });
    expect(again!.input + again!.maxTokens).toBeLessThanOrEqual(CTX);
    expect(again!.message).toContain(`the answer reached its max_tokens limit of ${again!.maxTokens}`);
  }, 240_000);
});
