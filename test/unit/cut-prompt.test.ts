// Issue 22, a server that silently cuts the prompt (Ollama at num_ctx) and
// counts with a tokenizer that is not skein's. Reproduced by the mismatch
// bench's 4k rows (django-11138: the first message takes most of 4,000
// tokens): with the window known and each turn compacted, no plateau forms;
// the count of a cut prompt stays under num_ctx; and the estimate learned its
// ratio from the cut count itself, so no check could fire. Here, piece by
// piece: a request counted lower than its own start alone was cut (whatever
// the tokenizer); a request that counted as low as the tokenizer was ever
// seen to count cannot fit the server's context was cut; an answer whose
// request may have passed num_ctx teaches the estimate nothing; the window in
// use, already num_ctx, is not shrunk by a cut; skein never sends a request
// estimated past num_ctx to a server known to cut (it says why instead); and
// the lean ledger no longer grows by the pointers of earlier folds.
import { describe, expect, it } from 'vitest';
import type { SkeinEvent } from '../../shared/protocol.js';
import { OverflowRecovery, WouldOverflowError, type RecoveryHost } from '../../server/agent/overflow-recovery.js';
import { headOf } from '../../server/agent/request-head.js';
import { outputFloor, SessionWindow, windowMargin, type SentEstimate } from '../../server/agent/window.js';
import { buildLedger, leanerLedger } from '../../server/compaction/ledger.js';
import { ContextEstimator } from '../../server/compaction/estimator.js';
import type { ModelInfo } from '../../server/llm/models.js';
import { requestTokens, tokensOf } from '../../server/llm/tokens.js';
import { plain } from '../../server/compaction/view.js';
import { ContextOverflowError, type LlmRequest, type Provider } from '../../server/llm/types.js';
import type { Session } from '../../server/agent/session.js';
import { KindIndex } from '../../server/store/kind-index.js';

const NUM_CTX = 4000;
const usage = (input: number) => ({ input, cacheRead: 0, cacheWrite: 0 });

/** A session window against an Ollama-like server (num_ctx said by /api/show, cuts what does not fit), or one that says nothing. */
async function windowOf(server: 'ollama' | 'silent' | 'anthropic') {
  const events: SkeinEvent[] = [];
  const session = { id: 's1', log: { all: () => events, kinds: new KindIndex(events) }, append: (e: object) => void events.push({ seq: events.length + 1, ts: '', ...e } as SkeinEvent) } as unknown as Session;
  const provider = {
    model: 'local-model',
    limits: { contextWindow: 128_000, maxOutputTokens: 8192 },
    complete: async () => {
      throw new Error('not called');
    },
    ...(server === 'ollama' && { discoverLimits: async () => ({ contextWindow: NUM_CTX, via: '/api/show', truncates: true }) }),
  } as unknown as Provider;
  const info = { provider: server === 'anthropic' ? 'anthropic' : 'openai', contextWindow: 128_000, maxOutputTokens: 8192, prices: { input: 0, output: 0 } } as unknown as ModelInfo;
  const window = new SessionWindow({ session, provider: () => provider, tableInfo: () => info, apply: () => {}, setting: undefined, cache: undefined });
  await window.settle(new AbortController().signal);
  return { window, events };
}

const request = (first: string, ...rest: string[]): Pick<LlmRequest, 'system' | 'tools' | 'messages'> => ({
  system: 'You are skein.',
  tools: [{ name: 'bash', description: 'runs a command', inputSchema: { type: 'object' } }],
  messages: [first, ...rest].map((content, i) => ({ role: i % 2 ? 'assistant' : 'user', content })) as LlmRequest['messages'],
});

const sent = (r: Pick<LlmRequest, 'system' | 'tools' | 'messages'>, raw: number, lineage: number, lowerRatio = 1.25): SentEstimate => ({ raw, lineage, lowerRatio, head: headOf(r)! });

