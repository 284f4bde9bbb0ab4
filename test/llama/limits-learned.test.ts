// Limits asked again until answered, and kept by the data folder (issue 38,
// defects 3 and 4), against llama.cpp's real llama-server (2,048-token window,
// Qwen2's real tokenizer, which counts about 1.2x what skein's tokenizer does):
// - a session whose first request found the server down learns the window
//   once the server is up, and its next request is sized for it;
// - a restart with the same data folder starts with the learned window and the
//   server's token ratio, before its first request;
// - the "not in skein's model table" warning only when the server does not say
//   its window, and once.
// A recording proxy sits in front of the server: it is "down" until it
// listens, and it shows what skein sent (max_tokens, tools).
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { LimitsEvent, SkeinEvent } from '../../shared/protocol.js';
import { agents, startSession } from '../fakes/scenario.js';
import { runCli } from '../helpers/cli.js';
import { ensureTinyModel, startLlamaServer, type LlamaServer } from '../helpers/llama-server.js';
import { recordingProxy, type RecordingProxy } from '../helpers/recording-proxy.js';
import { api, tempDir, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';

const CTX = 2048;
const WARNING = "not in skein's model table";
let llama: LlamaServer;
const servers: TestServer[] = [];
const proxies: RecordingProxy[] = [];

beforeAll(async () => {
  // Built by `npm test`'s pretest; building here (a fresh machine, the pretest skipped) takes long.
  llama = await startLlamaServer({ model: await ensureTinyModel({ vocab: 'qwen2' }), ctxSize: CTX });
}, 20 * 60_000);

afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
  for (const p of proxies.splice(0)) await p.close();
});

afterAll(async () => {
  await llama?.close();
});

const limitsOf = (events: SkeinEvent[]) => events.filter((e): e is LimitsEvent => e.kind === 'limits');
const errorsOf = (events: SkeinEvent[], code: string) => events.filter((e) => e.kind === 'error' && e.code === code);
const gaugeOf = async (server: TestServer, id: string) => (await api<{ gauge: Record<string, unknown> }>(server.url, `/api/sessions/${id}`)).body.gauge;

async function proxy(): Promise<RecordingProxy> {
  const p = await recordingProxy();
  proxies.push(p);
  return p;
}

/** Each turn's own events (say() gives all of them so far). */
function turns(run: Awaited<ReturnType<typeof startSession>>): (text: string) => Promise<SkeinEvent[]> {
  let mark = 0;
  return async (text) => {
    const all = await run.say(text);
    const own = all.filter((e) => e.seq > mark);
    mark = all.at(-1)!.seq;
    return own;
  };
}

const env = (p: RecordingProxy) => ({ SKEIN_MODEL: 'openai:local-model', OPENAI_BASE_URL: `${p.url}/v1` });

