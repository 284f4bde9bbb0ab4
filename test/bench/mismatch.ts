// Mismatch: the 18 trajectories replayed through the real server against a
// server whose real window is 8k, 16k or 32k while skein is told 200k (and an
// Ollama-style server at 4k that cuts the prompt instead of refusing), beside
// the same runs with skein told the truth; then every server family's error
// dialect, and tokenizers counting 0.5x to 2x skein's estimate. Each server
// counts with its own tokenizer (test/fakes/tokenizers.ts). Counts the
// overflow errors that reached the user, the refusals (or cuts) per session,
// and the answers kept from a prompt that had lost the first user message.
import fs from 'node:fs';
import path from 'node:path';
import type { SkeinEvent } from '../../shared/protocol.js';
import { loadConfig } from '../../server/config.js';
import { REPLAY_FINISHED } from '../../server/llm/replay.js';
import { startServer } from '../../server/server.js';
import { FLAVOUR_TOKENIZER, FLAVOURS, TRUNCATING, type CompatFlavour } from '../fakes/dialects.js';
import { WindowedProvider } from '../fakes/windowed-provider.js';
import { rememberToken } from '../helpers/auth.js';
import { api, tempDir } from '../helpers/server.js';
import { TRAJECTORIES, trajectoryFiles } from '../helpers/trajectories.js';
import { outputFloor, windowMargin } from '../../server/agent/window.js';
import { TOOLS } from '../../server/tools/registry.js';
import { RequestShape } from '../../server/agent/request-shape.js';
import type { BenchRow, BenchSection } from './types.js';

/** skein's system prompt and tools as every request carries them: about 1,500 tokens, or 400 when lean (a small window). */
const SYSTEM = fs.readFileSync(new URL('../../server/agent/system-prompt.md', import.meta.url), 'utf8');
const LEAN_SYSTEM = fs.readFileSync(new URL('../../server/agent/system-prompt-lean.md', import.meta.url), 'utf8');
const SHAPE = new RequestShape({ system: SYSTEM, tools: TOOLS.map((t) => t.spec) }, LEAN_SYSTEM);

const MAX_STALLS = 10;
const TOLD = 200_000;

export interface MismatchRun {
  file: string;
  real: number;
  told: number;
  flavour: CompatFlavour;
  /** The server's tokens per skein token (undefined: the family's own tokenizer). */
  ratio?: number;
  finished: boolean;
  /** context_overflow errors in the log: turns that ended because the context did not fit. */
  userOverflows: number;
  stalls: number;
  refusals: number;
  cuts: number;
  /** Answers kept from a prompt that had lost the first user message. */
  lostFirstUser: number;
  /** Refusals after the first window skein learned (from a refusal, or the provider): at most 1 wanted. */
  refusalsAfterKnown: number;
  /** "Silently cutting" concluded about a server that never cut. */
  falseCuts: number;
  /** The most compactions that found nothing to fold in one turn (at most 1 wanted). */
  nothingToFoldPerTurn: number;
  /** The system prompt, the tools, the first user message and the answer's floor fit the real window: the session can run at all. */
  fits: boolean;
  /** Tokens of the window left for the conversation beside that head and floor. */
  room: number;
  ms: number;
}