describe('a cut prompt is seen whatever the tokenizer', () => {
  it('a request counted lower than its own start alone (system prompt, tools, first message) was cut, in another lineage and far below num_ctx', async () => {
    for (const server of ['ollama', 'silent'] as const) {
      const { window } = await windowOf(server);
      const head = request('the task, long');
      window.checkReported(sent(head, 2400, 1), usage(3135));
      // After a compaction (a new lineage, no plateau possible): the start and a summary, counted as what is left after the cut.
      const later = request('the task, long', 'a summary of what was done');
      expect(() => window.checkReported(sent(later, 3200, 2, 0.5), usage(1673))).toThrow(ContextOverflowError);
      try {
        window.checkReported(sent(later, 3200, 3, 0.5), usage(1673));
      } catch (err) {
        expect((err as ContextOverflowError).truncated).toBe(true);
        expect((err as Error).message).toMatch(/counted 1,673 prompt tokens for a request whose start alone .* it had counted at 3,135/);
      }
      // A request with another first message (another session's head) is not held to it; nor is a count of 0 (no usage reported).
      expect(() => window.checkReported(sent(request('another task', 'x'), 3200, 4, 0.5), usage(1673))).not.toThrow();
      expect(() => window.checkReported(sent(later, 3200, 5, 0.5), usage(0))).not.toThrow();
      // Counted at least as high as its start: nothing says it was cut.
      expect(() => window.checkReported(sent(later, 3200, 6, 0.5), usage(3135))).not.toThrow();
    }
  });

  it('a server that refuses instead of cutting (Anthropic) is never taken for one that cuts', async () => {
    const { window } = await windowOf('anthropic');
    const head = request('the task');
    window.checkReported(sent(head, 2400, 1), usage(3135));
    expect(() => window.checkReported(sent(request('the task', 'more'), 3200, 2), usage(1000))).not.toThrow();
  });

  it('a server known to cut at num_ctx: a request that, counted as low as its tokenizer was ever seen to count, passes num_ctx, and was read as less, was cut', async () => {
    const { window } = await windowOf('ollama');
    // 3,300 of our tokens at the lowest ratio seen (1.25): at least 4,125 of the server's, more than its 4,000.
    expect(() => window.checkReported({ raw: 3300, lineage: 7, lowerRatio: 1.25 }, usage(3990))).toThrow(/at least about 4,125 prompt tokens were sent to its 4,000-token context, and it read 3,990/);
    // At a lowest ratio of 1.2 it may fit (3,960): not concluded.
    expect(() => window.checkReported({ raw: 3300, lineage: 8, lowerRatio: 1.2 }, usage(3950))).not.toThrow();
  });

  it('a cut seen while the window in use is already num_ctx does not shrink it, and the timeline says the answer was dropped', async () => {
    const { window, events } = await windowOf('ollama');
    expect(window.contextWindow).toBe(NUM_CTX);
    window.checkReported(sent(request('the task'), 2400, 1), usage(3135));
    let cut: ContextOverflowError | undefined;
    try {
      window.checkReported(sent(request('the task', 'summary'), 3300, 2), usage(3990));
    } catch (err) {
      cut = err as ContextOverflowError;
    }
    expect(cut?.limits.window).toBe(NUM_CTX);
    expect(window.learn(cut!.limits.window!, cut!)).toBe(false);
    expect(window.contextWindow).toBe(NUM_CTX);
    const last = events.at(-1)!;
    expect(last).toMatchObject({ kind: 'limits', contextWindow: NUM_CTX, truncated: true });
    expect((last as { message: string }).message).toMatch(/silently cut the start of the conversation .* dropped the answer to the cut prompt and compacts to fit 4,000 tokens/);
  });

  it('mayHaveCut: only a request estimated past the num_ctx of a server known to cut', async () => {
    const { window } = await windowOf('ollama');
    expect(window.mayHaveCut(4001)).toBe(true);
    expect(window.mayHaveCut(4000)).toBe(false);
    const silent = await windowOf('silent');
    expect(silent.window.mayHaveCut(1_000_000)).toBe(false);
  });
});

describe('the estimate does not learn from an answer that may have been cut', () => {
  it('an untrusted answer leaves the ratios as they were and drops the base of the next estimate', () => {
    const e = new ContextEstimator();
    e.observe(2400, 3135, 50, 10);
    const ratio = e.ratio;
    const lower = e.lowerRatio;
    // The cut count (1,673 for 3,200 of ours) would teach a ratio of 0.52.
    e.observe(3200, 1673, 50, 20, false);
    expect(e.ratio).toBe(ratio);
    expect(e.lowerRatio).toBe(lower);
    // No last real number: the next estimate is our count at the ratio, not the cut count plus what was added.
    const messages = [{ role: 'user' as const, content: 'the task '.repeat(1200), seq: 1 }];
    const base = { system: 'sys', tools: [] };
    expect(e.estimate(messages, base)).toBe(Math.ceil(ratio * requestTokens({ ...base, messages: plain(messages) })));
    expect(e.estimate(messages, base)).toBeGreaterThan(1673);
  });
});

