// provider_compact in the pipeline, with stand-in compactors (the real SDK
// paths are in test/integration/provider-compact.test.ts): the fold starts at
// the conversation's start, the provider's output rides on the summary
// message and the event, skein's ledger is attached, and a provider that
// cannot leaves the view to skein's own strategies.
import { describe, expect, it } from 'vitest';
import type { ProviderCompaction } from '../../shared/protocol.js';
import { runPipeline } from '../../server/compaction/pipeline.js';
import { defaultStrategies } from '../../server/compaction/strategies/index.js';
import { deriveView } from '../../server/compaction/view.js';
import { ProviderError, type ProviderCompactor } from '../../server/llm/types.js';
import { LogBuilder } from '../helpers/events.js';
import { context } from '../helpers/compaction.js';

function session(steps = 10): LogBuilder {
  const log = new LogBuilder();
  log.user('the task: make the build green');
  for (let i = 0; i < steps; i++) {
    log.user(`step ${i}: please check src/module${i}.ts`);
    log.tools([`c${i}`], true, `output of step ${i} `.repeat(8), () => `cat src/module${i}.ts`);
    log.agent(`finished step ${i}`);
  }
  return log;
}

const compaction: ProviderCompaction = { provider: 'anthropic', model: 'claude-sonnet-5-5', output: [{ type: 'compaction', content: 'the provider summary', signature: 'sig' }] };

function compactor(answer: 'ok' | Error): ProviderCompactor & { calls: number; spans: string[][] } {
  const c = {
    calls: 0,
    spans: [] as string[][],
    async compactHistory(request: Parameters<ProviderCompactor['compactHistory']>[0]) {
      c.calls++;
      c.spans.push(request.messages.map((m) => m.content));
      if (answer instanceof Error) throw answer;
      return { compaction, text: 'the provider summary', usage: { input: 100, cacheRead: 0, cacheWrite: 0, output: 20, costUsd: 0 } };
    },
  };
  return c;
}

describe('provider_compact', () => {
  it('folds from the start (the first user message too), carries the provider output, attaches the ledger', async () => {
    const log = session();
    const c = compactor('ok');
    // Below the whole view (about 950 tokens) and above what the provider's fold leaves with the ledger (its names included), so nothing else runs.
    const result = await runPipeline(defaultStrategies(3, { provider: true }), deriveView(log.events), context({ targetTokens: 800, compactor: c }));
    expect(result.strategies).toEqual(['provider_compact']);
    expect(c.spans[0]![0]).toBe('the task: make the build green');
    expect(result).toMatchObject({ strategy: 'provider_compact', summary: 'the provider summary', provider: compaction, coversSeq: [1, expect.any(Number)] });
    expect(result.ledger!.userMessages[0]!.text).toBe('the task: make the build green');
    expect(result.summariserUsage?.output).toBe(20);
    log.add({ kind: 'compaction', phase: 'finished', trigger: 'threshold', ...result });
    const view = deriveView(log.events);
    expect(view[0]!.compacted).toEqual(compaction);
    expect(view[0]!.content).toContain('the provider summary');
    expect(view.slice(1).every((m) => !m.compacted)).toBe(true);
  });

  it('keeps at least the newest group, even when no recent group fits the target: a view of only the provider block would go out as an assistant prefill', async () => {
    const log = session();
    const c = compactor('ok');
    // A target so small that no recent group fits beside the fixed part.
    const result = await runPipeline(defaultStrategies(3, { provider: true }), deriveView(log.events), context({ targetTokens: 10, compactor: c }));
    expect(result.strategies[0]).toBe('provider_compact');
    log.add({ kind: 'compaction', phase: 'finished', trigger: 'threshold', ...result });
    const view = deriveView(log.events);
    expect(view[0]!.compacted).toEqual(compaction);
    // The newest group is still in the view, after the block (the next user message follows it).
    expect(view.length).toBeGreaterThan(1);
    expect(view.at(-1)!.content).toBe('finished step 9');
  });

  it('is skipped for a provider without a compaction API, and off by default', async () => {
    const view = deriveView(session().events);
    const without = await runPipeline(defaultStrategies(3, { provider: true }), view, context({ targetTokens: 700 }));
    expect(without.strategies).not.toContain('provider_compact');
    const c = compactor('ok');
    const off = await runPipeline(defaultStrategies(3), view, context({ targetTokens: 700, compactor: c }));
    expect(off.strategies).toContain('summarize');
    expect(c.calls).toBe(0);
  });

  it('a failing provider leaves the view to skein: summarize folds, the reason is reported', async () => {
    const c = compactor(new ProviderError('invalid_request_error: compaction is not supported', 400, false));
    const result = await runPipeline(defaultStrategies(3, { provider: true }), deriveView(session().events), context({ targetTokens: 700, compactor: c }));
    expect(c.calls).toBe(1);
    expect(result.strategies[0]).toBe('summarize');
    expect(result.provider).toBeUndefined();
    expect(result.providerError).toMatch(/not supported/);
  });

  it('an asked-for compaction the provider made is not summarised again', async () => {
    const c = compactor('ok');
    const result = await runPipeline(defaultStrategies(3, { provider: true }), deriveView(session(4).events), context({ targetTokens: 100_000, force: true, compactor: c }));
    expect(result.strategies.filter((s) => s !== 'clear_tool_results')).toEqual(['provider_compact']);
  });
});
