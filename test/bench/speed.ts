// Deterministic compaction speed on 10,000 messages with tool calls: skein's
// tool-result clearing + fold to a token budget (no LLM) vs @langchain/core
// trimMessages (strategy "last", same budget, a memoised per-message counter)
// and vs ai's pruneMessages (structural only). All results are checked to keep
// every tool call with its result.
import { performance } from 'node:perf_hooks';
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, trimMessages, type BaseMessage } from '@langchain/core/messages';
import { pruneMessages, type ModelMessage } from 'ai';
import { countTokens } from 'gpt-tokenizer';
import type { ViewMessage } from '../../shared/protocol.js';
import { runPipeline } from '../../server/compaction/pipeline.js';
import { clearToolResults, deterministicFallback } from '../../server/compaction/strategies/index.js';
import { plain, type SourcedMessage } from '../../server/compaction/view.js';
import { PredictableProvider } from '../../server/llm/predictable.js';
import { checkInvariants } from '../helpers/invariants.js';
import { longRecording } from './long-recording.js';
import { fmt, median, type BenchSection } from './types.js';

const MESSAGES = 10_000;
const BUDGET = 100_000;
const RUNS = 5;

function messages(): ViewMessage[] {
  const all = longRecording(Math.ceil(MESSAGES / 3000) + 1);
  // Cut after a tool result, so no call is left open.
  let end = MESSAGES;
  while (all[end - 1]!.role !== 'tool') end--;
  return all.slice(1, end); // without the system message (it goes in `base`)
}

function toLangChain(view: ViewMessage[], system: string): BaseMessage[] {
  return [
    new SystemMessage(system),
    ...view.map((m) =>
      m.role === 'user'
        ? new HumanMessage(m.content)
        : m.role === 'assistant'
          ? new AIMessage({ content: m.content, tool_calls: (m.toolCalls ?? []).map((c) => ({ id: c.id, name: c.name, args: c.input, type: 'tool_call' as const })) })
          : new ToolMessage({ content: m.content, tool_call_id: m.toolCallId! }),
    ),
  ];
}

function toAi(view: ViewMessage[]): ModelMessage[] {
  return view.map((m): ModelMessage =>
    m.role === 'user'
      ? { role: 'user', content: m.content }
      : m.role === 'assistant'
        ? { role: 'assistant', content: [{ type: 'text', text: m.content }, ...(m.toolCalls ?? []).map((c) => ({ type: 'tool-call' as const, toolCallId: c.id, toolName: c.name, input: c.input }))] }
        : { role: 'tool', content: [{ type: 'tool-result', toolCallId: m.toolCallId!, toolName: 'bash', output: { type: 'text', value: m.content } }] },
  );
}

/** Every tool call has its result and every result its call (per library's own shape). */
function pairsIntact(calls: string[], results: string[]): boolean {
  const a = new Set(calls);
  const b = new Set(results);
  return calls.every((id) => b.has(id)) && results.every((id) => a.has(id));
}

export const section: BenchSection = {
  name: 'compaction speed',
  async run() {
    const view = messages();
    const system = 'You are a coding agent.';
    const sourced: SourcedMessage[] = view.map((m, i) => ({ ...m, seq: i + 1 }));
    const ctx = {
      base: { system, tools: [] },
      contextWindow: 2 * BUDGET,
      targetTokens: BUDGET,
      summariser: new PredictableProvider({ contextWindow: 8000, maxOutputTokens: 1024 }),
      summariserTimeoutMs: 1000,
      trigger: 'threshold' as const,
      force: false,
      skipSummariser: true,
      signal: new AbortController().signal,
    };
    const skein = () => runPipeline([clearToolResults(3), deterministicFallback()], sourced, ctx);

    const lc = toLangChain(view, system);
    const memo = new WeakMap<BaseMessage, number>();
    const count = (m: BaseMessage) => {
      let n = memo.get(m);
      if (n === undefined) {
        n = countTokens(typeof m.content === 'string' ? m.content : JSON.stringify(m.content)) + 4 + ('tool_calls' in m && (m as AIMessage).tool_calls?.length ? countTokens(JSON.stringify((m as AIMessage).tool_calls)) : 0);
        memo.set(m, n);
      }
      return n;
    };
    const langchain = () => trimMessages(lc, { maxTokens: BUDGET, strategy: 'last', tokenCounter: (ms: BaseMessage[]) => ms.reduce((s, m) => s + count(m), 0), includeSystem: true, startOn: 'human' });

    const ai = toAi(view);
    const vercel = () => pruneMessages({ messages: ai, toolCalls: 'before-last-6-messages', emptyMessages: 'remove' });

    // Warm both memos (token counts of the same texts), then time interleaved runs.
    const skeinResult = await skein();
    const lcResult = await langchain();
    const aiResult = vercel();
    const times = { skein: [] as number[], langchain: [] as number[], ai: [] as number[] };
    for (let i = 0; i < RUNS; i++) {
      let t = performance.now();
      await skein();
      times.skein.push(performance.now() - t);
      t = performance.now();
      await langchain();
      times.langchain.push(performance.now() - t);
      t = performance.now();
      vercel();
      times.ai.push(performance.now() - t);
    }
    // Tool pairs intact in every result.
    const after = [...sourced];
    const { applyCompaction } = await import('../../server/compaction/view.js');
    applyCompaction(after, skeinResult, new Map(view.flatMap((m) => m.toolCalls ?? []).map((c) => [c.id, c])));
    const skeinOk = checkInvariants([], plain(after)).filter((p) => p.startsWith('tool')).length === 0;
    const lcOk = pairsIntact(lcResult.flatMap((m) => ((m as AIMessage).tool_calls ?? []).map((c) => c.id!)), lcResult.filter((m) => m instanceof ToolMessage).map((m) => (m as ToolMessage).tool_call_id));
    const aiOk = pairsIntact(
      aiResult.flatMap((m) => (m.role === 'assistant' && Array.isArray(m.content) ? m.content.flatMap((p) => (p.type === 'tool-call' ? [p.toolCallId] : [])) : [])),
      aiResult.flatMap((m) => (m.role === 'tool' ? m.content.flatMap((p) => (p.type === 'tool-result' ? [p.toolCallId] : [])) : [])),
    );
    const s = median(times.skein);
    const l = median(times.langchain);
    const a = median(times.ai);
    return {
      rows: [
        { bench: 'speed', measure: `${view.length.toLocaleString('en-US')} messages to ${BUDGET.toLocaleString('en-US')} tokens: skein / trimMessages / pruneMessages (median of ${RUNS})`, value: `${fmt(s)} ms / ${fmt(l)} ms / ${fmt(a)} ms` },
        { bench: 'speed', measure: 'trimMessages / skein', value: `${(l / s).toFixed(1)}x`, goal: '>= 10x faster than trimMessages', met: l / s >= 10 },
        { bench: 'speed', measure: 'tool pairs intact: skein / trimMessages / pruneMessages', value: `${skeinOk ? 'yes' : 'NO'} / ${lcOk ? 'yes' : 'NO'} / ${aiOk ? 'yes' : 'NO'}`, goal: 'all intact', met: skeinOk && lcOk && aiOk },
      ],
      details: {
        messages: view.length,
        budget: BUDGET,
        times,
        results: { skein: { messages: skeinResult.messagesAfter, tokens: skeinResult.tokensAfter, strategies: skeinResult.strategies }, langchain: { messages: lcResult.length }, ai: { messages: aiResult.length } },
      },
    };
  },
};
