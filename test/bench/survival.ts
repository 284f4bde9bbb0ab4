// Survival and cost: every recorded trajectory (test/fixtures/trajectories) replayed
// through the real server (replay model) under skein's pipeline and under
// sketch's policy, at 16k, 32k and 200k windows; and what each session costs
// at one reference model's prices with and without compaction.
import fs from 'node:fs';
import path from 'node:path';
import type { CompactionEvent, SkeinEvent, Usage } from '../../shared/protocol.js';
import { loadConfig } from '../../server/config.js';
import { deriveView, plain } from '../../server/compaction/view.js';
import { costUsd, MODELS } from '../../server/llm/models.js';
import type { Provider } from '../../server/llm/types.js';
import { loadTrajectory, REPLAY_FINISHED } from '../../server/llm/replay.js';
import { emptyMeterStats, MeteredProvider, type MeterStats } from './recall/meter.js';
import { startServer } from '../../server/server.js';
import { rememberToken } from '../helpers/auth.js';
import { addKept, emptyKept, measureKept, type Kept } from '../helpers/kept.js';
import { api, tempDir } from '../helpers/server.js';
import { TRAJECTORIES, trajectoryFiles } from '../helpers/trajectories.js';
import { CLEAR_FROM_30, NONE, SKEIN, SKETCH, type Policy } from './policies.js';
import { fmt, median, type BenchRow, type BenchSection } from './types.js';

export const REFERENCE_MODEL = 'claude-sonnet-4-5';
const MAX_STALLS = 40;

export interface RunStats {
  file: string;
  window: number;
  policy: string;
  finished: boolean;
  /** Requests the provider refused as too long. */
  overflows: number;
  /** Turns that ended in an error and needed a "continue" to go on. */
  stalls: number;
  compactions: number;
  failedCompactions: number;
  before: number[];
  after: number[];
  /** View messages before each compaction that changed the view. */
  messagesBefore: number[];
  summariserInput: number[];
  /** Context tokens of every model request (input, cache reads and writes). */
  contexts: number[];
  /** Per compaction that changed the view: summariser input tokens (0 without a summary). */
  compactionInput: number[];
  kept: Kept;
  costUsd: number;
  /** Where the dollars went: the model's requests by token kind, and the summariser's requests. */
  costParts: CostParts;
  /** Recall charges, the neutral identifier measure, user messages and summary sizes (recall/meter.ts). */
  meter: MeterStats;
  ms: number;
}

export interface CostParts {
  cacheWrite: number;
  cacheRead: number;
  input: number;
  output: number;
  summariser: number;
  requests: number;
}

export function emptyCostParts(): CostParts {
  return { cacheWrite: 0, cacheRead: 0, input: 0, output: 0, summariser: 0, requests: 0 };
}

export { TRAJECTORIES, trajectoryFiles };

