// An answer cut at exactly the context (server/agent/cut-answers.ts), walked
// one token either side, with the cut as it is logged (the answer_cut event
// and its words), not only the reason returned. Where only the count can
// tell (a hosted API, which never stops early for its window), prompt +
// answer == the window is a full context and one token less is the output
// budget; on a local server (llama.cpp's n_ctx, read from /props) an answer
// that stopped before its budget is a full context, and one that wrote its
// whole budget as the context filled stopped at max_tokens.
import { describe, expect, it } from 'vitest';
import { CutAnswers } from '../../server/agent/cut-answers.js';
import type { LlmRequest, LlmResponse } from '../../server/llm/types.js';
import type { AnswerCutEvent, NewEvent } from '../../shared/protocol.js';

function logCut(opts: { window: number; serverContext?: number; provider: 'openai' | 'gemini' | 'anthropic' }, maxOutputTokens: number, input: number, output: number) {
  const appended: NewEvent[] = [];
  const window = { contextWindow: opts.window, serverContext: opts.serverContext, learnFromCut: () => false };
  const session = { append: (e: NewEvent) => (appended.push(e), { ...e, seq: appended.length }), log: { since: () => [] } };
  const cuts = new CutAnswers({ session: session as never, window: window as never, info: () => ({ provider: opts.provider }) as never });
  const response: LlmResponse = { text: 'so far', toolCalls: [], stopReason: 'max_tokens', usage: { input, output, cacheRead: 0, cacheWrite: 0, costUsd: 0 } };
  const cut = cuts.classify({ maxOutputTokens } as LlmRequest, response);
  if (cut) cuts.record(cut);
  return appended.find((e): e is Omit<AnswerCutEvent, 'seq' | 'ts'> => e.kind === 'answer_cut');
}

describe('an answer cut at exactly the context', () => {
  it.each(['gemini', 'anthropic'] as const)('%s: prompt + answer == the window is logged as a full context; one token less as the output budget', (provider) => {
    const at = logCut({ window: 8192, provider }, 4096, 6000, 2192);
    expect(at).toMatchObject({ kind: 'answer_cut', reason: 'context' });
    expect(at!.message).toContain('prompt and answer filled the 8,192-token context window (6,000 prompt + 2,192 answer tokens)');
    const below = logCut({ window: 8192, provider }, 4096, 6000, 2191);
    expect(below).toMatchObject({ kind: 'answer_cut', reason: 'max_tokens' });
    expect(below!.message).toContain('the answer reached its max_tokens limit of 4,096');
  });

  it("llama.cpp's n_ctx (the server's context, skein's window larger): reaching it exactly before the budget is a full context", () => {
    const at = logCut({ window: 32_768, serverContext: 2048, provider: 'openai' }, 1536, 1800, 248);
    expect(at).toMatchObject({ kind: 'answer_cut', reason: 'context' });
    expect(at!.message).toContain('prompt and answer filled the');
  });

  it('llama.cpp: the whole budget written as the context filled (both at once) is the output budget, named as such', () => {
    const both = logCut({ window: 2048, serverContext: 2048, provider: 'openai' }, 248, 1800, 248);
    expect(both).toMatchObject({ kind: 'answer_cut', reason: 'max_tokens' });
    expect(both!.message).toContain('the answer reached its max_tokens limit of 248 (1,800 prompt + 248 answer tokens, in a 2,048-token window)');
  });
});
