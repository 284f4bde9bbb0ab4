// Mismatch against llama.cpp's own llama-server (issue 38): the window is
// 2,048 or 8,192 tokens (-c), the tokenizer a real one (Qwen2, Llama 3 BPE,
// Llama SentencePiece) in a tiny random-weight model that never ends its
// answers (the `endless` model), and skein is told 200k (SKEIN_CONTEXT_WINDOW)
// or the truth. Each row is one real multi-turn session: the user pastes
// files, then asks short questions, so the context fills from both sides.
// A recording proxy (llama-proxy.ts) notes what the server answered; the
// counts (mismatch-llama-count.ts) are overflows that reached the user,
// answers cut without a word in the timeline, and turns whose message was
// folded while being answered.
import fs from 'node:fs';
import { loadConfig } from '../../server/config.js';
import { tokensOf } from '../../server/llm/tokens.js';
import { startServer } from '../../server/server.js';
import type { SkeinEvent } from '../../shared/protocol.js';
import { rememberToken } from '../helpers/auth.js';
import { ensureTinyModel, startLlamaServer, type Vocab } from '../helpers/llama-server.js';
import { api, tempDir } from '../helpers/server.js';
import { startRecordingProxy, type Exchange } from './llama-proxy.js';
import { countLlama, type LlamaCounts } from './mismatch-llama-count.js';
import type { BenchRow, BenchSection } from './types.js';

const TOLD = 200_000;
const VOCABS: Vocab[] = ['qwen2', 'llama-bpe', 'llama-spm'];
const WINDOWS = [2_048, 8_192];
/** A turn that has not ended after this long is given up (the row says so): the section must end. */
const TURN_MS = 5 * 60_000;
/** After TURN_MS, how long the proxy is watched to tell a server still writing from a stuck turn. */
const WATCH_MS = 15_000;
/**
 * SKEIN_MAX_OUTPUT_TOKENS at n_ctx 8,192 (SKEIN_BENCH_LLAMA_MAX_ANSWER; 0: none). The endless model writes every answer
 * to its max_tokens, a turn asks up to 1 + 3 continuations, and at 8,192 that is 2,048 (or, told 200k, 4,096) tokens
 * each: measured 20 to 26 tokens a second with 2,500 tokens of prompt on the shared 2-core machine at load 18 (170
 * idle, 2,048 window), so one turn took more than 5 minutes with skein only waiting. Bounded answers keep a turn short;
 * the window, the refusals and the cuts at n_ctx are the server's as before.
 */
const MAX_ANSWER_8K = Number(process.env.SKEIN_BENCH_LLAMA_MAX_ANSWER ?? 256);

/** Text to paste: skein's own docs, so the sessions are the same on every machine. */
const CORPUS = ['compaction.md', 'providers.md', 'architecture.md', 'tools.md'].map((f) => fs.readFileSync(new URL(`../../docs/${f}`, import.meta.url), 'utf8')).join('\n\n');

/** About `tokens` of skein's count from the corpus, starting at `from` characters. */
function paste(tokens: number, from: number): string {
  let chars = tokens * 4;
  let text = CORPUS.slice(from, from + chars);
  while (tokensOf(text) > tokens && chars > 100) text = CORPUS.slice(from, from + (chars = Math.floor(chars * 0.9)));
  return text;
}

/**
 * The user's side of a session in a window of `w` tokens: a first message with
 * a file (a sixth of the window), two more files (a quarter each), then two
 * short messages, the shortest kind that defect 1 folded (at 8,192: a first
 * file of five sixteenths, one more of a quarter, and one short message).
 */
export function script(w: number): string[] {
  const file = (name: string, share: number, from: number) => `Here is ${name}; read it, I will ask about it.\n\n\`\`\`markdown\n${paste(Math.round(w * share), from)}\n\`\`\``;
  // At 8,192 answers are bounded (MAX_ANSWER_8K) and cost tens of seconds on a shared CPU: three turns. Told 200k, skein
  // never compacts, and the second file with the answers runs the context into n_ctx.
  if (w > 4_096) return [file('docs/compaction.md', 5 / 16, 0), file('the next part', 1 / 4, 20_000), 'run bash: ls'];
  return [file('docs/compaction.md', 1 / 6, 0), file('the next part', 1 / 4, 20_000), file('one more part', 1 / 4, 45_000), 'run bash: ls', 'Which of those parts talks about the window?'];
}

export interface LlamaRun extends LlamaCounts {
  vocab: Vocab;
  window: number;
  told: number;
  /** A turn that did not end within TURN_MS, or a failure of the run itself. */
  failure?: string;
  ms: number;
  exchanges: Exchange[];
  /** error events' codes, in order (for the details file). */
  errors: string[];
  /** Every finished compaction with the user message before it: to check the folded-turn count by hand. */
  compactionLog: { seq: number; trigger: string; strategy?: string; coversSeq?: [number, number]; lastUser?: number }[];
}

function compactionLog(events: readonly SkeinEvent[]): LlamaRun['compactionLog'] {
  let lastUser: number | undefined;
  const out: LlamaRun['compactionLog'] = [];
  for (const e of events) {
    if (e.kind === 'user') lastUser = e.seq;
    if (e.kind === 'compaction' && e.phase === 'finished') out.push({ seq: e.seq, trigger: e.trigger, ...(e.strategy && { strategy: e.strategy }), ...(e.coversSeq && { coversSeq: e.coversSeq }), ...(lastUser !== undefined && { lastUser }) });
  }
  return out;
}

