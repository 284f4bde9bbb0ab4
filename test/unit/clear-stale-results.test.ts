// clear_stale_results: old tool results cleared before any threshold, in one
// batch, once the batch pays back the prompt-cache rewrite it causes.
import { describe, expect, it } from 'vitest';
import { runPipeline } from '../../server/compaction/pipeline.js';
import { clearStaleResults, MIN_BATCH_TOKENS, PAYBACK_REQUESTS, staleBatch, worthClearing } from '../../server/compaction/strategies/clear-stale-results.js';
import { defaultStrategies } from '../../server/compaction/strategies/index.js';
import { tokensOfMessages } from '../../server/compaction/plan.js';
import { deriveView } from '../../server/compaction/view.js';
import { LogBuilder } from '../helpers/events.js';
import { context, summariser } from '../helpers/compaction.js';

/** One user message and one tool group per output size (tokens, about: the line is 4 tokens). */
function session(sizes: number[]): LogBuilder {
  const log = new LogBuilder();
  log.user('the task: make the build green');
  sizes.forEach((size, i) => {
    log.user(`step ${i}`);
    log.tools([`c${i}`], true, `line ${i} of output\n`.repeat(Math.ceil(size / 6)), () => `cat src/module${i}.ts`);
    log.agent(`finished step ${i}`);
  });
  return log;
}

describe('clear_stale_results', () => {
  it('is worth it when the batch, read PAYBACK_REQUESTS more times, costs more than rewriting what follows it', () => {
    expect(PAYBACK_REQUESTS).toBe(10);
    // cleared x 0.1 x 10 against rewritten x (1.25 - 0.1)
    expect(worthClearing({ cleared: 2310, rewritten: 2000, requestsToFold: Infinity })).toBe(true);
    expect(worthClearing({ cleared: 2290, rewritten: 2000, requestsToFold: Infinity })).toBe(false);
    // A small batch is not worth a compaction, however little it rewrites.
    expect(worthClearing({ cleared: MIN_BATCH_TOKENS - 1, rewritten: 0, requestsToFold: Infinity })).toBe(false);
    expect(worthClearing(undefined)).toBe(false);
  });

  it('clears every result older than the last 3 tool groups in one batch, below any target, without a summary', async () => {
    // Four large results, then three small steps: the four are stale and outweigh what follows them.
    const log = session([1500, 1500, 1500, 1500, 50, 50, 50]);
    const view = deriveView(log.events);
    const batch = staleBatch(view, 3)!;
    expect(batch.cleared).toBeGreaterThan(4 * 1500);
    expect(worthClearing(batch)).toBe(true);
    const strategy = clearStaleResults(3);
    expect(strategy.due!(view, Infinity)).toBe(true);
    const noLlm = summariser(new Error('must not be called'));
    // The default pipeline, far under its target: only the stale results' own rule runs.
    const result = await runPipeline(defaultStrategies(3), view, context({ summariser: noLlm, targetTokens: 1_000_000, trigger: 'strategy' }));
    expect(result.strategies).toEqual(['clear_stale_results']);
    expect(noLlm.calls).toHaveLength(0);
    expect(result.summary).toMatch(/^Cleared 4 old tool results/);
    log.add({ kind: 'compaction', phase: 'finished', trigger: 'strategy', ...result });
    const after = deriveView(log.events);
    const tools = after.filter((m) => m.role === 'tool');
    expect(tools).toHaveLength(7);
    expect(tools.slice(0, 4).every((m) => m.content.startsWith(`[tool result cleared to save context (event ${m.seq}): bash {"command":"cat src/module`))).toBe(true);
    expect(tools.slice(4).every((m) => m.content.startsWith('line '))).toBe(true);
    // Nothing left to clear: not due again.
    expect(strategy.due!(after, Infinity)).toBe(false);
  });

  it('pays back only until the next fold: near the threshold a batch is not worth its rewrite', () => {
    // Four stale results before three as large: worth it only over about 9 requests.
    const view = deriveView(session([1500, 1500, 1500, 1500, 1500, 1500, 1500]).events);
    const total = staleBatch(view, 3, Infinity)!;
    expect(total.requestsToFold).toBe(Infinity);
    expect(worthClearing(total)).toBe(true);
    // The view grows by about 750 tokens an answer: 2,000 tokens of room is under 3 requests, too few to pay back.
    const near = staleBatch(view, 3, tokensOfMessages(view) + 2000)!;
    expect(near.requestsToFold).toBeGreaterThan(1);
    expect(near.requestsToFold).toBeLessThan(4);
    expect(worthClearing(near)).toBe(false);
    expect(clearStaleResults(3).due!(view, tokensOfMessages(view) + 2000)).toBe(false);
    // At a token threshold clear_tool_results does this work: the stale strategy runs only on its own trigger.
    expect(clearStaleResults(3).shouldRun({ messages: view, tokens: 0, strategies: [] }, context({ trigger: 'threshold' }))).toBe(false);
  });

  it('waits while the rewrite would cost more than the reads it saves', () => {
    // One old large result before three large recent ones: clearing it would rewrite them all.
    const view = deriveView(session([2500, 3000, 3000, 3000]).events);
    const batch = staleBatch(view, 3)!;
    expect(batch.cleared).toBeGreaterThan(MIN_BATCH_TOKENS);
    expect(batch.rewritten).toBeGreaterThan(9000);
    expect(worthClearing(batch)).toBe(false);
    expect(clearStaleResults(3).due!(view, Infinity)).toBe(false);
  });

  it('leaves old results under 2,000 tokens in all, and never touches the last 3 tool groups', () => {
    expect(clearStaleResults(3).due!(deriveView(session([300, 300, 300, 10, 10, 10]).events), Infinity)).toBe(false);
    // Huge recent results are not stale, whatever they cost.
    expect(staleBatch(deriveView(session([10, 5000, 5000, 5000]).events), 3)).toBeUndefined();
  });

  it('never clears the latest results, which the model has not read yet, even when told to keep none', () => {
    const view = deriveView(session([10, 10, 5000]).events);
    expect(clearStaleResults(0).due!(view, Infinity)).toBe(false);
    expect(clearStaleResults(0).due!(deriveView(session([5000, 10]).events), Infinity)).toBe(true);
  });

  it('is in the default pipeline unless turned off', () => {
    expect(defaultStrategies().map((s) => s.name)[0]).toBe('clear_stale_results');
    expect(defaultStrategies(3, { clearStale: false }).map((s) => s.name)).not.toContain('clear_stale_results');
  });
});