/** `dataDir`: where the session log goes (the shootout puts it on tmpfs: every event is fsynced). */
export async function replayThroughServer(file: string, window: number, policy: Policy, dataDir = tempDir('bench-data')): Promise<RunStats> {
  const started = Date.now();
  // A name in the shared set, or an absolute path (a second folder).
  const full = path.resolve(TRAJECTORIES, file);
  const config = loadConfig([], {
    SKEIN_PORT: '0',
    SKEIN_DATA_DIR: dataDir,
    SKEIN_WORKDIR: tempDir('bench-work'),
    SKEIN_MODEL: 'replay',
    SKEIN_REPLAY_FILE: full,
    SKEIN_CONTEXT_WINDOW: String(window),
    ...policy.env,
  });
  const reference = MODELS[REFERENCE_MODEL]!;
  let meter: MeteredProvider | undefined;
  const wrapProvider = (p: Provider) =>
    (meter = new MeteredProvider(p, loadTrajectory(full), { price: (u) => costUsd(reference, u), window, cut: policy.cut, file: full }));
  const server = await startServer(config, undefined, { wrapProvider, ...(policy.strategies && { strategies: policy.strategies }), ...(policy.resultCap !== undefined && { resultCap: policy.resultCap }) });
  rememberToken(server.url, server.token);
  try {
    const { body } = await api<{ id: string }>(server.url, '/api/sessions', { body: {} });
    const live = server.sessions.get(body.id)!;
    const first = fs.readFileSync(full, 'utf8').split('\n').map((l) => (l.trim() ? (JSON.parse(l) as { role: string; content: string }) : undefined)).find((m) => m?.role === 'user')!.content;
    await api(server.url, `/api/sessions/${body.id}/messages`, { body: { text: first } });
    let stalls = 0;
    const done = () => live.session.log.all().some((e) => e.kind === 'agent' && e.text === REPLAY_FINISHED);
    for (;;) {
      await live.agent.whenIdle();
      if (done() || stalls >= MAX_STALLS) break;
      if (live.agent.state === 'WaitingForUserInput') {
        // The turn ended in an error: like a user would, say "continue".
        stalls++;
        await api(server.url, `/api/sessions/${body.id}/messages`, { body: { text: 'continue' } });
      }
    }
    return { ...measureRun(live.session.log.all(), policy), meter: meter?.stats ?? emptyMeterStats(), file: path.basename(file), window, policy: policy.name, finished: done(), stalls, ms: Date.now() - started };
  } finally {
    await server.close();
  }
}

function measureRun(events: readonly SkeinEvent[], policy: Policy) {
  const reference = MODELS[REFERENCE_MODEL]!;
  // A peer that summarises with a cheaper model (Goose's fast model) pays that model's prices for its summaries.
  const summaryPrices = MODELS[policy.summaryModel ?? REFERENCE_MODEL]!;
  let cost = 0;
  const add = (u: Usage | undefined) => (cost += u ? costUsd(reference, u) : 0);
  const parts = emptyCostParts();
  const split = (u: Usage) => {
    const price = (k: 'input' | 'cacheRead' | 'cacheWrite' | 'output') => costUsd(reference, { input: 0, cacheRead: 0, cacheWrite: 0, output: 0, [k]: u[k] });
    parts.cacheWrite += price('cacheWrite');
    parts.cacheRead += price('cacheRead');
    parts.input += price('input');
    parts.output += price('output');
    parts.requests++;
  };
  const kept = emptyKept();
  const stats = { overflows: 0, compactions: 0, failedCompactions: 0, before: [] as number[], after: [] as number[], messagesBefore: [] as number[], summariserInput: [] as number[], contexts: [] as number[], compactionInput: [] as number[] };
  for (const e of events) {
    if (e.kind === 'agent') add(e.usage);
    if (e.kind === 'agent' && e.usage) split(e.usage);
    if (e.kind === 'agent' && e.usage) stats.contexts.push(e.usage.input + e.usage.cacheRead + e.usage.cacheWrite);
    if (e.kind === 'error' && e.code === 'context_overflow') stats.overflows++;
    if (e.kind !== 'compaction') continue;
    if (e.phase === 'started' && e.trigger === 'overflow') stats.overflows++;
    if (e.phase === 'failed') stats.failedCompactions++;
    if (e.phase !== 'finished') continue;
    if (e.summariserUsage) cost += costUsd(summaryPrices, e.summariserUsage);
    if (e.summariserUsage) parts.summariser += costUsd(summaryPrices, e.summariserUsage);
    if (e.strategy === 'none') continue;
    stats.compactions++;
    stats.before.push(e.tokensBefore!);
    stats.messagesBefore.push(e.messagesBefore ?? 0);
    stats.after.push(e.tokensAfter!);
    if (e.summariserUsage) stats.summariserInput.push(e.summariserUsage.input + e.summariserUsage.cacheRead + e.summariserUsage.cacheWrite);
    stats.compactionInput.push(e.summariserUsage ? e.summariserUsage.input + e.summariserUsage.cacheRead + e.summariserUsage.cacheWrite : 0);
    const upTo = events.slice(0, e.seq);
    measureKept(kept, upTo, e as CompactionEvent, plain(deriveView(upTo)).map((m) => m.content).join('\n'));
  }
  return { ...stats, kept, costUsd: cost, costParts: parts };
}