/** A recovery host against a server known to cut at num_ctx (or one that refuses), whose view cannot get below `stuck`. */
function stuckHost(stuck: number, cutsAt: number | undefined) {
  let size = stuck + 600;
  const window = {
    contextWindow: NUM_CTX,
    source: 'provider',
    provenPrompt: 0,
    cutsAt,
    tooLong: (estimate: number) => estimate + outputFloor(NUM_CTX) + windowMargin(NUM_CTX) > NUM_CTX,
    learn: () => false,
    capOutput: () => {},
  } as unknown as SessionWindow;
  const h: RecoveryHost = {
    window,
    model: () => 'local-model',
    enterCompacting: () => {},
    compact: async () => void (size = Math.max(stuck, size - 300)),
    estimate: () => size,
    headEstimate: () => 3000,
  };
  return { h, size: () => size };
}

describe('never sent to be cut', () => {
  it('a request compacting cannot bring under the num_ctx of a server known to cut is not sent: the turn ends with an error whose numbers agree', async () => {
    const { h, size } = stuckHost(4050, NUM_CTX);
    const recovery = new OverflowRecovery(h);
    let err: unknown;
    try {
      recovery.check(size(), 500);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(WouldOverflowError);
    await expect(recovery.recover(err as ContextOverflowError, { input: size(), maxTokens: 500 })).rejects.toThrow(
      /cannot fit local-model's context window of 4,000 tokens.*compacting as hard as skein can still leaves about 4,050 tokens, and the answer needs at least 500 more/,
    );
  });

  it('the same request to a server that refuses goes out once as it is (the server decides), as before', async () => {
    const { h, size } = stuckHost(4050, undefined);
    const recovery = new OverflowRecovery(h);
    try {
      recovery.check(size(), 500);
    } catch (e) {
      expect(await recovery.recover(e as ContextOverflowError, { input: size(), maxTokens: 500 })).toBe('compacted');
    }
    expect(() => recovery.check(size(), 500)).not.toThrow();
  });

  it('to a server known to cut, a request that leaves the answer less than its floor but fits num_ctx goes out (its prompt is not cut)', async () => {
    const { h, size } = stuckHost(3700, NUM_CTX);
    const recovery = new OverflowRecovery(h);
    try {
      recovery.check(size(), 500);
    } catch (e) {
      expect(await recovery.recover(e as ContextOverflowError, { input: size(), maxTokens: 500 })).toBe('compacted');
    }
    expect(() => recovery.check(size(), 500)).not.toThrow();
  });
});

describe('the lean ledger of a small window does not grow by earlier folds', () => {
  it("pointers carried from an earlier lean ledger are held to the users' bound like new ones (the newest kept, the rest counted)", () => {
    const long = (i: number) => `Please provide EXACTLY ONE action in triple backticks (notice ${i}).\n${'Format your response as shown. '.repeat(40)}`;
    let ledger = buildLedger([{ role: 'user', content: long(0), seq: 10 }] as never, 200);
    // Eleven folds, each of a span with one more long user message and the summary of the one before.
    for (let i = 1; i <= 11; i++) {
      const folded = [
        { role: 'user', content: 'x', seq: 100 * i, summaryOf: { summary: 's', ledger, covers: [1, 100 * i] } },
        { role: 'user', content: long(i), seq: 100 * i + 1 },
      ];
      ledger = leanerLedger(buildLedger(folded as never, 440), 220, true);
    }
    // Half the lean budget (110 tokens) for user messages: the newest pointers (about 50 tokens each), not twelve;
    // and past it only the oldest's pointer (the task, when a small window folded the first message).
    const [oldest, ...users] = ledger.userMessages;
    expect(oldest).toMatchObject({ seq: 10, pointer: true });
    expect(users.length).toBeGreaterThanOrEqual(1);
    expect(users.length).toBeLessThanOrEqual(2);
    expect(users.at(-1)?.seq).toBe(1101);
    expect(ledger.omitted.userMessages).toBe(12 - users.length - 1);
    expect(users.reduce((n, u) => n + tokensOf(u.text) + 8, 0)).toBeLessThanOrEqual(110);
  });
});
