import { describe, expect, it } from 'vitest';
import { compact, planFold } from '../../server/compaction/compactor.js';
import { deriveView, isSummaryMessage, plain } from '../../server/compaction/view.js';
import { PredictableProvider } from '../../server/llm/predictable.js';
import { requestTokens } from '../../server/llm/tokens.js';
import type { LlmRequest, LlmResponse, Provider } from '../../server/llm/types.js';
import { LogBuilder } from '../helpers/events.js';

const base = { system: 'You are a test agent.', tools: [] };

function longSession(): LogBuilder {
  const log = new LogBuilder();
  log.user('the task: make the build green');
  for (let i = 0; i < 12; i++) {
    log.user(`step ${i}`);
    log.tools([`c${i}a`, `c${i}b`], true, `output of step ${i} `.repeat(40));
    log.agent(`finished step ${i}`);
  }
  return log;
}

describe('planFold', () => {
  it('folds whole groups only and never the first user message', () => {
    const view = deriveView(longSession().events);
    for (const budget of [0, 100, 500, 2000, 100_000]) {
      const count = planFold(view, budget);
      const boundary = 1 + count; // first foldable index is 1
      const kept = view.slice(boundary);
      // No kept tool result whose call was folded.
      const keptCalls = new Set(kept.flatMap((m) => m.toolCalls ?? []).map((c) => c.id));
      for (const m of kept) if (m.role === 'tool') expect(keptCalls.has(m.toolCallId!)).toBe(true);
      expect(view[0]!.content).toBe('the task: make the build green');
    }
  });
});

describe('compact', () => {
  it('shrinks the view, keeps the first message, and reports numbers', async () => {
    const view = deriveView(longSession().events);
    const summariser = new PredictableProvider({ contextWindow: 100_000, maxOutputTokens: 1024 });
    const outcome = await compact({ messages: view, base, summariser, contextWindow: 8000, targetRatio: 0.5, trigger: 'manual', signal: new AbortController().signal });
    expect(outcome.strategy).toBe('summarize');
    expect(outcome.tokensBefore).toBe(requestTokens({ ...base, messages: plain(view) }));
    expect(outcome.tokensAfter).toBeLessThan(outcome.tokensBefore);
    expect(outcome.tokensAfter).toBeLessThanOrEqual(0.5 * 8000);
    expect(outcome.messagesAfter).toBeLessThan(outcome.messagesBefore);
    expect(outcome.summary).toContain('step 0');
    expect(outcome.coversSeq![0]).toBe(2);
  });

  it('falls back to the deterministic ledger when the summariser fails, and never uses an error as summary', async () => {
    const view = deriveView(longSession().events);
    const failing: Provider = {
      model: 'broken',
      limits: { contextWindow: 100_000, maxOutputTokens: 1024 },
      complete: async (_r: LlmRequest): Promise<LlmResponse> => {
        throw new Error('503 upstream unavailable');
      },
    };
    const outcome = await compact({ messages: view, base, summariser: failing, contextWindow: 8000, targetRatio: 0.5, trigger: 'threshold', signal: new AbortController().signal });
    expect(outcome.strategy).toBe('fallback');
    expect(outcome.error).toContain('503');
    expect(outcome.summary).not.toContain('503');
    expect(outcome.summary).toContain('step 0');
    expect(outcome.summary).toContain('run c1a');
    expect(outcome.tokensAfter).toBeLessThan(outcome.tokensBefore);
  });

  it('with nothing to fold it reports equal message counts', async () => {
    const log = new LogBuilder();
    log.user('hi');
    const summariser = new PredictableProvider({ contextWindow: 8000, maxOutputTokens: 1024 });
    const outcome = await compact({ messages: deriveView(log.events), base, summariser, contextWindow: 8000, targetRatio: 0.5, trigger: 'manual', signal: new AbortController().signal });
    expect(outcome.strategy).toBe('none');
    expect(outcome.messagesAfter).toBe(outcome.messagesBefore);
    expect(outcome.summary).not.toBe('');
  });

  it('the summary message wraps the text as compacted history', async () => {
    const log = longSession();
    const summariser = new PredictableProvider({ contextWindow: 100_000, maxOutputTokens: 1024 });
    const outcome = await compact({ messages: deriveView(log.events), base, summariser, contextWindow: 8000, targetRatio: 0.5, trigger: 'manual', signal: new AbortController().signal });
    log.add({ kind: 'compaction', phase: 'finished', trigger: 'manual', ...outcome });
    const after = deriveView(log.events);
    expect(after.filter(isSummaryMessage)).toHaveLength(1);
    expect(after.length).toBe(outcome.messagesAfter);
  });
});
