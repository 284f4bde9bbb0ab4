// Delegation: the same task done with its exploration inline and handed to an
// `explore` child (the `task` tool), scripted with the predictable model, and
// what delegation would have saved in the shootout's recorded trajectories.
// 1. Scripted: read EXPLORE_FILES big files, then two small follow-ups. Inline, the
//    reads stay in the parent's window; delegated, only the child's bounded
//    answer does. Reported: the parent's peak context, the tokens of every
//    model call (parent + children) and their cost at reference prices.
// 2. Trajectories (delegation-trajectories.ts): runs of read/search calls
//    whose outputs are never quoted later, and the compactions at 32k they cost.
import fs from 'node:fs';
import path from 'node:path';
import type { SkeinEvent } from '../../shared/protocol.js';
import type { LiveSession } from '../../server/agent/live-session.js';
import { startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';
import { analyseTrajectories } from './delegation-trajectories.js';
import { fmt, type BenchRow, type BenchSection } from './types.js';

const EXPLORE_FILES = 6;
/** Lines of each file (one line is about 10 tokens). */
const FILE_LINES = 600;
/** Reference prices, USD per million tokens (a mid-size hosted model): input, cache read, cache write, output. */
const PRICES = { input: 3, cacheRead: 0.3, cacheWrite: 3.75, output: 15 };

interface RunFigures {
  parentPeakContext: number;
  parentTokens: number;
  childTokens: number;
  costUsd: number;
  compactions: number;
}

async function turn(live: LiveSession, text: string): Promise<void> {
  const from = live.session.log.lastSeq;
  await live.session.userMessage(text);
  await until(() => live.session.log.since(from).some((e) => e.kind === 'state' && e.to === 'WaitingForUserInput'), 'the turn to end', 300_000);
}

function usageOf(events: readonly SkeinEvent[]): { tokens: number; costUsd: number; peak: number } {
  let tokens = 0;
  let costUsd = 0;
  let peak = 0;
  for (const e of events) {
    if (e.kind === 'agent' && e.usage) {
      const u = e.usage;
      tokens += u.input + u.cacheRead + u.cacheWrite + u.output;
      costUsd += (u.input * PRICES.input + u.cacheRead * PRICES.cacheRead + u.cacheWrite * PRICES.cacheWrite + u.output * PRICES.output) / 1e6;
    }
    if (e.kind === 'usage') peak = Math.max(peak, e.gauge.contextTokens);
  }
  return { tokens, costUsd, peak };
}

async function scenario(server: TestServer, delegate: boolean): Promise<RunFigures> {
  const parent = server.sessions.create();
  const reads = Array.from({ length: EXPLORE_FILES }, (_, i) => ({ name: 'read_file', input: { path: `src/module${i}.txt` } }));
  const explore = `tools: ${JSON.stringify(reads)}`;
  if (delegate) await turn(parent, `tool: task ${JSON.stringify({ description: 'read the modules', prompt: explore, agent: 'explore' })}`);
  else await turn(parent, explore);
  await turn(parent, 'echo: the fix goes in module 3');
  await turn(parent, 'echo: done');
  const own = usageOf(parent.session.log.all());
  const children = server.sessions.list().filter((s) => s.parent?.session === parent.session.id);
  const childUsage = children.map((c) => usageOf(server.sessions.get(c.id)!.session.log.all()));
  return {
    parentPeakContext: own.peak,
    parentTokens: own.tokens,
    childTokens: childUsage.reduce((n, c) => n + c.tokens, 0),
    costUsd: own.costUsd + childUsage.reduce((n, c) => n + c.costUsd, 0),
    compactions: parent.session.log.all().filter((e) => e.kind === 'compaction' && e.phase === 'finished').length,
  };
}

export const section: BenchSection = {
  name: 'delegation',
  async run() {
    const work = tempDir('bench-delegation');
    fs.mkdirSync(path.join(work, 'src'));
    for (let i = 0; i < EXPLORE_FILES; i++) {
      const lines = Array.from({ length: FILE_LINES }, (_, n) => `module ${i} line ${n}: the quick brown fox jumps over the lazy dog`);
      fs.writeFileSync(path.join(work, 'src', `module${i}.txt`), `${lines.join('\n')}\n`);
    }
    const server = await startTestServer({ SKEIN_MODEL: 'predictable', SKEIN_CONTEXT_WINDOW: '200000' }, { workDir: work });
    let inline: RunFigures;
    let delegated: RunFigures;
    try {
      inline = await scenario(server, false);
      delegated = await scenario(server, true);
    } finally {
      await server.close();
    }
    const traj = analyseTrajectories();
    const n = (x: number) => Math.round(x).toLocaleString('en-US');
    const rows: BenchRow[] = [
      { bench: 'delegation', measure: `scripted task (${EXPLORE_FILES} file reads + 2 follow-ups): parent's peak context, inline / delegated`, value: `${n(inline.parentPeakContext)} / ${n(delegated.parentPeakContext)} tokens (${fmt(inline.parentPeakContext / Math.max(1, delegated.parentPeakContext), 1)}x smaller)` },
      { bench: 'delegation', measure: 'scripted task: tokens of all model calls (parent + children), inline / delegated', value: `${n(inline.parentTokens + inline.childTokens)} / ${n(delegated.parentTokens + delegated.childTokens)} (children ${n(delegated.childTokens)})` },
      { bench: 'delegation', measure: `scripted task: cost at $${PRICES.input}/$${PRICES.output} per M (cache read $${PRICES.cacheRead}, write $${PRICES.cacheWrite}), inline / delegated`, value: `$${inline.costUsd.toFixed(4)} / $${delegated.costUsd.toFixed(4)}` },
      { bench: 'delegation', measure: `trajectories (${traj.files}): tokens of read/search runs never quoted later (could stay in a child)`, value: `${n(traj.delegableTokens)} of ${n(traj.totalTokens)} (${fmt((100 * traj.delegableTokens) / traj.totalTokens, 1)}%) in ${traj.runs} runs` },
      { bench: 'delegation', measure: `trajectories: compactions at a ${n(traj.window)} window (trigger ${Math.round(traj.trigger * 100)}%), as run / delegated`, value: `${traj.compactions} / ${traj.compactionsDelegated} (${traj.compactions - traj.compactionsDelegated} avoided; ${traj.filesBelowTrigger} of ${traj.files} stay below the trigger)` },
    ];
    return { rows, details: { inline, delegated, trajectories: traj } };
  },
};
