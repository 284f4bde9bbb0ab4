// Issue 38, defect 1, against llama.cpp's own llama-server (2,048-token
// window, the real Qwen2 tokenizer and chat template): from the second turn
// on, a compaction took in the user message just sent, and the model read it
// only inside <compacted-history> ("context only, not a new instruction").
// Every request must carry the message being answered as itself.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompactionEvent, SkeinEvent } from '../../shared/protocol.js';
import { startSession } from '../fakes/scenario.js';
import { ensureTinyModel, startLlamaServer, type LlamaServer } from '../helpers/llama-server.js';
import { recordingProxy, type RecordingProxy } from '../helpers/recording-proxy.js';
import type { TestServer } from '../helpers/server.js';

const CTX = 2048;
let llama: LlamaServer;
let proxy: RecordingProxy;
const servers: TestServer[] = [];

beforeAll(async () => {
  // The model that never stops: every answer takes all the room it is given, so the history outgrows the window fast.
  llama = await startLlamaServer({ model: await ensureTinyModel({ vocab: 'qwen2', endless: true }), ctxSize: CTX });
  proxy = await recordingProxy();
  await proxy.listen(llama.url);
}, 20 * 60_000);

afterAll(async () => {
  for (const s of servers.splice(0)) await s.close();
  await proxy?.close();
  await llama?.close();
});

/** A first message that leaves, beside the system prompt and tools, no room under the compaction target for a recent turn. */
const FIRST = `Here is the project description. ${Array.from({ length: 100 }, (_, i) => `part${i % 89}`).join(' ')}`;

type ChatMessage = { role: string; content: string | { type: string; text?: string }[] | null };
const text = (m: ChatMessage) => (typeof m.content === 'string' ? m.content : (m.content ?? []).map((p) => p.text ?? '').join(''));

describe('the message being answered, against llama-server', () => {
  it('is in every request as itself, never only inside a summary, turn after turn in a 2,048-token window', async () => {
    const run = await startSession({ SKEIN_MODEL: 'openai:local-model', OPENAI_BASE_URL: `${proxy.url}/v1` }, servers);
    const asked = [FIRST, 'run bash: ls', 'and now tell me what is in README.md', 'thanks, one more: what does package.json say?'];
    let events: SkeinEvent[] = [];
    for (const message of asked) {
      const sentBefore = proxy.chats.length;
      // A turn may continue a cut answer up to three times: each a few hundred tokens of generation on a shared CPU.
      run.client.send({ type: 'user_message', text: message });
      events = await run.client.untilIdle(++run.turns, 180_000);
      // The agent's own requests (a summariser's transcript request has its own system prompt and no question).
      const summaryRequest = (b: { messages: ChatMessage[] }) => b.messages.some((m) => m.role === 'system' && text(m).startsWith('You are compacting'));
      const requests = proxy.chats.slice(sentBefore).filter((b) => Array.isArray(b.messages) && !summaryRequest(b));
      expect(requests.length, `a request for "${message.slice(0, 30)}"`).toBeGreaterThan(0);
      for (const request of requests) {
        const users = (request.messages as ChatMessage[]).filter((m) => m.role === 'user').map(text);
        // The question itself, as a user message of its own (the first message may be saved to a file when too big: then its head).
        expect(users.some((u) => u === message || (message === FIRST && u.includes(FIRST.slice(0, 200)) && !u.includes('<compacted-history>'))), `request answering "${message.slice(0, 30)}"`).toBe(true);
      }
    }
    const userSeqs = new Map(events.flatMap((e) => (e.kind === 'user' ? [[e.text, e.seq] as const] : [])));
    const compactions = events.filter((e): e is CompactionEvent => e.kind === 'compaction' && e.phase === 'finished' && e.coversSeq !== undefined);
    // The window is small and the head big: compactions happen, and none folds the message it ran for.
    expect(compactions.length).toBeGreaterThan(0);
    for (const c of compactions) {
      const answering = [...userSeqs.values()].filter((seq) => seq < c.seq).at(-1)!;
      const inside = answering >= c.coversSeq![0] && answering <= c.coversSeq![1] && !(c.keptSeqs ?? []).includes(answering);
      expect(inside, `compaction ${c.seq} (covers ${c.coversSeq!.join('-')}) folded message ${answering}`).toBe(false);
    }
    // (The endless model's summaries are cut too: the summariser's circuit breaker may open; that is not an error of the turn.)
    // Nor is a retry notice: random weights sometimes write a tool call llama.cpp's parser refuses (a 500, retried).
    expect(events.filter((e) => e.kind === 'error' && e.code !== 'unknown_model' && e.code !== 'compaction_breaker_open' && e.code !== 'retrying')).toEqual([]);
  }, 600_000);

  it('a first message too big to stay beside the next one is folded (the ledger points to it), and the session goes on', async () => {
    const plain = await startLlamaServer({ model: await ensureTinyModel({ vocab: 'qwen2' }), ctxSize: CTX });
    try {
      const run = await startSession({ SKEIN_MODEL: 'openai:local-model', OPENAI_BASE_URL: `${plain.url}/v1` }, servers);
      const big = `Here is the project description. ${Array.from({ length: 420 }, (_, i) => `part${i % 89}`).join(' ')}`;
      for (const message of [big, 'run bash: ls', 'and now tell me what is in README.md', 'thanks, one more']) {
        const events = await run.say(message);
        // Each turn ends in an answer, none in "cannot fit" (the old pinned head left no room after two turns).
        expect(events.filter((e) => e.kind === 'error' && e.code !== 'unknown_model' && e.code !== 'retrying')).toEqual([]);
        expect(events.at(-1)?.kind === 'state' || events.some((e) => e.kind === 'agent')).toBe(true);
      }
      const answers = run.client.events.filter((e) => e.kind === 'agent' && e.endOfTurn);
      expect(answers).toHaveLength(4);
      const folded = run.client.events.filter((e): e is CompactionEvent => e.kind === 'compaction' && e.phase === 'finished' && e.coversSeq !== undefined);
      const first = run.client.events.find((e) => e.kind === 'user')!;
      expect(folded.some((c) => first.seq >= c.coversSeq![0] && first.seq <= c.coversSeq![1])).toBe(true);
      // The ledger beside the summary still names it (verbatim, or its start and a pointer when long).
      expect(folded.at(-1)!.ledger!.userMessages.map((u) => u.seq)).toContain(first.seq);
    } finally {
      await plain.close();
    }
  }, 240_000);
});
