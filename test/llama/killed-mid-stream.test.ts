// A real llama-server killed (SIGKILL) while skein streams its answer: the
// turn ends with a clear error (no hang, back to waiting for the user), what
// had streamed is never kept as a finished answer, the session's log loses
// nothing, and once the server is started again on the same port the next
// message of the same session is answered. The endless model never stops by
// itself, so the answer is surely still streaming when the server dies.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeltaFrame, SkeinEvent, StateEvent } from '../../shared/protocol.js';
import { startSession } from '../fakes/scenario.js';
import { ensureTinyModel, startLlamaServer, type LlamaServer } from '../helpers/llama-server.js';
import type { TestServer } from '../helpers/server.js';
import { storedEvents } from '../helpers/stored-events.js';

const CTX = 2048;
let model: string;
let llama: LlamaServer;
const servers: TestServer[] = [];

beforeAll(async () => {
  model = await ensureTinyModel({ vocab: 'qwen2', endless: true });
  llama = await startLlamaServer({ model, ctxSize: CTX });
}, 20 * 60_000);

afterAll(async () => {
  for (const s of servers.splice(0)) await s.close();
  await llama?.close();
});

const idleCount = (events: SkeinEvent[]) => events.filter((e) => e.kind === 'state' && e.to === 'WaitingForUserInput').length;
/** The errors of a turn: a retry notice is not one. */
const errors = (events: SkeinEvent[]) => events.filter((e) => e.kind === 'error' && e.code !== 'unknown_model' && e.code !== 'retrying');

describe('llama-server killed while the answer streams (real llama-server, endless model)', () => {
  it('the turn ends with an error and no finished answer, the log keeps everything, and after a restart on the same port the session goes on', async () => {
    const run = await startSession({ SKEIN_MODEL: 'openai:local-model', OPENAI_BASE_URL: `${llama.url}/v1` }, servers);
    const { client } = run;
    client.send({ type: 'user_message', text: 'tell me a long story' });
    const deltas = () => client.frames.filter((f): f is DeltaFrame => f.type === 'delta' && !f.channel);
    // Some of the answer has streamed: the server is killed in the middle of it.
    await client.until(() => deltas().map((d) => d.text).join('').length > 20, 'the answer to stream', 120_000);
    await llama.kill();
    const streamedBefore = deltas().length;
    const killedAt = Math.max(...client.events.map((e) => e.seq));

    // No hang: the turn ends, back to waiting for the user, with an error saying the server could not be reached.
    const events = await client.untilIdle(1, 60_000);
    const afterKill = events.filter((e) => e.seq > killedAt);
    const failed = errors(afterKill);
    expect(failed.length, JSON.stringify(afterKill)).toBeGreaterThan(0);
    // ("connection failed: Connection error.", after the retries each named "Retrying in …")
    expect(failed.at(-1)).toMatchObject({ kind: 'error', code: 'provider_error', message: expect.stringMatching(/connection failed/i) });
    expect(events.filter((e): e is StateEvent => e.kind === 'state').at(-1)).toMatchObject({ to: 'WaitingForUserInput' });
    // What streamed before the kill is not an answer: no agent event after the kill, none ending the turn, no "finished".
    expect(streamedBefore).toBeGreaterThan(0);
    expect(afterKill.filter((e) => e.kind === 'agent')).toEqual([]);
    expect(events.some((e) => e.kind === 'agent' && e.endOfTurn)).toBe(false);
    expect(events.some((e) => e.kind === 'state' && e.reason === 'the model finished its answer')).toBe(false);

    // The log holds every event the client saw, in order, the user's message and the error included.
    const stored = await storedEvents(run.server, run.id);
    expect(stored.map((e) => e.seq)).toEqual(events.map((e) => e.seq));
    expect(stored.find((e) => e.kind === 'user')).toMatchObject({ text: 'tell me a long story' });
    expect(stored.at(-1)).toMatchObject({ kind: 'state', to: 'WaitingForUserInput' });

    // Started again where it was: the next message of the same session is answered.
    llama = await startLlamaServer({ model, ctxSize: CTX, port: llama.port });
    client.send({ type: 'user_message', text: 'are you back?' });
    await client.until(() => client.events.some((e) => e.seq > killedAt && e.kind === 'agent' && e.text.length > 0), 'an answer after the restart', 170_000);
    // (The endless model is cut at max_tokens and the turn may go on: it is stopped once answered.)
    if (idleCount(client.events) < 2) client.send({ type: 'cancel' });
    const after = await client.untilIdle(2, 60_000);
    const answered = after.filter((e) => e.seq > events.at(-1)!.seq);
    expect(answered.find((e) => e.kind === 'user')).toMatchObject({ text: 'are you back?' });
    expect(errors(answered)).toEqual([]);
  }, 300_000);
});
