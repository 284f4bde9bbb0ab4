// A tiny window (a local server's 4,096-token default) with a long first
// message: skein's full system prompt and tools (about 1,500 tokens) would take
// over a third of the window, so requests carry a lean one (about 400: a short
// prompt and the core tools); with a task of about 1,400 tokens (as skein counts; the fake counts its own way) that still leaves less than
// the usual 1,024 tokens of answer room. The output floor
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
import { api, startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { eventsOf, waitForEvents } from '../helpers/ui.js';
import type { SkeinEvent } from '../../shared/protocol.js';
import { tokensOf } from '../../server/llm/tokens.js';
import { LEAN_TOOL_NAMES } from '../../server/tools/lean.js';
import { TOOLS } from '../../server/tools/registry.js';

const WINDOW = 4096;
const TASK = `The task (read all of it): ${Array.from({ length: 160 }, (_, i) => `requirement ${i} keeps field ${i % 7} stable;`).join(' ')}`;

const servers: TestServer[] = [];
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
  for (const c of closers.splice(0)) await c();
});

describe('a 4,096-token window with a long first message', () => {
  it('scales the output floor, never lets the server cut a prompt, and keeps the first message in every prompt', async () => {
    expect(tokensOf(TASK)).toBeGreaterThan(1300);
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
    // The server said its window before the first request: every request was lean from the start
    // (a short system prompt and the core tools), and the timeline says so once.
    for (const body of turns) {
      expect(body.tools.map((t: { function: { name: string } }) => t.function.name)).toEqual([...LEAN_TOOL_NAMES]);
      expect(body.messages[0]).toMatchObject({ role: 'system' });
      expect(tokensOf(body.messages[0].content)).toBeLessThan(150);
    }
    const toolsets = events.filter((e) => e.kind === 'toolset');
    expect(toolsets).toMatchObject([{ lean: true, contextWindow: WINDOW, tools: [...LEAN_TOOL_NAMES] }]);
    expect(toolsets[0]!.seq).toBeLessThan(events.find((e) => e.kind === 'agent')!.seq);
    for (const body of turns) expect(body.messages.find((m: { role: string }) => m.role === 'user').content).toBe(TASK);
    const budgets = turns.map((b) => b.max_tokens as number);
    expect(Math.min(...budgets)).toBeGreaterThanOrEqual(outputFloor(WINDOW));
    expect(Math.min(...budgets)).toBeLessThan(1024);
    expect(events.some((e) => e.kind === 'compaction' && e.phase === 'finished')).toBe(true);
    const view = await api<{ messages: { role: string; content: string }[] }>(run.server.url, `/api/sessions/${run.id}/view`);
    expect(view.body.messages.find((m) => m.role === 'user')?.content).toBe(TASK);
    expect(view.body.messages.some((m) => m.content.includes('echo: still here'))).toBe(true);
  }, 120_000);

  it('told 200,000 against a 4,096-token server: the first refusal makes every later request lean, and a restart keeps it lean', async () => {
    const f = await startOpenAIFake({ key: null, models: ['local-model'], server: { flavour: 'openai', window: WINDOW, advertise: false } });
    closers.push(f.close);
    const env = { SKEIN_MODEL: 'openai:local-model', OPENAI_BASE_URL: f.url, SKEIN_CONTEXT_WINDOW: '200000' };
    const dirs = { dataDir: tempDir('data'), workDir: tempDir('work') };
    const run = await startSession(env, servers, dirs);
    await run.say(TASK);
    for (let i = 0; i < 4; i++) await run.say('big: 200');
    await run.say('echo: still here');
    const events = run.client.events;
    expect(events.filter((e) => e.kind === 'error'), 'no turn ended in an error').toEqual([]);
    expect(agents(events).at(-1)?.text).toMatch(/^(still here|The context was compacted; the summary above)/);
    const names = (b: { tools?: { function: { name: string } }[] }) => (b.tools ?? []).map((t) => t.function.name);
    const turns = f.requests.filter((b) => b.tools?.length && !JSON.stringify(b).includes(IN_PLACE_OPEN));
    // Before it knew, the full set; after the window was learned, only the lean one.
    expect(names(turns[0]!)).toHaveLength(TOOLS.length + 1); // and task (subagents/)
    const learned = events.findIndex((e) => e.kind === 'limits' && e.source === 'refusal');
    const toolset = events.findIndex((e) => e.kind === 'toolset');
    expect(learned).toBeGreaterThanOrEqual(0);
    expect(toolset).toBeGreaterThan(learned);
    expect(events[toolset]).toMatchObject({ lean: true, contextWindow: WINDOW });
    expect(names(turns.at(-1)!)).toEqual([...LEAN_TOOL_NAMES]);
    expect(f.refused).toBe(1);

    // After a restart the window comes from the log, and so does the shape: lean, and not said again.
    run.client.close();
    await run.server.close();
    servers.splice(servers.indexOf(run.server), 1);
    const again = await startTestServer({ SKEIN_RETRY_BASE_MS: '5', ...env }, dirs);
    servers.push(again);
    const before = f.requests.length;
    await api(again.url, `/api/sessions/${run.id}/messages`, { body: { text: 'echo: after the restart' } });
    await waitForEvents(again.url, run.id, (es) => es.some((e) => e.kind === 'agent' && e.text === 'after the restart'));
    expect(names(f.requests.at(-1)!)).toEqual([...LEAN_TOOL_NAMES]);
    expect(f.requests.length).toBeGreaterThan(before);
    expect(f.refused).toBe(1);
    const all: SkeinEvent[] = await eventsOf(again.url, run.id);
    expect(all.filter((e) => e.kind === 'toolset')).toHaveLength(1);
  }, 120_000);

  it('the floor: an eighth of a small window (at least 256), 1,024 from 8,192 tokens up', () => {
    expect(outputFloor(2000)).toBe(256);
    expect(outputFloor(4096)).toBe(512);
    expect(outputFloor(8192)).toBe(1024);
    expect(outputFloor(1_000_000)).toBe(1024);
  });
});
