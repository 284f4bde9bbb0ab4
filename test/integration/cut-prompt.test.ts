// Issue 22, the mismatch bench's 4k Ollama-style rows rebuilt against the
// OpenAI-compatible fake in its Ollama flavour: a server that says its
// num_ctx (/api/show), silently drops the start of a prompt that does not fit
// it, and counts with a Llama 3-like tokenizer (about 1.3x skein's estimate on
// this code-like first message). The first message takes most of the
// context; every later user message is long enough to be folded as a pointer.
// Before the fix the lean ledger kept every pointer of every earlier fold,
// the summary outgrew the room beside the first message, skein sent the
// request anyway, the server cut the first message, and skein (calibrating
// its estimate from the cut count) never noticed: it kept answers to prompts
// that had lost the task. Now no prompt is cut, every turn is answered, and
// the first message is in every prompt the server reads.
import { afterEach, describe, expect, it } from 'vitest';
import { IN_PLACE_OPEN } from '../../server/compaction/summarizer.js';
import { tokensOf } from '../../server/llm/tokens.js';
import { startOpenAIFake } from '../fakes/openai-fake.js';
import { agents, startSession } from '../fakes/scenario.js';
import { TOKENIZERS, countWith } from '../fakes/tokenizers.js';
import type { TestServer } from '../helpers/server.js';

const NUM_CTX = 4096;
const TASK = `echo: The task (read all of it):\n${Array.from({ length: 42 }, (_, i) => `    cfg["field_${i}"] = {"path": "src/mod_${i % 9}.py", "size": [${i}, ${i * 7}]}`).join('\n')}`;
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
});
