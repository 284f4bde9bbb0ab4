// Overhead: the time skein itself spends per request (deciding whether to
// compact, deriving the view, serialising the request), without the model, at
// 100, 1,000 and 10,000 events in the log.
import { performance } from 'node:perf_hooks';
import path from 'node:path';
import type { SkeinEvent } from '../../shared/protocol.js';
import { Agent } from '../../server/agent/agent.js';
import { Session } from '../../server/agent/session.js';
import { defaultStrategies } from '../../server/compaction/strategies/index.js';
import { ReplayProvider } from '../../server/llm/replay.js';
import { EventLog } from '../../server/store/event-log.js';
import { startAgent } from '../helpers/agent.js';
import { tempDir } from '../helpers/temp-dir.js';
import { longRecording } from './long-recording.js';
import { fmt, percentile, type BenchSection } from './types.js';

const SIZES = [100, 1_000, 10_000];
const ITERATIONS = 400;
const WINDOW = 32_000;

/** A real log of at least `events` events: the long recording replayed at a 32k window (so it has compactions). */
async function recordedLog(events: number): Promise<readonly SkeinEvent[]> {
  for (let passes = 1; ; passes++) {
    const recording = longRecording(passes);
    const provider = new ReplayProvider({ contextWindow: WINDOW, maxOutputTokens: 4096 }, recording);
    const run = startAgent(provider);
    run.session.userMessage(recording[1]!.content);
    await run.idle(300_000);
    if (run.events().length >= events) return run.events();
  }
}

/** An agent on a copy of the first `count` events (cut where a request was about to be sent). */
function agentOn(events: readonly SkeinEvent[], count: number): Agent {
  let cut = count;
  while (cut > 0 && !(events[cut - 1]!.kind === 'state' && (events[cut - 1] as { to: string }).to === 'SendingToLLM')) cut--;
  const dir = tempDir('overhead');
  const log = EventLog.create(path.join(dir, 'sessions', `o${count}.jsonl`), { skein: 1, session: `o${count}`, createdAt: new Date().toISOString(), model: 'replay' });
  for (const e of events.slice(0, cut)) {
    const { seq: _s, ts: _t, ...rest } = e;
    log.append(rest as never);
  }
  const session = new Session(`o${count}`, log, 'replay');
  const provider = new ReplayProvider({ contextWindow: WINDOW, maxOutputTokens: 4096 }, []);
  return new Agent(session, provider, { provider: 'replay', contextWindow: WINDOW, maxOutputTokens: 4096, prices: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } }, {
    workDir: dir,
    contextWindow: WINDOW,
    targetRatio: 0.5,
    policy: { thresholdRatio: 0.85, preflight: true, everyNCalls: 0 },
    strategies: defaultStrategies(),
    summariserTimeoutMs: 60_000,
    bashTimeoutMs: 1000,
    toolOutputLimit: 30_000,
  }, 'WaitingForUserInput');
}

/** What the agent does for every request before the model sees it. */
function prepare(agent: Agent): number {
  const started = performance.now();
  agent.compaction.dueBeforeRequest();
  const request = agent.nextRequest();
  JSON.stringify(request);
  return performance.now() - started;
}

export const section: BenchSection = {
  name: 'overhead',
  async run() {
    const events = await recordedLog(SIZES.at(-1)!);
    const agents = SIZES.map((n) => ({ n, agent: agentOn(events, n), times: [] as number[] }));
    // Warm up each (the first request derives the view from the whole log once), then interleave the sizes.
    for (const a of agents) for (let i = 0; i < 20; i++) prepare(a.agent);
    for (let i = 0; i < ITERATIONS; i++) for (const a of agents) a.times.push(prepare(a.agent));
    const stats = agents.map((a) => ({ events: a.n, p50: percentile(a.times, 50), p99: percentile(a.times, 99), viewMessages: a.agent.nextRequest().messages.length }));
    const small = stats[0]!;
    const big = stats.at(-1)!;
    const ratio = big.p50 / small.p50;
    return {
      rows: [
        ...stats.map((s) => ({ bench: 'overhead', measure: `per request at ${s.events.toLocaleString('en-US')} events (view: ${s.viewMessages} messages): p50 / p99`, value: `${fmt(s.p50, 3)} ms / ${fmt(s.p99, 3)} ms` })),
        { bench: 'overhead', measure: 'p50 ratio 10k / 100 events; p50 at 10k', value: `${ratio.toFixed(2)}x; ${fmt(big.p50, 3)} ms`, goal: 'ratio <= 3 and p50 < 2 ms', met: ratio <= 3 && big.p50 < 2 },
      ],
      details: { window: WINDOW, iterations: ITERATIONS, stats, logEvents: events.length },
    };
  },
};
