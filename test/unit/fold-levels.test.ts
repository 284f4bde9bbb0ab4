// Overflow recovery folds harder at each level (compaction-runner.ts): the
// target the pipeline gets is the normal one at level 0, 0.6 of it at level 1
// and 0.35 from level 2 on; past level 0 the summariser is skipped and the
// fold is forced. Asserted on the target each level hands the strategies, and
// on the effect: the real strategies end each level under its own target,
// each smaller than the level before.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SkeinEvent } from '../../shared/protocol.js';
import { CompactionRunner, type CompactionSettings } from '../../server/agent/compaction-runner.js';
import { Session } from '../../server/agent/session.js';
import type { CompactionContext, CompactionStrategy } from '../../server/compaction/pipeline.js';
import { defaultStrategies } from '../../server/compaction/strategies/index.js';
import { PredictableProvider } from '../../server/llm/predictable.js';
import { EventLog } from '../../server/store/event-log.js';
import { tempDir } from '../helpers/temp-dir.js';

const WINDOW = 20_000;
const TARGET_RATIO = 0.5;
/** The level-0 target: targetRatio × window (below 0.9 × threshold), in counted tokens at the estimator's first ratio of 1. */
const BASE_TARGET = Math.floor(TARGET_RATIO * WINDOW);

function sessionWithHistory(turns: number): Session {
  const id = `fold-${Math.random().toString(36).slice(2, 8)}`;
  const log = EventLog.create(path.join(tempDir('fold-levels'), 'sessions', `${id}.jsonl`), { skein: 1, session: id, createdAt: new Date().toISOString(), model: 'predictable' });
  const session = new Session(id, log, 'predictable');
  session.append({ kind: 'user', text: 'Start: read the files and report.' });
  for (let i = 0; i < turns; i++) {
    session.append({ kind: 'agent', text: `Step ${i}: looking at file ${i}.`, model: 'predictable', endOfTurn: false });
    session.append({ kind: 'tool_call', callId: `c${i}`, name: 'bash', input: { command: `cat file-${i}.txt` } });
    session.append({ kind: 'tool_result', callId: `c${i}`, name: 'bash', output: `line of file ${i} `.repeat(60), isError: false, durationMs: 1 });
  }
  session.append({ kind: 'agent', text: 'Done reading.', model: 'predictable', endOfTurn: true });
  session.append({ kind: 'user', text: 'Now sum it up.' });
  return session;
}

function runner(session: Session, strategies: CompactionStrategy[]): CompactionRunner {
  const provider = new PredictableProvider({ contextWindow: WINDOW, maxOutputTokens: 1000 });
  const info = { provider: 'predictable' as const, prices: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, ...provider.limits };
  const settings: CompactionSettings = { policy: { thresholdRatio: 0.85, preflight: true, everyNCalls: 0 }, contextWindow: WINDOW, targetRatio: TARGET_RATIO, summariserTimeoutMs: 5000, strategies };
  return new CompactionRunner(session, settings, {
    base: () => ({ system: 'You are a test.', tools: [] }),
    summariser: () => provider,
    info: () => info,
    summariserInfo: () => info,
    model: () => 'predictable',
    gauge: () => ({ tokens: 0, contextWindow: WINDOW, threshold: 0.85 }) as never,
  });
}

/** A strategy that folds nothing and keeps what the pipeline asked of it. */
function recorder(): { strategy: CompactionStrategy; seen: CompactionContext[] } {
  const seen: CompactionContext[] = [];
  return {
    seen,
    strategy: {
      name: 'recorder',
      shouldRun: (_draft, ctx) => {
        seen.push(ctx);
        return false;
      },
      run: async (draft) => draft,
    },
  };
}

describe('overflow fold levels', () => {
  it('hand the strategies the target 1 / 0.6 / 0.35 of the normal one, and force a fold without the summariser past level 0', async () => {
    const got: Record<number, CompactionContext> = {};
    for (const level of [0, 1, 2, 3]) {
      const { strategy, seen } = recorder();
      await runner(sessionWithHistory(3), [strategy]).run({ trigger: 'overflow', level }, new AbortController().signal);
      got[level] = seen[0]!;
    }
    expect(got[0]!.targetTokens).toBe(BASE_TARGET);
    expect(got[1]!.targetTokens).toBe(Math.floor(BASE_TARGET * 0.6));
    expect(got[2]!.targetTokens).toBe(Math.floor(BASE_TARGET * 0.35));
    // Past the last level the target stays the hardest one.
    expect(got[3]!.targetTokens).toBe(Math.floor(BASE_TARGET * 0.35));
    expect([0, 1, 2, 3].map((l) => got[l]!.level)).toEqual([undefined, 1, 2, 3]);
    expect([0, 1, 2].map((l) => got[l]!.skipSummariser)).toEqual([false, true, true]);
    expect([0, 1, 2].map((l) => got[l]!.force)).toEqual([false, true, true]);
  });

  it('with the real strategies each level ends under its own target, smaller than the level before', async () => {
    const after: number[] = [];
    for (const level of [1, 2]) {
      const session = sessionWithHistory(40);
      await runner(session, defaultStrategies()).run({ trigger: 'overflow', level }, new AbortController().signal);
      const finished = session.log.all().filter((e): e is Extract<SkeinEvent, { kind: 'compaction' }> => e.kind === 'compaction' && e.phase === 'finished');
      expect(finished).toHaveLength(1);
      const f = finished[0]!;
      expect(f.tokensBefore).toBeGreaterThan(BASE_TARGET);
      // Under this level's target (the estimator's ratio is 1 here: the same unit).
      expect(f.tokensAfter).toBeLessThanOrEqual(Math.floor(BASE_TARGET * (level === 1 ? 0.6 : 0.35)));
      after.push(f.tokensAfter ?? Number.NaN);
    }
    expect(after[1]!).toBeLessThan(after[0]!);
  });
});