describe('limits asked again until answered (defect 3)', () => {
  it('the server down at the first request: the 32k guess is said once; once the server is up the next request learns 2,048 from /props and is sized for it', async () => {
    const server = await proxy();
    const run = await startSession(env(server), servers);
    const turn = turns(run);
    const down = await turn('hi');
    expect(down.filter((e) => e.kind === 'error' && e.code === 'provider_error'), 'the turn failed: nothing listens').toHaveLength(1);
    expect(limitsOf(down)).toEqual([expect.objectContaining({ source: 'table', contextWindow: 32_000, unanswered: true })]);
    expect(errorsOf(down, 'unknown_model')).toHaveLength(1);
    expect(await gaugeOf(run.server, run.id)).toMatchObject({ contextWindow: 32_000, windowSource: 'table', windowGuess: true });


    await server.listen(llama.url);
    const up = await turn('hi again');
    expect(limitsOf(up)).toEqual([expect.objectContaining({ source: 'provider', contextWindow: CTX, via: 'GET /props (n_ctx)', reported: { contextWindow: CTX } })]);
    expect(limitsOf(up)[0]!.message).toMatch(/now says its window: 2,048 tokens/);
    expect(errorsOf(up, 'unknown_model')).toEqual([]);
    // Asked before the request went out: the request itself follows the 2,048-token window.
    const toolset = up.find((e) => e.kind === 'toolset');
    expect(toolset).toMatchObject({ lean: true, contextWindow: CTX });
    const first = server.chats[0];
    expect(server.paths.indexOf('GET /props')).toBeLessThan(server.paths.findIndex((p) => p.endsWith('/chat/completions')));
    expect(first.max_tokens).toBeLessThanOrEqual(CTX / 4);
    expect(first.tools.map((t: { function: { name: string } }) => t.function.name)).toEqual(toolset?.kind === 'toolset' && toolset.tools);
    const usage = up.findLast((e) => e.kind === 'usage');
    expect(usage?.kind === 'usage' && usage.gauge).toMatchObject({ contextWindow: CTX, windowSource: 'provider' });
    expect(usage?.kind === 'usage' && usage.gauge.windowGuess).toBeUndefined();
    expect(agents(up).at(-1)).toMatchObject({ usage: { input: expect.any(Number) } });
  }, 180_000);

  it('a server that stays down is asked again at each later request (as the back-off allows), and the failure and the warning are said once', async () => {
    const server = await proxy();
    const run = await startSession(env(server), servers);
    const turn = turns(run);
    const first = await turn('hi');
    expect(limitsOf(first)).toHaveLength(1);
    expect(errorsOf(first, 'unknown_model')).toHaveLength(1);
    const again = await turn('hi, anyone?');
    expect(limitsOf(again)).toEqual([]);
    expect(errorsOf(again, 'unknown_model')).toEqual([]);
    expect(again.filter((e) => e.kind === 'error' && e.code === 'provider_error')).toHaveLength(1);
    expect(await gaugeOf(run.server, run.id)).toMatchObject({ contextWindow: 32_000, windowGuess: true });
  }, 180_000);
});

describe('what the data folder learned (defect 4)', () => {
  it('a restart with the same data folder starts with the 2,048-token window and the server\'s ratio: the first request\'s estimate is within 5% of llama\'s prompt_tokens', async () => {
    const server = await proxy();
    await server.listen(llama.url);
    const dirs = { dataDir: tempDir('data'), workDir: tempDir('work') };
    const first = await startSession(env(server), servers, dirs);
    await first.say('hi');
    await servers.pop()!.close();

    const again = await startSession(env(server), servers, dirs);
    // Before any request: the window this data folder learned, not the 32k guess.
    expect(await gaugeOf(again.server, again.id)).toMatchObject({ contextWindow: CTX, windowSource: 'provider' });
    expect((await gaugeOf(again.server, again.id)).windowGuess).toBeUndefined();
    // The first request held at the server: the estimate skein sized it with, read while it is out.
    server.hold();
    const turn = again.say('please list the files in this folder and tell me what each one is for');
    await until(() => server.waiting === 1, 'the first request of the new process at the server');
    const view = await api<{ tokens: number; estimate?: number }>(again.server.url, `/api/sessions/${again.id}/view`);
    server.release();
    const events = await turn;
    const answer = agents(events)[0];
    const prompt = answer!.usage!.input + answer!.usage!.cacheRead;
    // Uncalibrated (skein's own count) it is about 20% low against Qwen2's tokenizer.
    expect(prompt / view.body.tokens).toBeGreaterThan(1.1);
    expect(Math.abs(view.body.estimate! - prompt) / prompt).toBeLessThan(0.05);
    expect(errorsOf(events, 'unknown_model')).toEqual([]);
    expect(server.chats.at(-1).max_tokens).toBeLessThanOrEqual(CTX / 4);
  }, 180_000);
});

describe('the unknown-model warning (issue 38, "Also")', () => {
  const count = (text: string) => text.split(WARNING).length - 1;

  it('skein run against a server that says its window: no warning; against one that is down: the warning once', async () => {
    const server = await proxy();
    await server.listen(llama.url);
    const base = { SKEIN_DATA_DIR: tempDir('cli-data'), SKEIN_WORKDIR: tempDir('cli-work'), SKEIN_RETRY_BASE_MS: '5', ...env(server) };
    const answered = await runCli(['run', 'hi'], base);
    expect(answered.code, answered.stderr).toBe(0);
    expect(count(answered.stdout + answered.stderr)).toBe(0);

    const down = await proxy();
    const failed = await runCli(['run', 'hi'], { ...base, SKEIN_DATA_DIR: tempDir('cli-data'), ...env(down) });
    expect(failed.code).not.toBe(0);
    expect(count(failed.stdout + failed.stderr), failed.stdout + failed.stderr).toBe(1);
    // And the OpenAI SDK's "Connection error." is never followed by a second period.
    expect(failed.stdout + failed.stderr).toContain('Connection error.');
    expect(failed.stdout + failed.stderr).not.toContain('Connection error..');
  }, 300_000);
});

