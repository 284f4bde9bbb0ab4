// All 18 recorded sessions (test/fixtures/trajectories) replayed through the real
// agent loop at 16k and 32k windows: no overflow, every compaction at or below
// its target, the invariants after each one, the log never rewritten.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CompactionEvent, SkeinEvent } from '../../shared/protocol.js';
import { answeredMessages, tokensOfMessages } from '../../server/compaction/plan.js';
import { deriveView, plain } from '../../server/compaction/view.js';
import { loadTrajectory, ReplayProvider } from '../../server/llm/replay.js';
import { requestTokens } from '../../server/llm/tokens.js';
import { startAgent } from '../helpers/agent.js';
import { TRAJECTORIES, trajectoryFiles } from '../helpers/trajectories.js';
import { OUTPUT_DIR } from '../helpers/browser.js';
import { checkInvariants, median } from '../helpers/invariants.js';
import { emptyKept, measureKept as measureKeptIn } from '../helpers/kept.js';

const files = trajectoryFiles();

export interface ReplayStats {
  file: string;
  window: number;
  requests: number;
  compactions: number;
  overflowErrors: number;
  overflowCompactions: number;
  before: number[];
  after: number[];
  targets: number[];
  userMessagesKept: number;
  userMessagesTotal: number;
  factsKept: number;
  factsTotal: number;
  /** Compactions above 0.5 x window because the pinned head alone nearly fills it. */
  overTarget: number;
  problems: string[];
}

/** Room for the summary and ledger when the pinned head alone exceeds the target. */
const HEAD_ALLOWANCE = 1500;

export async function replay(file: string, window: number): Promise<ReplayStats> {
  const recording = loadTrajectory(path.join(TRAJECTORIES, file));
  const provider = new ReplayProvider({ contextWindow: window, maxOutputTokens: Math.min(4096, window / 8) }, recording);
  const run = startAgent(provider);
  run.session.userMessage(provider.firstUserMessage);
  await run.idle(120_000);
  const events = run.events();
  // The pinned head (system, tools, first user message) is never folded; when it alone
  // is near the target (pylint-7080 at 16k: a 8,002-token task), the bound is the head plus a small summary.
  const head = requestTokens({ ...run.agent.nextRequest(), messages: [{ role: 'user', content: provider.firstUserMessage }] });
  const bound = Math.max(0.5 * window, head + HEAD_ALLOWANCE);
  const stats: ReplayStats = {
    file, window, requests: events.filter((e) => e.kind === 'agent').length, compactions: 0, overflowErrors: 0, overflowCompactions: 0,
    before: [], after: [], targets: [], userMessagesKept: 0, userMessagesTotal: 0, factsKept: 0, factsTotal: 0, overTarget: 0, problems: [],
  };
  if (!provider.finished) stats.problems.push('the replay did not reach the end of the recording');
  for (const e of events) {
    if (e.kind === 'error') {
      if (e.code === 'context_overflow') stats.overflowErrors++;
      else if (e.code !== 'compaction_breaker_open') stats.problems.push(`error event: ${e.message}`);
    }
    if (e.kind !== 'compaction' || e.phase !== 'finished') continue;
    stats.compactions++;
    if (e.trigger === 'overflow') stats.overflowCompactions++;
    stats.before.push(e.tokensBefore!);
    stats.after.push(e.tokensAfter!);
    stats.targets.push(bound);
    const upTo = events.slice(0, e.seq);
    const view = plain(deriveView(upTo));
    for (const p of checkInvariants(upTo, view)) stats.problems.push(`after compaction ${e.seq}: ${p}`);
    if (e.trigger === 'strategy') {
      // Stale tool results cleared below the threshold (clear_stale_results): no target, but the view must shrink.
      if (e.tokensAfter! >= e.tokensBefore!) stats.problems.push(`compaction ${e.seq} (strategy) did not shrink the view: ${e.tokensBefore} -> ${e.tokensAfter}`);
      continue;
    }
    // The message being answered and the turn's latest step are never folded: they may stand above the target.
    const before = deriveView(events.slice(0, e.seq - 1));
    const unfoldable = tokensOfMessages([...answeredMessages(before)].map((i) => before[i]!));
    if (e.tokensAfter! > bound + unfoldable) stats.problems.push(`compaction ${e.seq} landed at ${e.tokensAfter} > target ${bound} (+ ${unfoldable} of the turn being answered)`);
    if (e.tokensAfter! > 0.5 * window) stats.overTarget++;
    measureKept(stats, upTo, e, view.map((m) => m.content).join('\n'));
  }
  // The log is append-only: what the file holds is exactly the events, in order.
  const lines = fs.readFileSync(run.session.log.file, 'utf8').trim().split('\n').slice(1);
  if (lines.length !== events.length || lines.some((l, i) => (JSON.parse(l) as SkeinEvent).seq !== i + 1)) stats.problems.push('the log file differs from the events');
  return stats;
}

/** Share of user messages, commands and file paths of the folded span that the view still holds. */
function measureKept(stats: ReplayStats, events: readonly SkeinEvent[], c: CompactionEvent, viewText: string): void {
  const kept = emptyKept();
  measureKeptIn(kept, events, c, viewText);
  stats.userMessagesKept += kept.userMessagesKept;
  stats.userMessagesTotal += kept.userMessagesTotal;
  stats.factsKept += kept.identifiersKept;
  stats.factsTotal += kept.identifiersTotal;
}

describe.each([16_000, 32_000])('replay at a %i-token window', (window) => {
  const all: ReplayStats[] = [];
  it.each(files)('%s: no overflow, compactions at or below target, invariants hold', async (file) => {
    const stats = await replay(file, window);
    all.push(stats);
    expect(stats.problems).toEqual([]);
    expect(stats.overflowErrors).toBe(0);
    // Not even a refused request that compaction then recovered from: pre-flight caught every one.
    expect(stats.overflowCompactions).toBe(0);
  }, 120_000);

  it('writes the figures', () => {
    expect(all.length).toBe(files.length);
    expect(all.filter((s) => s.compactions > 0).length).toBeGreaterThan(files.length / 2);
    const summary = {
      window,
      trajectories: all.length,
      compactions: all.reduce((n, s) => n + s.compactions, 0),
      overflowErrors: all.reduce((n, s) => n + s.overflowErrors, 0),
      overflowCompactions: all.reduce((n, s) => n + s.overflowCompactions, 0),
      overTargetBecauseOfHead: all.filter((s) => s.overTarget).map((s) => `${s.file}: ${s.overTarget}`),
      medianBefore: median(all.flatMap((s) => s.before)),
      medianAfter: median(all.flatMap((s) => s.after)),
      userMessagesKept: `${all.reduce((n, s) => n + s.userMessagesKept, 0)}/${all.reduce((n, s) => n + s.userMessagesTotal, 0)}`,
      factsKept: `${all.reduce((n, s) => n + s.factsKept, 0)}/${all.reduce((n, s) => n + s.factsTotal, 0)}`,
    };
    fs.mkdirSync(OUTPUT_DIR, { recursive: true });
    fs.writeFileSync(path.join(OUTPUT_DIR, `replay-${window}.json`), JSON.stringify({ summary, runs: all.map(({ before, after, targets, ...s }) => s) }, null, 2));
    console.log(JSON.stringify(summary));
  });
});
