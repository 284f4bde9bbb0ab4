// The plan (update_plan) and changed project instructions survive every fold:
// the ledger carries them, the summary message shows them, an earlier
// summary's plan is carried into the next one, and a later plan wins.
import { describe, expect, it } from 'vitest';
import { runPipeline } from '../../server/compaction/pipeline.js';
import { defaultStrategies, deterministicFallback, summarize } from '../../server/compaction/strategies/index.js';
import { deriveView, isSummaryMessage } from '../../server/compaction/view.js';
import { parsePlan, renderPlan } from '../../shared/plan.js';
import { INSTRUCTIONS_NOTE_OPEN, type SkeinEvent } from '../../shared/protocol.js';
import { context, summariser } from '../helpers/compaction.js';
import { LogBuilder } from '../helpers/events.js';

function planCall(log: LogBuilder, id: string, steps: [string, string][]) {
  log.agent('', false);
  const input = { steps: steps.map(([step, status]) => ({ step, status })) };
  log.add({ kind: 'tool_call', callId: id, name: 'update_plan', input });
  log.add({ kind: 'tool_result', callId: id, name: 'update_plan', output: 'plan updated', isError: false, durationMs: 1 });
}

function session(): LogBuilder {
  const log = new LogBuilder();
  log.user('the task: fix the parser');
  planCall(log, 'p1', [['read the parser', 'in_progress'], ['fix it', 'pending']]);
  log.add({ kind: 'instructions', phase: 'changed', files: [{ path: 'AGENTS.md', chars: 20, sha256: 'x' }], text: `${INSTRUCTIONS_NOTE_OPEN}Use tabs. marker-instr</skein-instructions>` });
  for (let i = 0; i < 8; i++) {
    log.user(`step ${i}`);
    log.tools([`c${i}`], true, `output ${i} `.repeat(60));
    log.agent(`done ${i}`);
  }
  planCall(log, 'p2', [['read the parser', 'done'], ['fix it', 'in_progress'], ['run the tests', 'pending']]);
  // An invalid plan (two in progress) was refused by the tool: it must not replace the plan.
  log.agent('', false);
  log.add({ kind: 'tool_call', callId: 'bad', name: 'update_plan', input: { steps: [{ step: 'a', status: 'in_progress' }, { step: 'b', status: 'in_progress' }] } });
  log.add({ kind: 'tool_result', callId: 'bad', name: 'update_plan', output: 'update_plan refused', isError: true, durationMs: 1 });
  for (let i = 8; i < 14; i++) {
    log.user(`step ${i}`);
    log.tools([`c${i}`], true, `output ${i} `.repeat(60));
    log.agent(`done ${i}`);
  }
  return log;
}

const CURRENT = '[x] read the parser\n[>] fix it\n[ ] run the tests';

function summaryOf(events: SkeinEvent[]): string {
  return deriveView(events).find(isSummaryMessage)!.content;
}

describe('the plan after a fold', () => {
  const strategies = {
    summarize: () => [summarize()],
    'deterministic fallback': () => [deterministicFallback()],
    'summarize failing, then the fallback': () => defaultStrategies(),
  };
  for (const [name, make] of Object.entries(strategies)) {
    it(`${name}: the summary message carries the latest valid plan and the changed instructions`, async () => {
      const log = session();
      const failing = name.includes('failing') ? { summariser: summariser(new Error('summariser down')) } : {};
      const result = await runPipeline(make(), deriveView(log.events), context({ targetTokens: 1200, force: true, ...failing }));
      expect(result.coversSeq, 'the fold must cover the plan calls').toBeDefined();
      expect(result.ledger!.plan?.steps.map((s) => s.status)).toEqual(['done', 'in_progress', 'pending']);
      log.add({ kind: 'compaction', phase: 'finished', trigger: 'manual', ...result });
      const summary = summaryOf(log.events);
      expect(summary).toContain('### Current plan');
      expect(summary).toContain(CURRENT);
      expect(summary).toContain('marker-instr');
      // The plan is not listed again among the ledger's commands.
      expect(result.ledger!.commands.filter((c) => c.command.includes('update_plan'))).toEqual([]);
    });
  }

  it('a second fold carries the plan of the first summary forward', async () => {
    const log = session();
    const first = await runPipeline([deterministicFallback()], deriveView(log.events), context({ targetTokens: 1200, force: true }));
    log.add({ kind: 'compaction', phase: 'finished', trigger: 'manual', ...first });
    for (let i = 20; i < 30; i++) {
      log.user(`later step ${i}`);
      log.tools([`d${i}`], true, `more ${i} `.repeat(60));
      log.agent(`done ${i}`);
    }
    const second = await runPipeline([deterministicFallback()], deriveView(log.events), context({ targetTokens: 1200, force: true }));
    expect(second.coversSeq![0]).toBeLessThanOrEqual(first.coversSeq![0]);
    log.add({ kind: 'compaction', phase: 'finished', trigger: 'manual', ...second });
    const summary = summaryOf(log.events);
    expect(summary).toContain(CURRENT);
    expect(summary).toContain('marker-instr');
  });
});

describe('plan validation', () => {
  it('accepts a plan with at most one step in progress, refuses anything else with the reason', () => {
    const ok = parsePlan({ steps: [{ step: ' a ', status: 'done' }, { step: 'b', status: 'in_progress' }], explanation: 'why' });
    expect(ok).toEqual({ ok: true, plan: { steps: [{ step: 'a', status: 'done' }, { step: 'b', status: 'in_progress' }], explanation: 'why' } });
    expect(renderPlan(ok.ok ? ok.plan : { steps: [] })).toBe(`why\n${'[x] a\n[>] b'}`);
    expect(parsePlan({ steps: [{ step: 'a', status: 'in_progress' }, { step: 'b', status: 'in_progress' }] })).toEqual({ ok: false, error: 'at most one step can be in_progress (got 2)' });
    expect(parsePlan({ steps: [{ step: 'a', status: 'started' }] })).toEqual({ ok: false, error: 'steps[0].status must be one of pending, in_progress, done' });
    expect(parsePlan({ steps: 'a, b' })).toEqual({ ok: false, error: '"steps" must be an array of {step, status}' });
    expect(parsePlan({ steps: [{ step: '', status: 'done' }] })).toEqual({ ok: false, error: 'steps[0].step must be a non-empty string' });
  });
});

describe('cleared search results say what was searched', () => {
  it('the placeholder names the pattern, path and options', async () => {
    const log = new LogBuilder();
    log.user('find the parser');
    for (let i = 0; i < 5; i++) {
      log.agent('', false);
      log.add({ kind: 'tool_call', callId: `g${i}`, name: 'grep', input: { pattern: `parse\\w+${i}`, path: 'src', glob: '*.ts', output_mode: 'files' } });
      log.add({ kind: 'tool_result', callId: `g${i}`, name: 'grep', output: 'src/parser.ts\n'.repeat(60), isError: false, durationMs: 1 });
    }
    log.agent('found it');
    const result = await runPipeline(defaultStrategies(1), deriveView(log.events), context({ targetTokens: 10, force: true, summariser: summariser(new Error('no')) }));
    expect(result.strategies[0]).toBe('clear_tool_results');
    log.add({ kind: 'compaction', phase: 'finished', trigger: 'manual', ...result, coversSeq: undefined, summary: result.summary });
    const placeholder = deriveView(log.events).find((m) => m.role === 'tool')!.content;
    expect(placeholder).toMatch(/^\[tool result cleared to save context \(event \d+\): grep \/parse\\w\+0\/ in src \(glob \*\.ts, files mode\) returned 840 characters/);
  });
});
