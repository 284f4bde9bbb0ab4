// A tiny window (a local server's 4,096-token default) with a long first
// message: skein's system prompt and tools (about 1,900 tokens) and a
// 950-token task leave less than the usual 1,024 tokens of answer room (a
// request asking for 1,024 would overrun num_ctx while answering). The output floor
// scales down (an eighth of the window) and compaction keeps every request
// within the window, so the server, which silently cuts the start of a prompt
// that does not fit, never has to: the first user message is in every prompt
// it reads, and the session goes on. (The check before sending that compacts
// harder is tested in test/unit/overflow-recovery.test.ts and measured by the
// mismatch bench's 4k row.)
import { afterEach, describe, expect, it } from 'vitest';
import { IN_PLACE_OPEN } from '../../server/compaction/summarizer.js';
import { outputFloor } from '../../server/agent/window.js';
import { startOpenAIFake } from '../fakes/openai-fake.js';
import { agents, startSession } from '../fakes/scenario.js';
import { api, type TestServer } from '../helpers/server.js';
import { tokensOf } from '../../server/llm/tokens.js';

const WINDOW = 4096;
const TASK = `The task (read all of it): ${Array.from({ length: 110 }, (_, i) => `requirement ${i} keeps field ${i % 7} stable;`).join(' ')}`;

const servers: TestServer[] = [];
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
  for (const c of closers.splice(0)) await c();
});

describe('a 4,096-token window with a long first message', () => {
  it('scales the output floor, never lets the server cut a prompt, and keeps the first message in every prompt', async () => {
    expect(tokensOf(TASK)).toBeGreaterThan(850);
    const f = await startOpenAIFake({ key: null, models: ['local-model'], server: { flavour: 'ollama', window: WINDOW, advertise: true } });
    closers.push(f.close);
    const run = await startSession({ SKEIN_MODEL: 'openai:local-model', OPENAI_BASE_URL: f.url }, servers);
    await run.say(TASK);
    for (let i = 0; i < 8; i++) await run.say('big: 200');
    await run.say('echo: still here');
    const events = run.client.events;
    expect(events.filter((e) => e.kind === 'error' && e.code !== 'unknown_model'), 'no turn ended in an error').toEqual([]);
    // The last request was answered: at this size a pre-send compaction may fold the request itself into
    // the summary (which keeps every user message verbatim), and predictable then carries on from it.
    expect(agents(events).at(-1)?.text).toMatch(/^(still here|The context was compacted; the summary above)/);
    // The server never had to cut a prompt: every request fit the window.
    expect(f.cut).toEqual([]);
    expect(events.some((e) => e.kind === 'limits' && e.truncated)).toBe(false);
    // Every request carried the first message and asked for at least the scaled floor, some for less than 1,024.
    // Turns, not the summaries asked for in place (they carry the tools too, and their own small budget).
    const turns = f.requests.filter((b) => b.tools?.length && !JSON.stringify(b).includes(IN_PLACE_OPEN));
    expect(turns.length).toBeGreaterThan(10);
    for (const body of turns) expect(body.messages.find((m: { role: string }) => m.role === 'user').content).toBe(TASK);
    const budgets = turns.map((b) => b.max_tokens as number);
    expect(Math.min(...budgets)).toBeGreaterThanOrEqual(outputFloor(WINDOW));
    expect(Math.min(...budgets)).toBeLessThan(1024);
    expect(events.some((e) => e.kind === 'compaction' && e.phase === 'finished')).toBe(true);
    const view = await api<{ messages: { role: string; content: string }[] }>(run.server.url, `/api/sessions/${run.id}/view`);
    expect(view.body.messages.find((m) => m.role === 'user')?.content).toBe(TASK);
    expect(view.body.messages.some((m) => m.content.includes('echo: still here'))).toBe(true);
  }, 120_000);

  it('the floor: an eighth of a small window (at least 256), 1,024 from 8,192 tokens up', () => {
    expect(outputFloor(2000)).toBe(256);
    expect(outputFloor(4096)).toBe(512);
    expect(outputFloor(8192)).toBe(1024);
    expect(outputFloor(1_000_000)).toBe(1024);
  });
});