async function runSession(vocab: Vocab, window: number, told: number, llamaUrl: string): Promise<LlamaRun> {
  const started = Date.now();
  const proxy = await startRecordingProxy(llamaUrl);
  const config = loadConfig([], {
    SKEIN_PORT: '0',
    SKEIN_DATA_DIR: tempDir('bench-llama-data'),
    SKEIN_WORKDIR: tempDir('bench-llama-work'),
    SKEIN_MODEL: 'openai:local-model',
    OPENAI_BASE_URL: `${proxy.url}/v1`,
    SKEIN_CONTEXT_WINDOW: String(told),
    ...(window > 4_096 && MAX_ANSWER_8K > 0 && { SKEIN_MAX_OUTPUT_TOKENS: String(MAX_ANSWER_8K) }),
  });
  const server = await startServer(config);
  rememberToken(server.url, server.token);
  let failure: string | undefined;
  let events: readonly SkeinEvent[] = [];
  try {
    const { body } = await api<{ id: string }>(server.url, '/api/sessions', { body: {} });
    const live = server.sessions.get(body.id)!;
    for (const text of script(window)) {
      const sent = await api<{ error?: string }>(server.url, `/api/sessions/${body.id}/messages`, { body: { text } });
      if (sent.status >= 300) {
        failure = `message refused: ${sent.status} ${sent.body.error ?? ''}`;
        break;
      }
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), TURN_MS)));
      const idle = await Promise.race([live.agent.whenIdle().then(() => 'idle' as const), late]);
      clearTimeout(timer);
      if (idle === 'late') {
        // Slow or stuck: does the server still write the answer?
        const before = proxy.streamed();
        await new Promise((resolve) => setTimeout(resolve, WATCH_MS));
        const pieces = proxy.streamed() - before;
        failure = `a turn did not end within ${TURN_MS / 60_000} min (${pieces ? `the server was still writing: ${pieces} pieces of answer in ${WATCH_MS / 1000} s` : `nothing streamed for ${WATCH_MS / 1000} s`})`;
        break;
      }
    }
    events = live.session.log.all();
  } catch (e) {
    failure = e instanceof Error ? e.message : String(e);
  } finally {
    await server.close();
    await proxy.close();
  }
  if (process.env.SKEIN_BENCH_DEBUG) for (const e of events) if (e.kind !== 'state' && e.kind !== 'usage') console.log('DBG', JSON.stringify(e).slice(0, 300));
  return {
    vocab,
    window,
    told,
    ...countLlama(events, proxy.exchanges, window),
    ...(failure && { failure }),
    ms: Date.now() - started,
    exchanges: proxy.exchanges,
    errors: events.flatMap((e) => (e.kind === 'error' ? [e.code ?? 'error'] : [])),
    compactionLog: compactionLog(events),
  };
}

function rows(r: LlamaRun): BenchRow[] {
  const label = `llama-server ${r.vocab}, n_ctx ${r.window.toLocaleString('en-US')}, skein told ${r.told === TOLD ? '200k' : 'the truth'}`;
  const bad = r.userOverflows + r.cutsUnnamed + r.foldedTurns;
  return [
    {
      bench: 'mismatch',
      measure: `${label}: overflows reaching the user / answers cut without a word / turns whose message was folded while being answered`,
      value: `${r.userOverflows} / ${r.cutsUnnamed} / ${r.foldedTurns}${r.failure ? ` (run failed: ${r.failure})` : ''}`,
      goal: '0 / 0 / 0',
      met: bad === 0 && !r.failure,
    },
    {
      bench: 'mismatch',
      measure: `${label}: turns / compactions / server refusals / answers cut (of which the context was full; dropped by skein) / summaries cut / seconds`,
      value: `${r.turns} / ${r.compactions} / ${r.refusals} / ${r.cuts} (${r.cutsContextFull}; ${r.cutsDropped}) / ${r.summaryCuts} / ${(r.ms / 1000).toFixed(0)}${r.window > 4_096 && MAX_ANSWER_8K > 0 ? ` (answers at most ${MAX_ANSWER_8K} tokens)` : ''}`,
    },
  ];
}

export const section: BenchSection = {
  name: 'mismatch-llama',
  async run() {
    // SKEIN_BENCH_LLAMA_VOCABS (qwen2,llama-bpe,llama-spm) and SKEIN_BENCH_LLAMA_WINDOWS (2048,8192): a part, for a quick run.
    const vocabs = (process.env.SKEIN_BENCH_LLAMA_VOCABS?.split(',').filter(Boolean) as Vocab[] | undefined) ?? VOCABS;
    const windows = process.env.SKEIN_BENCH_LLAMA_WINDOWS?.split(',').map(Number).filter(Boolean) ?? WINDOWS;
    const runs: LlamaRun[] = [];
    const out: BenchRow[] = [];
    for (const window of windows) {
      for (const vocab of vocabs) {
        // Sampling from the plain distribution (no top-k sort over the vocabulary) writes the same kind of random
        // text 2 to 3 times faster here; what the server accepts, refuses and reports does not depend on it.
        const llama = await startLlamaServer({ model: await ensureTinyModel({ vocab, endless: true }), ctxSize: window, extraArgs: ['--samplers', 'dist'] });
        try {
          for (const told of [TOLD, window]) {
            const run = await runSession(vocab, window, told, llama.url);
            runs.push(run);
            for (const row of rows(run)) {
              out.push(row);
              process.stderr.write(`mismatch-llama row: ${row.measure} = ${row.value}${row.met === undefined ? '' : row.met ? ' (met)' : ' (NOT met)'}\n`);
            }
          }
        } finally {
          await llama.close();
        }
      }
    }
    return { rows: out, details: { runs } };
  },
};