/** Replays one trajectory against a server of `real` tokens, skein told `told`. */
export async function replayMismatch(file: string, real: number, told: number, flavour: CompatFlavour, ratio?: number): Promise<MismatchRun> {
  const started = Date.now();
  const full = path.join(TRAJECTORIES, file);
  const config = loadConfig([], {
    SKEIN_PORT: '0',
    SKEIN_DATA_DIR: tempDir('bench-data'),
    SKEIN_WORKDIR: tempDir('bench-work'),
    SKEIN_MODEL: 'replay',
    SKEIN_REPLAY_FILE: full,
    SKEIN_CONTEXT_WINDOW: String(told),
  });
  let windowed: WindowedProvider | undefined;
  const server = await startServer(config, undefined, { wrapProvider: (p) => (windowed = new WindowedProvider(p, real, flavour, TRUNCATING.has(flavour), ratio)) });
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
        stalls++;
        await api(server.url, `/api/sessions/${body.id}/messages`, { body: { text: 'continue' } });
      }
    }
    const events: readonly SkeinEvent[] = live.session.log.all();
    if (process.env.SKEIN_BENCH_DEBUG) for (const e of events) if (e.kind === 'error' || e.kind === 'limits' || (e.kind === 'compaction' && e.phase !== 'started')) console.log('DBG', JSON.stringify(e).slice(0, 500));
    // skein works within the smaller of the real window and the one it is told (SKEIN_CONTEXT_WINDOW wins until a refusal).
    const known = Math.min(real, told);
    // In the server's own tokens: its tokenizer decides whether the head fits.
    const head = windowed!.count({ ...SHAPE.current(known), messages: [{ role: 'user', content: first }] });
    const room = known - head - outputFloor(known) - windowMargin(known);
    // Known: named by the provider, by a refusal (one naming no number bounds it: skein must not be refused more than
    // once more after it), or by a cut seen.
    const learnedAt = events.find((e) => e.kind === 'limits' && (e.source === 'provider' || e.source === 'refusal'))?.ts;
    const learnedMs = learnedAt === undefined ? Infinity : Date.parse(learnedAt);
    const stats = windowed!.stats;
    // The answer to the request in which a cut was noticed is dropped; earlier cut answers were kept.
    const noticed = events.filter((e) => e.kind === 'limits' && e.truncated).length;
    return {
      file,
      real,
      told,
      flavour,
      ...(ratio !== undefined && { ratio }),
      finished: done(),
      userOverflows: events.filter((e) => e.kind === 'error' && e.code === 'context_overflow').length,
      stalls,
      refusals: stats.refusals,
      cuts: stats.cuts,
      lostFirstUser: Math.max(0, stats.cutFirstUser - noticed),
      refusalsAfterKnown: stats.refusedAt.filter((t) => t > learnedMs).length,
      falseCuts: stats.cuts === 0 ? noticed : 0,
      nothingToFoldPerTurn: nothingPerTurn(events),
      fits: room >= 0,
      room,
      ms: Date.now() - started,
    };
  } finally {
    await server.close();
  }
}

/** The most compactions that folded nothing between two user messages. */
function nothingPerTurn(events: readonly SkeinEvent[]): number {
  let most = 0;
  let now = 0;
  for (const e of events) {
    if (e.kind === 'user') now = 0;
    else if (e.kind === 'compaction' && e.phase === 'finished' && e.strategy === 'none') most = Math.max(most, ++now);
  }
  return most;
}

const SERVERS: { real: number; flavour: CompatFlavour; label: string }[] = [
  { real: 8_000, flavour: 'openai', label: '8k (OpenAI-style refusal)' },
  { real: 16_000, flavour: 'llamacpp', label: '16k (llama.cpp refusal)' },
  { real: 32_000, flavour: 'nonumber', label: '32k (refusal naming no number)' },
  { real: 4_000, flavour: 'ollama', label: '4k (Ollama-style, cuts the prompt)' },
];

/** The dialect rows replay this many trajectories each (the ratio rows all of them): the section stays within minutes. */
const DIALECT_FILES = 6;
const DIALECT_REAL = 8_000;
const RATIOS = [0.5, 0.75, 1.33, 2.0];
const RATIO_REAL = 16_000;

