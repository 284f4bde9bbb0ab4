// Which cut is which, and the bound on continuations (server/agent/cut-answers.ts).
import { describe, expect, it } from 'vitest';
import { CutAnswers, MAX_CONTINUATIONS } from '../../server/agent/cut-answers.js';
import type { LlmRequest, LlmResponse } from '../../server/llm/types.js';
import type { NewEvent } from '../../shared/protocol.js';

function host(opts: { window: number; serverContext?: number; provider?: 'openai' | 'anthropic' | 'gemini' }) {
  const appended: NewEvent[] = [];
  const learned: number[] = [];
  const window = {
    contextWindow: opts.window,
    serverContext: opts.serverContext,
    learnFromCut(filled: number) {
      learned.push(filled);
      window.contextWindow = filled;
      return true;
    },
  };
  const session = { append: (e: NewEvent) => (appended.push(e), { ...e, seq: appended.length }), log: { since: () => [] } };
  const cuts = new CutAnswers({ session: session as never, window: window as never, info: () => ({ provider: opts.provider ?? 'openai' }) as never });
  return { cuts, appended, learned };
}

const request = (maxOutputTokens: number) => ({ maxOutputTokens }) as LlmRequest;
const cutAfter = (input: number, output: number, extra: Partial<LlmResponse> = {}): LlmResponse => ({
  text: 'so far',
  toolCalls: [],
  stopReason: 'max_tokens',
  usage: { input, output, cacheRead: 0, cacheWrite: 0, costUsd: 0 },
  ...extra,
});

describe('cut answers', () => {
  it('an answer that ended, or asks for tools, is not cut', () => {
    const { cuts } = host({ window: 8000 });
    expect(cuts.classify(request(1000), { ...cutAfter(100, 50), stopReason: 'end_turn' })).toBeUndefined();
    expect(cuts.classify(request(1000), { ...cutAfter(100, 50), stopReason: 'tool_use', toolCalls: [{ id: 'c', name: 'bash', input: {} }] })).toBeUndefined();
  });

  it('a full context: prompt + answer reach the window or n_ctx, or (a local server) the answer stopped before its budget; it teaches the window', () => {
    expect(host({ window: 2048 }).cuts.classify(request(512), cutAfter(1800, 248))?.reason).toBe('context');
    expect(host({ window: 200_000, serverContext: 2048 }).cuts.classify(request(4096), cutAfter(1759, 289))?.reason).toBe('context');
    const { cuts, appended, learned } = host({ window: 32_000 });
    const cut = cuts.classify(request(4096), cutAfter(2016, 32))!;
    expect(cut.reason).toBe('context');
    cuts.record(cut);
    expect(learned).toEqual([2048]);
    expect(appended[0]).toMatchObject({ kind: 'answer_cut', reason: 'context', contextWindow: 2048 });
    expect((appended[0] as { message: string }).message).toContain('skein believed the window was 32,000 tokens and now uses 2,048');
  });

  it('the output budget: the whole of max_tokens written, well inside the window; a hosted API stopping early says nothing about its window', () => {
    expect(host({ window: 8000 }).cuts.classify(request(1000), cutAfter(2000, 1000))?.reason).toBe('max_tokens');
    expect(host({ window: 200_000, provider: 'anthropic' }).cuts.classify(request(1000), cutAfter(2000, 900))?.reason).toBe('max_tokens');
    // The whole budget written past a window skein believes smaller than the server's (SKEIN_CONTEXT_WINDOW below -c): max_tokens, not a full context.
    const { cuts, learned } = host({ window: 1000 });
    const cut = cuts.classify(request(256), cutAfter(974, 256))!;
    expect(cut.reason).toBe('max_tokens');
    cuts.record(cut);
    expect(learned).toEqual([]);
    // Unless the API says it was the context (Anthropic's model_context_window_exceeded).
    expect(host({ window: 200_000, provider: 'anthropic' }).cuts.classify(request(1000), cutAfter(2000, 900, { contextFull: true }))?.reason).toBe('context');
  });

  it(`asks to continue at most ${MAX_CONTINUATIONS} times a turn, then leaves the answer cut and says so`, () => {
    const { cuts, appended } = host({ window: 8000 });
    for (let i = 0; i < MAX_CONTINUATIONS; i++) {
      const cut = cuts.classify(request(1000), cutAfter(2000, 1000))!;
      expect(cut.continues).toBe(true);
      cuts.record(cut);
    }
    const last = cuts.classify(request(1000), cutAfter(2000, 1000))!;
    expect(last.continues).toBe(false);
    cuts.record(last);
    expect(appended.at(-1)).not.toHaveProperty('text');
    expect((appended.at(-1) as { message: string }).message).toContain(`stopped asking the model to continue after ${MAX_CONTINUATIONS} continuations`);
    cuts.startTurn();
    expect(cuts.classify(request(1000), cutAfter(2000, 1000))!.continues).toBe(true);
  });
});
