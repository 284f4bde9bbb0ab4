// The ledger a fold attaches is held to a small share of the compaction
// target: every later request reads it, and under strict recall the names it
// lists are hints, not the lines a later step needs (test/bench/README.md,
// "What was tried").
import { describe, expect, it } from 'vitest';
import { ledgerBudget, renderLedger } from '../../server/compaction/ledger.js';
import { runPipeline } from '../../server/compaction/pipeline.js';
import { defaultStrategies } from '../../server/compaction/strategies/index.js';
import { deriveView } from '../../server/compaction/view.js';
import { tokensOf } from '../../server/llm/tokens.js';
import { context, summariser } from '../helpers/compaction.js';
import { LogBuilder } from '../helpers/events.js';

/** A long session whose folded span has far more paths, commands, errors and names than any ledger budget holds. */
function richSession(steps: number): LogBuilder {
  const log = new LogBuilder();
  log.user('the task: make the checks pass');
  log.user('please go on until every check passes');
  for (let i = 0; i < steps; i++) {
    if (i === steps / 2) log.user('also keep the docs building');
    const output = `exit code: 1\nTraceback (most recent call last):\n  File "pkg/mod_${i}/file_${i}.py", line ${i + 10}\nValueError: bad value in check_value_${i} of RunnerConfig${i}\n`;
    log.tools([`c${i}`], true, output.repeat(4), () => `python tools/run_step_${i}.py --config conf/setting_${i}.yaml && cat pkg/mod_${i}/file_${i}.py`);
  }
  return log;
}

describe('the ledger beside a summary', () => {
  it('takes at most 15% of the compaction target, still the newest of the span, every user message kept', async () => {
    const target = 12_000;
    const result = await runPipeline(defaultStrategies(), deriveView(richSession(150).events), context({ contextWindow: 32_000, targetTokens: target, summariser: summariser('## Task\nthe summary') }));
    expect(result.strategy).toBe('summarize');
    const ledger = result.ledger!;
    expect(ledger.budgetTokens).toBe(ledgerBudget(target));
    expect(tokensOf(renderLedger(ledger))).toBeLessThanOrEqual(0.15 * target);
    // Held to its share, it still spends it: the newest folded command and names are there, the rest counted.
    const lastFolded = Math.max(...ledger.commands.map((c) => Number(/run_step_(\d+)/.exec(c.command)?.[1] ?? -1)));
    expect(lastFolded).toBeGreaterThan(100);
    expect(ledger.omitted.commands).toBeGreaterThan(0);
    expect(tokensOf(renderLedger(ledger))).toBeGreaterThan(0.1 * target);
    // User messages are never held to the budget: the folded one is in the ledger whole (the one being answered stays in the view).
    expect(ledger.userMessages.map((u) => u.text)).toEqual(['please go on until every check passes']);
  });
});
