// Estimator accuracy: skein's pre-flight estimate of each request vs the
// prompt tokens each fake provider reported for it, over sessions that follow
// the token flow of recorded trajectories (the assistant's texts echoed, tool
// results of the recorded sizes), through the real server and the real SDKs.
import path from 'node:path';
import type { SkeinEvent } from '../../shared/protocol.js';
import { ContextEstimator } from '../../server/compaction/estimator.js';
import { deriveView, plain } from '../../server/compaction/view.js';
import { loadTrajectory } from '../../server/llm/replay.js';
import { requestTokens, tokensOf } from '../../server/llm/tokens.js';
import { startAnthropicFake } from '../fakes/anthropic-fake.js';
import { startGeminiFake } from '../fakes/gemini-fake.js';
import { startOpenAIFake } from '../fakes/openai-fake.js';
import { api, startTestServer } from '../helpers/server.js';
import { TestClient } from '../helpers/ws-client.js';
import { TRAJECTORIES } from './survival.js';
import { fmt, median, percentile, type BenchSection } from './types.js';

const TRAJECTORY_FILES = ['mini-gemini3pro__psf__requests-5414.jsonl', 'mini-gemini3pro__pydata__xarray-4356.jsonl'];
const STEPS = 20;

interface Fake {
  url: string;
  key: string | undefined;
  close(): Promise<void>;
}

/** What the agent estimated before each request, recomputed from its log with the same estimator. */
function errors(events: readonly SkeinEvent[], base: { system: string; tools: never[] }): { calibrated: number[]; raw: number[] } {
  const estimator = new ContextEstimator();
  const out: number[] = [];
  const raw: number[] = [];
  let pending: { estimate: number; request: number; seenSeq: number } | undefined;
  for (const e of events) {
    if (e.kind === 'state' && e.to === 'SendingToLLM') {
      const view = deriveView(events.slice(0, e.seq));
      pending = { estimate: estimator.estimate(view, base), request: requestTokens({ ...base, messages: plain(view) }), seenSeq: e.seq };
    } else if (e.kind === 'usage' && !e.gauge.estimated && pending) {
      const real = e.gauge.contextTokens;
      const agent = events[e.seq] as { kind: string; usage?: { output: number } } | undefined;
      if (estimator.ratio !== 1 || out.length) {
        out.push(Math.abs(pending.estimate - real) / real);
        raw.push(Math.abs(pending.request - real) / real);
      }
      estimator.observe(pending.request, real, agent?.usage?.output ?? 0, pending.seenSeq);
      pending = undefined;
    } else if (e.kind === 'compaction' && e.phase === 'finished' && e.strategy !== 'none') {
      estimator.invalidate();
    }
  }
  return { calibrated: out, raw };
}

async function session(env: Record<string, string>, file: string): Promise<{ calibrated: number[]; raw: number[] }> {
  const server = await startTestServer({ SKEIN_RETRY_BASE_MS: '5', SKEIN_CONTEXT_WINDOW: '32000', ...env });
  try {
    const { body } = await api<{ id: string }>(server.url, '/api/sessions', { body: {} });
    const client = await TestClient.connect(server.url, body.id);
    const recording = loadTrajectory(path.join(TRAJECTORIES, file));
    let turns = 0;
    const say = async (text: string) => {
      client.send({ type: 'user_message', text });
      await client.untilIdle(++turns, 30_000);
    };
    let steps = 0;
    for (let i = 2; i < recording.length && steps < STEPS; i++) {
      const m = recording[i]!;
      if (m.role === 'assistant') await say(`echo: ${m.content.slice(0, 1500)}`);
      else if (m.role === 'tool') {
        await say(`big: ${Math.max(10, Math.min(2500, tokensOf(m.content)))}`);
        steps++;
      }
    }
    client.close();
    const live = server.sessions.get(body.id)!;
    const request = live.agent.nextRequest();
    return errors(live.session.log.all(), { system: request.system, tools: request.tools as never[] });
  } finally {
    await server.close();
  }
}

export const section: BenchSection = {
  name: 'estimator',
  async run() {
    const fakes: [string, () => Promise<Fake>, (f: Fake) => Record<string, string>][] = [
      ['anthropic', () => startAnthropicFake(), (f) => ({ SKEIN_MODEL: 'claude-sonnet-5-5', ANTHROPIC_API_KEY: f.key!, ANTHROPIC_BASE_URL: f.url })],
      ['openai', () => startOpenAIFake(), (f) => ({ SKEIN_MODEL: 'gpt-4.1', OPENAI_API_KEY: f.key!, OPENAI_BASE_URL: f.url })],
      ['gemini', () => startGeminiFake(), (f) => ({ SKEIN_MODEL: 'gemini-2.5-pro', GEMINI_API_KEY: f.key!, GEMINI_BASE_URL: f.url })],
    ];
    const perProvider: Record<string, number[]> = {};
    const rawAll: number[] = [];
    for (const [name, start, env] of fakes) {
      const fake = await start();
      try {
        perProvider[name] = [];
        for (const file of TRAJECTORY_FILES) {
          const result = await session(env(fake), file);
          perProvider[name]!.push(...result.calibrated);
          rawAll.push(...result.raw);
        }
      } finally {
        await fake.close();
      }
    }
    const all = Object.values(perProvider).flat();
    const pct = (x: number) => `${fmt(100 * x, 1)}%`;
    return {
      rows: [
        ...Object.entries(perProvider).map(([name, e]) => ({ bench: 'estimator', measure: `pre-flight estimate vs ${name} fake's reported prompt tokens: median / p95 error (${e.length} requests)`, value: `${pct(median(e))} / ${pct(percentile(e, 95))}` })),
        { bench: 'estimator', measure: 'for comparison, gpt-tokenizer alone (no calibration): median / p95 error', value: `${pct(median(rawAll))} / ${pct(percentile(rawAll, 95))}` },
        { bench: 'estimator', measure: 'all providers: median / p95 error', value: `${pct(median(all))} / ${pct(percentile(all, 95))}`, goal: 'within 10%', met: median(all) <= 0.1 && percentile(all, 95) <= 0.1 },
      ],
      details: { trajectories: TRAJECTORY_FILES, steps: STEPS, errors: perProvider, raw: rawAll },
    };
  },
};

