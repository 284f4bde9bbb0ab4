// Goose's tool-pair summarisation (block/goose), on by default beside its
// auto-compaction, emulated on skein's strategy interface:
// - crates/goose/src/context_mgmt/mod.rs, compute_tool_call_cutoff: the cutoff
//   is (window x compaction threshold) / 10,000, clamped to [10, 500]
//   (GOOSE_TOOL_CALL_CUTOFF unset); maybe_summarize_tool_pairs: a batch of
//   max(cutoff / 5, 3); tool_ids_to_summarize: the oldest agent-visible calls
//   past the cutoff, never the calls of the current turn (protect_last_n);
//   summarize_tool_call: each pair (call and response, whole) summarised alone
//   by complete_fast (the fast model) into one "[Historical tool call summary]"
//   message, the pair made agent-invisible;
// - crates/goose/src/agents/agent.rs, reply_internal: the current turn is every
//   call since the reply began (pre_turn_tool_count), i.e. since the latest
//   user message; the summaries computed during a request are applied after it
//   (here: before the next request).
// Where the emulation differs: Goose appends the summaries after the newest
// messages; here they stand in the pairs' place (one summary message carries
// them all, in order), and a pair whose summary is longer than the pair stays.
import { STATUS_NOTE_OPEN, type Usage } from '../../../shared/protocol.js';
import { emptyLedger } from '../../../server/compaction/ledger.js';
import { measure, type CompactionStrategy, type Draft } from '../../../server/compaction/pipeline.js';
import { firstFoldable } from '../../../server/compaction/plan.js';
import { coveredRange, isSummaryMessage, summaryMessage, type SourcedMessage } from '../../../server/compaction/view.js';
import type { LlmRequest } from '../../../server/llm/types.js';

/** compute_tool_call_cutoff: effective budget (window x threshold) / 10,000, clamped to [10, 500]. */
export function gooseToolCallCutoff(window: number, threshold: number): number {
  return Math.min(500, Math.max(10, Math.floor(Math.floor(window * threshold) / 10_000)));
}

/** maybe_summarize_tool_pairs: "Batch size is 20% of cutoff (min 3)". */
export function gooseBatchSize(cutoff: number): number {
  return Math.max(3, Math.floor(cutoff / 5));
}

/** Goose's framing of a pair's summary (summarize_tool_call's prompt asks every reply to start with it). */
export const PAIR_SUMMARY_PREFIX = '[Historical tool call summary]';
const PAIR_PROMPT = `Summarise this tool call and its response in one short message saying what happened, to save tokens. Start the reply with "${PAIR_SUMMARY_PREFIX}".`;

/** A user message that starts a turn (a real one or a harness notice; not a summary, not skein's own note). */
function startsTurn(m: SourcedMessage): boolean {
  return m.role === 'user' && !isSummaryMessage(m) && !m.content.startsWith(STATUS_NOTE_OPEN);
}

/** tool_ids_to_summarize: the oldest calls past `cutoff` (at most `batch`), the current turn's protected. */
export function toolPairsToSummarise(view: readonly SourcedMessage[], cutoff: number, batch: number): string[] {
  const calls = view.flatMap((m) => (m.role === 'assistant' ? (m.toolCalls ?? []).map((c) => c.id) : []));
  const turnStart = view.findLastIndex(startsTurn);
  const current = view.slice(turnStart + 1).flatMap((m) => (m.role === 'assistant' ? (m.toolCalls ?? []) : [])).length;
  const eligible = calls.length - current;
  if (calls.length <= cutoff || eligible <= cutoff) return [];
  return calls.slice(0, Math.min(eligible - cutoff, batch));
}

function pairRequest(call: SourcedMessage, result: SourcedMessage | undefined, maxOutputTokens: number): LlmRequest {
  const calls = (call.toolCalls ?? []).map((c) => `tool_request(${c.name}): ${JSON.stringify(c.input)}`).join('\n');
  const text = `[assistant]: ${[call.content, calls].filter(Boolean).join('\n')}\n[user]: tool_response: ${result?.content ?? ''}`;
  return { system: PAIR_PROMPT, messages: [{ role: 'user', content: text }], tools: [], maxOutputTokens, purpose: 'summary' };
}

function addUsage(a: Usage | undefined, b: Usage): Usage {
  return a ? { ...a, input: a.input + b.input, output: a.output + b.output, cacheRead: a.cacheRead + b.cacheRead, cacheWrite: a.cacheWrite + b.cacheWrite, costUsd: a.costUsd + b.costUsd } : b;
}

/** Runs before a request (its own trigger, `due`), as Goose's background task does each turn. */
export function gooseToolPairs(window: number, threshold: number): CompactionStrategy {
  const cutoff = gooseToolCallCutoff(window, threshold);
  const batch = gooseBatchSize(cutoff);
  return {
    name: 'goose_tool_pairs',
    due: (view) => toolPairsToSummarise(view, cutoff, batch).length > 0,
    // Only on its own trigger: when the 80% threshold fires, Goose compacts the whole conversation instead.
    shouldRun: (draft, ctx) => ctx.trigger === 'strategy' && toolPairsToSummarise(draft.messages, cutoff, batch).length > 0,
    async run(draft, ctx): Promise<Draft> {
      const ids = new Set(toolPairsToSummarise(draft.messages, cutoff, batch));
      const from = firstFoldable(draft.messages);
      const isPair = (m: SourcedMessage) => (m.role === 'assistant' && (m.toolCalls ?? []).some((c) => ids.has(c.id))) || (m.role === 'tool' && ids.has(m.toolCallId ?? ''));
      const end = draft.messages.findLastIndex(isPair) + 1;
      if (end <= from) return draft;
      const span = draft.messages.slice(from, end);
      // An earlier summary at the start of the span is carried (its text first); the pairs become summaries; the rest stays.
      const earlier = span[0]?.summaryOf ? span[0].summaryOf.summary : undefined;
      const texts: string[] = earlier ? [earlier] : [];
      let usage: Usage | undefined;
      const results = new Map(span.filter((m) => m.role === 'tool').map((m) => [m.toolCallId, m]));
      for (const m of span) {
        if (m.role !== 'assistant' || !isPair(m)) continue;
        const response = await ctx.summariser.complete(pairRequest(m, results.get(m.toolCalls![0]!.id), Math.min(2048, ctx.summariser.limits.maxOutputTokens)), ctx.signal);
        texts.push(response.text.startsWith(PAIR_SUMMARY_PREFIX) ? response.text : `${PAIR_SUMMARY_PREFIX} ${response.text}`);
        usage = addUsage(usage, response.usage);
      }
      const kept = span.filter((m) => !m.summaryOf && !isPair(m));
      const coversSeq = coveredRange(span);
      const summary = texts.join('\n');
      const keptSeqs = kept.map((m) => m.seq);
      const messages = [...draft.messages.slice(0, from), summaryMessage(summary, undefined, coversSeq, keptSeqs), ...kept, ...draft.messages.slice(end)];
      return { ...draft, messages, tokens: measure(messages, ctx), fold: { coversSeq, keptSeqs, summary, ledger: emptyLedger() }, ...(usage && { summariserUsage: usage }) };
    },
  };
}
