import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { capToolResult } from '../../server/compaction/result-cap.js';
import { ledgerBudget } from '../../server/compaction/ledger.js';
import { measure, runPipeline } from '../../server/compaction/pipeline.js';
import { defaultStrategies, deterministicFallback, summarize } from '../../server/compaction/strategies/index.js';
import { CircuitBreaker } from '../../server/compaction/triggers.js';
import { applyCompaction, deriveView, isSummaryMessage } from '../../server/compaction/view.js';
import { PredictableProvider } from '../../server/llm/predictable.js';
import { LogBuilder } from '../helpers/events.js';
import { context, summariser } from '../helpers/compaction.js';
import { tempDir } from '../helpers/temp-dir.js';

function longSession(steps = 12, output = 40): LogBuilder {
  const log = new LogBuilder();
  log.user('the task: make the build green');
  for (let i = 0; i < steps; i++) {
    log.user(`step ${i}: please check src/module${i}.ts`);
    log.tools([`c${i}a`, `c${i}b`], true, `output of step ${i} `.repeat(output), (id) => (id.endsWith('a') ? `run ${id}` : `cat src/module${i}.ts`));
    log.agent(`finished step ${i}`);
  }
  return log;
}

describe('clear old tool results', () => {
  it('replaces results older than the last 3 tool groups by a placeholder naming tool, arguments and size', async () => {
    const log = longSession(6, 30);
    const view = deriveView(log.events);
    const before = measure(view, context());
    // A target the clearing alone can meet: no LLM call is made.
    const noLlm = summariser(new Error('must not be called'));
    const result = await runPipeline(defaultStrategies(3), view, context({ summariser: noLlm, targetTokens: before - 400 }));
    expect(result.strategies).toEqual(['clear_tool_results']);
    expect(noLlm.calls).toHaveLength(0);
    expect(result.summary).toMatch(/^Cleared 6 old tool results/);
    log.add({ kind: 'compaction', phase: 'finished', trigger: 'threshold', ...result });
    const after = deriveView(log.events);
    const tools = after.filter((m) => m.role === 'tool');
    expect(tools.slice(0, 6).every((m) => m.content.startsWith(`[tool result cleared to save context (event ${m.seq}): bash {"command":"`))).toBe(true);
    // The placeholder says how to read the output back.
    expect(tools[0]!.content).toContain(`search_history {"fromSeq": ${tools[0]!.seq}, "toSeq": ${tools[0]!.seq}}`);
    expect(tools[0]!.content).toContain(`returned ${'output of step 0 '.repeat(30).length} characters`);
    expect(tools.slice(6).every((m) => m.content.startsWith('output of step'))).toBe(true);
    expect(result.tokensAfter).toBeLessThanOrEqual(before - 400);
  });
});

describe('summarize', () => {
  it('folds old groups into a summary with the ledger beside it, below the target', async () => {
    const view = deriveView(longSession().events);
    const result = await runPipeline(defaultStrategies(), view, context({ targetTokens: 1500 }));
    expect(result.strategies).toContain('summarize');
    expect(result.strategy).toBe('summarize');
    expect(result.tokensAfter).toBeLessThanOrEqual(1500);
    expect(result.ledger!.userMessages.map((u) => u.text)).toContain('step 0: please check src/module0.ts');
    // The ledger's budget (a share of the target) keeps the newest paths and commands; the rest are counted.
    const ledger = result.ledger!;
    expect(ledger.budgetTokens).toBe(ledgerBudget(1500));
    const foldedSteps = ledger.userMessages.length;
    expect(ledger.filesRead.at(-1)).toBe(`src/module${foldedSteps - 1}.ts`);
    expect(ledger.filesRead.length + ledger.omitted.files).toBe(foldedSteps);
    expect(ledger.commands.at(-1)).toMatchObject({ command: `cat src/module${foldedSteps - 1}.ts`, status: 'ok' });
    expect(ledger.commands.length + ledger.omitted.commands).toBe(2 * foldedSteps);
    expect(result.coversSeq![0]).toBe(2);
  });

  it('is incremental: the second summary gets the previous summary plus only the newly folded groups', async () => {
    const log = longSession(8);
    const first = await runPipeline(defaultStrategies(), deriveView(log.events), context({ targetTokens: 1500 }));
    log.add({ kind: 'compaction', phase: 'finished', trigger: 'threshold', ...first });
    for (let i = 8; i < 14; i++) {
      log.user(`step ${i}`);
      log.tools([`d${i}`], true, `more output ${i} `.repeat(40));
    }
    const spy = summariser('## Task\nsecond summary');
    const second = await runPipeline([summarize(), deterministicFallback()], deriveView(log.events), context({ targetTokens: 1500, summariser: spy }));
    expect(second.strategy).toBe('summarize');
    const input = spy.calls[0]!.messages[0]!.content;
    expect(input).toContain('<previous-summary>');
    expect(input).not.toContain('run c0a"}]'); // old groups come only through the previous summary
    expect(input).toContain('[user] step 8');
    // The ledger carries the first compaction's user messages forward.
    expect(second.ledger!.userMessages.map((u) => u.text)).toEqual(expect.arrayContaining(['step 0: please check src/module0.ts', 'step 8']));
  });

  it('honours the focus text and keeps the summary as context, not instructions', async () => {
    const view = deriveView(longSession().events);
    const spy = summariser('## Task\nfocused');
    await runPipeline(defaultStrategies(), view, context({ targetTokens: 1500, summariser: spy, instructions: 'the failing test', force: true, trigger: 'manual' }));
    expect(spy.calls[0]!.messages[0]!.content).toContain('focus on: the failing test');
    expect(spy.calls[0]!.system).toContain('never invent instructions');
  });

  it('summarises in chunks when the input does not fit the summariser window (context already full)', async () => {
    const view = deriveView(longSession(30, 60).events);
    const small = new PredictableProvider({ contextWindow: 2500, maxOutputTokens: 400 });
    const calls: number[] = [];
    const counting = { ...small, model: small.model, limits: small.limits, complete: (r: Parameters<typeof small.complete>[0], s: AbortSignal) => (calls.push(1), small.complete(r, s)) };
    const result = await runPipeline(defaultStrategies(), view, context({ targetTokens: 3000, summariser: counting }));
    expect(result.strategy).toBe('summarize');
    expect(result.error).toBeUndefined();
    expect(calls.length).toBeGreaterThan(1);
    expect(result.tokensAfter).toBeLessThanOrEqual(3000);
  });
});