function share(kept: number, total: number): string {
  return total ? `${((100 * kept) / total).toFixed(0)}% (${kept}/${total})` : 'n/a';
}

export const section: BenchSection = {
  name: 'survival and cost',
  async run() {
    const files = trajectoryFiles();
    const runs: RunStats[] = [];
    for (const window of [16_000, 32_000, 200_000]) {
      for (const policy of [SKEIN, SKETCH]) for (const file of files) runs.push(await replayThroughServer(file, window, policy));
    }
    const costRuns: RunStats[] = [];
    for (const file of files) costRuns.push(await replayThroughServer(file, 10_000_000, NONE));
    for (const file of files) costRuns.push(await replayThroughServer(file, 200_000, CLEAR_FROM_30));

    const rows: BenchRow[] = [];
    for (const window of [16_000, 32_000, 200_000]) {
      for (const policy of [SKEIN, SKETCH]) {
        const group = runs.filter((r) => r.window === window && r.policy === policy.name);
        const overflows = group.reduce((n, r) => n + r.overflows, 0);
        const kept = group.reduce((k, r) => addKept(k, r.kept), emptyKept());
        const label = `${window / 1000}k, ${policy.name}`;
        rows.push({
          bench: 'survival',
          measure: `${label}: overflow errors / stalls / compactions (failed)`,
          value: `${overflows} / ${group.reduce((n, r) => n + r.stalls, 0)} / ${group.reduce((n, r) => n + r.compactions, 0)} (${group.reduce((n, r) => n + r.failedCompactions, 0)})`,
          ...(policy === SKEIN && { goal: '0 overflows', met: overflows === 0 }),
        });
        rows.push({
          bench: 'survival',
          measure: `${label}: median tokens before -> after; summariser input per compaction`,
          value: `${fmt(median(group.flatMap((r) => r.before)))} -> ${fmt(median(group.flatMap((r) => r.after)))}; ${fmt(median(group.flatMap((r) => r.summariserInput)))}`,
        });
        rows.push({
          bench: 'survival',
          measure: `${label}: user messages / identifiers of folded spans kept`,
          value: `${share(kept.userMessagesKept, kept.userMessagesTotal)} / ${share(kept.identifiersKept, kept.identifiersTotal)}`,
        });
        const goal = window === 16_000 ? 0.9 : window === 32_000 ? 0.95 : undefined;
        rows.push({
          bench: 'survival',
          measure: `${label}: identifiers of folded spans present in the view (paths also read back from the ledger's trie)`,
          value: share(kept.inViewKept, kept.inViewTotal),
          ...(policy === SKEIN && goal !== undefined && { goal: `>= ${goal * 100}%`, met: kept.inViewKept >= goal * kept.inViewTotal }),
        });
        rows.push({
          bench: 'survival',
          measure: `${label}: identifiers of folded spans reachable through search_history`,
          value: share(kept.reachable, kept.reachableTotal),
          ...(policy === SKEIN && kept.reachableTotal > 0 && { goal: '100%', met: kept.reachable === kept.reachableTotal }),
        });
      }
    }
    const total = (list: RunStats[]) => list.reduce((n, r) => n + r.costUsd, 0);
    const none = total(costRuns.filter((r) => r.policy === NONE.name));
    const defaults = total(runs.filter((r) => r.window === 200_000 && r.policy === SKEIN.name));
    const clearing = total(costRuns.filter((r) => r.policy === CLEAR_FROM_30.name));
    rows.push({
      bench: 'cost',
      measure: `18 sessions at ${REFERENCE_MODEL} prices: no compaction (unbounded) / skein 200k / skein clearing from 30%`,
      value: `$${none.toFixed(2)} / $${defaults.toFixed(2)} (${(defaults / none).toFixed(2)}x) / $${clearing.toFixed(2)} (${(clearing / none).toFixed(2)}x)`,
    });
    return { rows, details: { runs, costRuns } };
  },
};