describe('a server restarted with another context between runs (red team)', () => {
  it('skein run --session against the same URL asks the window again and sizes its request for the smaller one: no refusal, the timeline says so', async () => {
    const first = await proxy();
    await first.listen(llama.url);
    const port = Number(new URL(first.url).port);
    const base = { SKEIN_DATA_DIR: tempDir('restart-data'), SKEIN_WORKDIR: tempDir('restart-work'), SKEIN_RETRY_BASE_MS: '5', ...env(first) };
    const one = await runCli(['run', 'hi'], base);
    expect(one.code, one.stderr).toBe(0);
    const id = /session (\S+)/.exec(one.stderr)![1]!;
    await first.close();
    proxies.splice(proxies.indexOf(first), 1);
    // The same URL now reaches a server with half the context.
    const small = await startLlamaServer({ model: await ensureTinyModel({ vocab: 'qwen2' }), ctxSize: CTX / 2 });
    try {
      const second = await recordingProxy(port);
      proxies.push(second);
      await second.listen(small.url);
      const two = await runCli(['run', '--json', '--session', id, 'hello again'], base);
      expect(two.code, two.stderr + two.stdout).toBe(0);
      const events = two.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as SkeinEvent);
      const said = limitsOf(events);
      expect(said.at(-1)).toMatchObject({ contextWindow: CTX / 2, source: 'provider' });
      expect(said.at(-1)!.message).toContain('The server now says its window: 1,024 tokens');
      // Asked before the first request, and that request fits the smaller window: nothing refused.
      const firstChat = second.paths.findIndex((p) => p.includes('chat/completions'));
      expect(second.paths.slice(0, firstChat).some((p) => p.includes('/props') || p.includes('/v1/models'))).toBe(true);
      expect(second.chats[0].max_tokens).toBeLessThanOrEqual(CTX / 8);
      expect(errorsOf(events, 'context_overflow')).toEqual([]);
      expect(events.some((e) => e.kind === 'limits' && e.source === 'refusal')).toBe(false);
    } finally {
      await small.close();
    }
  }, 300_000);
});

describe('SKEIN_CONTEXT_WINDOW larger than the server says (review)', () => {
  it('is said once, in the timeline (the limits event) and the log, with both numbers; the same session run again says nothing more', async () => {
    const server = await proxy();
    await server.listen(llama.url);
    const base = { SKEIN_DATA_DIR: tempDir('over-data'), SKEIN_WORKDIR: tempDir('over-work'), SKEIN_RETRY_BASE_MS: '5', SKEIN_CONTEXT_WINDOW: String(4 * CTX), ...env(server) };
    const said = "SKEIN_CONTEXT_WINDOW is 8,192 tokens but the server's window is 2,048 (GET /props (n_ctx))";
    const count = (text: string) => text.split(said).length - 1;
    const eventsOf = (stdout: string) => stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as SkeinEvent);

    const one = await runCli(['run', '--json', 'hi'], base);
    expect(one.code, one.stderr).toBe(0);
    const told = limitsOf(eventsOf(one.stdout)).filter((e) => e.message?.includes(said));
    expect(told).toEqual([expect.objectContaining({ source: 'setting', contextWindow: 4 * CTX, reported: { contextWindow: CTX } })]);
    expect(told[0]!.message).toContain('will be refused or its answer cut');
    expect(count(one.stderr), one.stderr).toBe(1);

    const id = /session (\S+)/.exec(one.stderr)![1]!;
    const two = await runCli(['run', '--json', '--session', id, 'hello again'], base);
    expect(two.code, two.stderr).toBe(0);
    expect(count(two.stdout + two.stderr)).toBe(0);
  }, 300_000);
});