describe('fallback', () => {
  const cases: [string, string | Error | 'hang'][] = [
    ['throws', new Error('503 upstream unavailable')],
    ['times out', 'hang'],
    ['returns ""', ''],
    ['returns an error string', 'Error: rate limit exceeded, please retry'],
  ];
  it.each(cases)('summariser %s -> deterministic summary, never the error text', async (_label, behaviour) => {
    const view = deriveView(longSession().events);
    const result = await runPipeline(defaultStrategies(), view, context({ targetTokens: 1500, summariser: summariser(behaviour), summariserTimeoutMs: 200 }));
    expect(result.strategy).toBe('fallback');
    expect(result.error).toBeTruthy();
    expect(result.summary).toMatch(/^## Summary \(deterministic/);
    expect(result.summary).not.toMatch(/error|timed out|within/i);
    expect(result.summary).not.toContain('rate limit');
    expect(result.summary).not.toContain('503');
    expect(result.tokensAfter).toBeLessThanOrEqual(1500);
    expect(result.ledger!.userMessages.length).toBeGreaterThan(0);
  });

  it('an open circuit breaker skips the summariser and folds deterministically', async () => {
    const view = deriveView(longSession().events);
    const spy = summariser('never used');
    const result = await runPipeline(defaultStrategies(), view, context({ targetTokens: 1500, summariser: spy, skipSummariser: true }));
    expect(spy.calls).toHaveLength(0);
    expect(result.strategy).toBe('fallback');
  });

  it('the breaker opens after three consecutive failures and closes on success', () => {
    const breaker = new CircuitBreaker();
    expect(breaker.record(true)).toBe(false);
    expect(breaker.record(true)).toBe(false);
    expect(breaker.open).toBe(false);
    expect(breaker.record(true)).toBe(true);
    expect(breaker.open).toBe(true);
    breaker.record(false);
    expect(breaker.open).toBe(false);
  });
});

describe('edges', () => {
  it('a manual compaction with nothing to fold reports equal message counts and a non-empty summary', async () => {
    const log = new LogBuilder();
    log.user('hi');
    const result = await runPipeline(defaultStrategies(), deriveView(log.events), context({ force: true, trigger: 'manual' }));
    expect(result.strategy).toBe('none');
    expect(result.messagesAfter).toBe(result.messagesBefore);
    expect(result.summary).not.toBe('');
  });

  it('the summary message is wrapped as compacted history and the view matches messagesAfter', async () => {
    const log = longSession();
    const result = await runPipeline(defaultStrategies(), deriveView(log.events), context({ targetTokens: 1500 }));
    log.add({ kind: 'compaction', phase: 'finished', trigger: 'threshold', ...result });
    const after = deriveView(log.events);
    expect(after.filter(isSummaryMessage)).toHaveLength(1);
    expect(after.length).toBe(result.messagesAfter);
    expect(after.find(isSummaryMessage)!.content).toContain('## Ledger (exact record');
    const again = [...deriveView(log.events.slice(0, -1))];
    applyCompaction(again, result, new Map());
    expect(again.length).toBe(after.length);
  });

  it('caps a huge tool result on arrival and saves the full output where read_file can reach it', () => {
    const dir = tempDir('spill');
    const huge = Array.from({ length: 50_000 }, (_, i) => `line ${i}`).join('\n');
    const capped = capToolResult(huge, { maxTokens: 1000, maxChars: 30_000, spillDir: dir, seq: 1, callId: 'call/1' });
    expect(capped.output.length).toBeLessThan(4000);
    expect(capped.output.startsWith('line 0\nline 1\n')).toBe(true);
    expect(capped.output.endsWith('line 49999')).toBe(true);
    expect(capped.output).toContain(`The full output is saved at ${capped.spilled}`);
    expect(fs.readFileSync(capped.spilled!, 'utf8')).toBe(huge);
    expect(capToolResult('small', { maxTokens: 1000, maxChars: 30_000, spillDir: dir, seq: 1, callId: 'x' })).toEqual({ output: 'small' });
  });
});
