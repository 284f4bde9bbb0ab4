// Issue 22, the mismatch bench's 4k Ollama-style rows against the
// OpenAI-compatible fake in its Ollama flavour: a server that says its
// num_ctx (/api/show), silently drops the start of a prompt that does not fit
// it, and counts with a Llama 3-like tokenizer (about 1.3x skein's estimate on
// this code-like first message; its tools' JSON far more). With a first
// message that leaves a little room, every turn is compacted to fit and no
// prompt is cut. With one that cannot fit at all, skein used to send every
// later request anyway: the server cut the first message, skein learned its
// ratio from the cut count, and kept the answers (the second test fails on
// the code before the fix); now its own turn ends in an error that says so,
// with the server's count, and later turns fold it into the summary (issue 38). The bench's django-11138 case (the lean ledger's
// pointers growing past the room) is unit-tested in test/unit/cut-prompt.test.ts.
import { afterEach, describe, expect, it } from 'vitest';
import { IN_PLACE_OPEN } from '../../server/compaction/summarizer.js';
import { tokensOf } from '../../server/llm/tokens.js';
import { startOpenAIFake } from '../fakes/openai-fake.js';
import { agents, startSession } from '../fakes/scenario.js';
import { TOKENIZERS, countWith } from '../fakes/tokenizers.js';
import type { TestServer } from '../helpers/server.js';

const NUM_CTX = 4096;
const taskOf = (lines: number) => `echo: The task (read all of it):\n${Array.from({ length: lines }, (_, i) => `    cfg["field_${i}"] = {"path": "src/mod_${i % 9}.py", "size": [${i}, ${i * 7}]}`).join('\n')}`;
const TASK = taskOf(42);
/** With the lean system prompt and tools, about 4,300 of the server's tokens (2,500 of skein's): more than its whole context. */
const TOO_LONG = taskOf(75);
const NOTICE =
  'Please always provide EXACTLY ONE action in triple backticks, found 0 actions. If you want to end the task, please issue the following command: `echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT` without any other command. Else, please format your response exactly as follows: THOUGHT then one bash block.';
const TURNS = 14;

const servers: TestServer[] = [];
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
  for (const c of closers.splice(0)) await c();
});

describe('a server that cuts at num_ctx, a first message that takes most of it', () => {
  it('never has a prompt cut (the first message is in every prompt it reads), every turn is answered, and skein never claims a cut', async () => {
    // The server counts the task higher than skein does: the calibration has to learn it, not the cut count.
    expect(countWith(TOKENIZERS.llama3, TASK) / tokensOf(TASK)).toBeGreaterThan(1.2);
    const f = await startOpenAIFake({ key: null, models: ['local-model'], server: { flavour: 'ollama', window: NUM_CTX, advertise: true } });
    closers.push(f.close);
    const run = await startSession({ SKEIN_MODEL: 'openai:local-model', OPENAI_BASE_URL: f.url }, servers);
    await run.say(TASK);
    for (let i = 0; i < TURNS; i++) await run.say(`echo: ${NOTICE} (notice ${i})`);
    const events = run.client.events;
    const turns = f.requests.filter((b) => b.tools?.length && !JSON.stringify(b).includes(IN_PLACE_OPEN));
    // No turn's prompt was cut: the task was in every one the server read.
    expect(f.cut.filter((c) => !(c as { summary?: boolean }).summary)).toEqual([]);
    for (const body of turns) expect(body.messages.find((m: { role: string }) => m.role === 'user').content).toBe(TASK);
    expect(events.filter((e) => e.kind === 'error' && e.code !== 'unknown_model'), 'no turn ended in an error').toEqual([]);
    expect(events.some((e) => e.kind === 'limits' && e.truncated)).toBe(false);
    // Every notice was answered (the echo, or predictable's answer from the summary when the notice itself was folded).
    expect(agents(events).length).toBeGreaterThanOrEqual(TURNS + 1);
    expect(events.filter((e) => e.kind === 'compaction' && e.phase === 'finished').length).toBeGreaterThan(2);
  }, 180_000);

  it('a first message that cannot fit at all: its turn says so with numbers that agree, no answer to a cut prompt is kept, and later turns go on with it folded', async () => {
    const f = await startOpenAIFake({ key: null, models: ['local-model'], server: { flavour: 'ollama', window: NUM_CTX, advertise: true } });
    closers.push(f.close);
    const run = await startSession({ SKEIN_MODEL: 'openai:local-model', OPENAI_BASE_URL: f.url }, servers);
    // skein counts it well under the context (its estimate has not learned the server's tokenizer yet).
    expect(tokensOf(TOO_LONG)).toBeLessThan(NUM_CTX * 0.7);
    await run.say(TOO_LONG);
    for (let i = 0; i < 4; i++) await run.say(`echo: still there? (${i})`);
    const events = run.client.events;
    // The server read the first request in full (one message, never cut) and counted it past num_ctx: its answer is
    // dropped, and the turn ends in an error with the server's numbers.
    expect(f.cut.filter((c) => !(c as { summary?: boolean }).summary)).toEqual([]);
    const errors = events.filter((e) => e.kind === 'error' && e.code === 'context_overflow');
    expect(errors.length).toBe(1);
    const message = (errors[0] as { message: string }).message;
    const [, head, floor] = /your first message alone take about ([\d,]+) tokens, and the answer needs at least ([\d,]+) more/.exec(message) ?? [];
    expect(head, message).toBeDefined();
    const n = (s: string) => Number(s.replace(/,/g, ''));
    // The numbers agree: the head and the answer's floor pass the window the message names; the head is the server's count.
    expect(n(head!) + n(floor!)).toBeGreaterThan(NUM_CTX);
    expect(n(head!)).toBeGreaterThan(NUM_CTX);
    // Later turns are not about the first message: it folds into the summary (a pointer reads it back), and each is answered.
    expect(agents(events).map((e) => (e as { text: string }).text)).toEqual([0, 1, 2, 3].map((i) => `still there? (${i})`));
    const firstSeq = events.find((e) => e.kind === 'user')!.seq;
    const folds = events.filter((e) => e.kind === 'compaction' && e.phase === 'finished' && e.coversSeq);
    expect(folds.some((e) => e.kind === 'compaction' && e.coversSeq![0] <= firstSeq)).toBe(true);
    const later = f.requests.filter((b) => b.tools?.length).slice(1);
    expect(later.length).toBe(4);
    for (const body of later) expect(JSON.stringify(body)).not.toContain('field_74');
  }, 180_000);
});