/** The two rows of one group of runs: overflows reaching the user, then refusals and the rest of the property's measures. */
function groupRows(label: string, all: MismatchRun[], truncating: boolean): BenchRow[] {
  // A session whose first message alone does not fit the real window can only end in the error that says so.
  const unfit = all.filter((r) => !r.fits);
  const group = all.filter((r) => r.fits);
  const overflows = group.reduce((n, r) => n + r.userOverflows, 0);
  const refusals = group.map((r) => r.refusals + r.cuts);
  const lost = group.reduce((n, r) => n + r.lostFirstUser, 0);
  const afterKnown = Math.max(0, ...group.map((r) => r.refusalsAfterKnown));
  const falseCuts = group.reduce((n, r) => n + r.falseCuts, 0);
  const nothing = Math.max(0, ...group.map((r) => r.nothingToFoldPerTurn));
  const maxRefusals = Math.max(0, ...refusals);
  return [
    {
      bench: 'mismatch',
      measure: `${label}: overflows reaching the user / stalls / sessions finished (sessions whose first message cannot fit, left out)`,
      value: `${overflows} / ${group.reduce((n, r) => n + r.stalls, 0)} / ${group.filter((r) => r.finished).length} of ${group.length} (${unfit.length}${unfit.length ? `: ${unfit.map((r) => r.file.replace(/^mini-gemini3pro__/, '').replace(/\.jsonl$/, '')).join(', ')}` : ''})`,
      goal: '0 overflows',
      met: overflows === 0,
    },
    {
      bench: 'mismatch',
      measure: `${label}: ${truncating ? 'cut prompts' : 'refusals'} per session (mean / max) / max after the window was known; answers kept from a prompt missing the first user message; false "silently cutting"; most "nothing to fold" in a turn`,
      value: `${(refusals.reduce((a, b) => a + b, 0) / Math.max(1, group.length)).toFixed(2)} / ${maxRefusals} / ${afterKnown}; ${lost}; ${falseCuts}; ${nothing}`,
      goal: truncating ? '<= 2 cuts (the first can be too small to see), 0 lost, 0 false, <= 1' : '<= 1 after the window is known, 0 lost, 0 false, <= 1',
      met: (truncating ? maxRefusals <= 2 : afterKnown <= 1) && lost === 0 && falseCuts === 0 && nothing <= 1,
    },
  ];
}

export const section: BenchSection = {
  name: 'mismatch',
  async run() {
    // SKEIN_BENCH_MISMATCH_FILES (comma-separated parts of names): only those trajectories, for a quick partial run
    // on a loaded machine; the rows then say how many they replayed.
    const only = process.env.SKEIN_BENCH_MISMATCH_FILES?.split(',').filter(Boolean);
    const files = trajectoryFiles().filter((f) => !only || only.some((o) => f.includes(o)));
    const runs: MismatchRun[] = [];
    const rows: BenchRow[] = [];
    // Each group's rows as soon as it ends (the section takes a quarter of an hour or more on a loaded machine).
    const add = (group: BenchRow[]) => {
      rows.push(...group);
      for (const r of group) process.stderr.write(`mismatch row: ${r.measure} = ${r.value} (${r.met ? 'met' : 'NOT met'})\n`);
    };
    // Every family's error dialect (and tokenizer), 8k real, skein told 200k.
    for (const flavour of FLAVOURS) {
      const group: MismatchRun[] = [];
      for (const file of files.slice(0, DIALECT_FILES)) group.push(await replayMismatch(file, DIALECT_REAL, TOLD, flavour));
      runs.push(...group);
      add(groupRows(`dialect ${flavour} (${FLAVOUR_TOKENIZER[flavour].name} tokenizer), 8k, told 200k, ${DIALECT_FILES} trajectories`, group, TRUNCATING.has(flavour)));
    }
    // Tokenizers counting 0.5x to 2x skein's estimate (leaning by kind of text), vLLM's dialect, 16k real, told 200k.
    for (const ratio of RATIOS) {
      const group: MismatchRun[] = [];
      for (const file of files) group.push(await replayMismatch(file, RATIO_REAL, TOLD, 'vllm', ratio));
      runs.push(...group);
      add(groupRows(`tokenizer ratio ${ratio} (vLLM), 16k, told 200k`, group, false));
    }
    for (const s of SERVERS) {
      for (const told of [TOLD, s.real]) {
        const group: MismatchRun[] = [];
        for (const file of files) group.push(await replayMismatch(file, s.real, told, s.flavour));
        runs.push(...group);
        add(groupRows(`${s.label}, skein told ${told === TOLD ? '200k' : 'the truth'}`, group, s.flavour === 'ollama'));
      }
    }
    return { rows, details: { runs } };
  },
};
