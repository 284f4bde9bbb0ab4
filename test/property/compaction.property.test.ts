// Property tests over random conversations (text, tool calls, parallel calls,
// huge results, errors, messages typed while tools run, earlier compactions):
// every strategy alone and the whole pipeline keep the invariants.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SkeinEvent } from '../../shared/protocol.js';
import { measure, runPipeline, type CompactionStrategy } from '../../server/compaction/pipeline.js';
import { answeredMessages, tokensOfMessages } from '../../server/compaction/plan.js';
import { clearToolResults, defaultStrategies, deterministicFallback, summarize } from '../../server/compaction/strategies/index.js';
import { deriveView, plain } from '../../server/compaction/view.js';
import { tokensOf } from '../../server/llm/tokens.js';
import { context, summariser } from '../helpers/compaction.js';
import { LogBuilder } from '../helpers/events.js';
import { checkInvariants } from '../helpers/invariants.js';

type Step =
  | { kind: 'user'; text: string }
  | { kind: 'text'; text: string }
  | { kind: 'tools'; results: { size: number; error: boolean }[]; typedDuring?: string };

const words = fc.array(fc.constantFrom('fix', 'the', 'test', 'src/app.ts', 'npm', 'run', 'build', 'error', 'TypeError:', 'please', 'check', 'README.md', '42', 'ok'), { minLength: 1, maxLength: 40 }).map((w) => w.join(' '));
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 2, arbitrary: words.map((text) => ({ kind: 'user' as const, text })) },
  { weight: 2, arbitrary: words.map((text) => ({ kind: 'text' as const, text })) },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('tools' as const),
      results: fc.array(fc.record({ size: fc.oneof(fc.integer({ min: 5, max: 300 }), fc.integer({ min: 2000, max: 12_000 })), error: fc.boolean() }), { minLength: 1, maxLength: 3 }),
      typedDuring: fc.option(words, { nil: undefined }),
    }),
  },
);
/** Segments of steps; between segments an earlier compaction ran. */
const conversation = fc.record({
  first: words,
  segments: fc.array(fc.array(step, { minLength: 1, maxLength: 25 }), { minLength: 1, maxLength: 3 }),
  targetShare: fc.double({ min: 0.2, max: 0.9, noNaN: true }),
  force: fc.boolean(),
  summariserBehaviour: fc.constantFrom<'ok' | 'throws' | 'empty'>('ok', 'ok', 'throws', 'empty'),
});

let callCounter = 0;
function play(log: LogBuilder, steps: Step[]): void {
  for (const s of steps) {
    if (s.kind === 'user') log.user(s.text);
    else if (s.kind === 'text') log.agent(s.text);
    else {
      const ids = s.results.map(() => `call_${++callCounter}`);
      log.agent('', false);
      ids.forEach((id, i) => log.add({ kind: 'tool_call', callId: id, name: 'bash', input: { command: `cat src/file${i}.ts` } }));
      s.results.forEach((r, i) => {
        if (i === 1 && s.typedDuring) log.user(s.typedDuring);
        const body = 'line of output from the tool\n'.repeat(Math.ceil(r.size / 29)).slice(0, r.size);
        log.add({ kind: 'tool_result', callId: ids[i]!, name: 'bash', output: r.error ? `exit code: 1\nError: failed ${body}` : `exit code: 0\n${body}`, isError: r.error, durationMs: 1 });
      });
    }
  }
}

function summariserFor(behaviour: 'ok' | 'throws' | 'empty') {
  return behaviour === 'throws' ? summariser(new Error('boom')) : behaviour === 'empty' ? summariser('') : context().summariser;
}

/** The floor the view cannot go under: pinned head plus every user message verbatim (never dropped). */
function floor(events: readonly SkeinEvent[]): number {
  const users = events.flatMap((e) => (e.kind === 'user' ? [e.text] : []));
  // 750: the summary's wrapper and ledger headings. The preamble now names the seq range it stands for and
  // the search_history call that reads it back (~25 tokens more than the old one; a random seed overshot 700 by 1).
  // The turn's latest step (its calls and results) is never folded either: the model reads it to go on.
  const view = deriveView(events);
  const step = tokensOfMessages([...answeredMessages(view)].map((i) => view[i]!).filter((m) => !m.fromUser));
  return measure(view.slice(0, 1), context()) + users.reduce((n, u) => n + tokensOf(u) + 4, 0) + 750 + step;
}

async function compactOnce(log: LogBuilder, strategies: CompactionStrategy[], share: number, force: boolean, behaviour: 'ok' | 'throws' | 'empty') {
  const before = JSON.stringify(log.events);
  const view = deriveView(log.events);
  const tokens = measure(view, context());
  const target = Math.floor(tokens * share);
  const result = await runPipeline(strategies, view, context({ targetTokens: target, force, summariser: summariserFor(behaviour), trigger: force ? 'manual' : 'threshold' }));
  // The pipeline never touches the log.
  expect(JSON.stringify(log.events)).toBe(before);
  log.add({ kind: 'compaction', phase: 'finished', trigger: 'manual', ...result });
  const after = deriveView(log.events);
  // What the pipeline planned is exactly what derivation from the log gives.
  expect(after.length).toBe(result.messagesAfter);
  expect(measure(after, context())).toBe(result.tokensAfter);
  expect(checkInvariants(log.events, plain(after))).toEqual([]);
  expect(result.summary.trim()).not.toBe('');
  return { result, target, tokens };
}

const STRATEGY_SETS: [string, () => CompactionStrategy[]][] = [
  ['clear tool results', () => [clearToolResults(3)]],
  ['summarize', () => [summarize()]],
  ['fallback', () => [deterministicFallback()]],
  ['whole pipeline', () => defaultStrategies()],
];

describe.each(STRATEGY_SETS)('%s over random conversations', (name, strategies) => {
  it('keeps the first message, tool groups whole, every user message, and the log', async () => {
    await fc.assert(
      fc.asyncProperty(conversation, async (c) => {
        const log = new LogBuilder();
        log.user(c.first);
        for (const segment of c.segments) {
          play(log, segment);
          const { result, target } = await compactOnce(log, strategies(), c.targetShare, c.force, c.summariserBehaviour);
          expect(result.tokensAfter).toBeLessThanOrEqual(result.tokensBefore);
          if (name === 'whole pipeline') expect(result.tokensAfter).toBeLessThanOrEqual(Math.max(target, floor(log.events)));
        }
      }),
      { numRuns: name === 'whole pipeline' ? 100 : 50 },
    );
  }, 120_000);
});
