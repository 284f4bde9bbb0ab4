// What the peer emulations share: one summary request over a span of the view
// (the same deterministic summariser for every policy, the replay model's),
// and the draft in which a summary message replaces that span.
import { STATUS_NOTE_OPEN, type Usage } from '../../../shared/protocol.js';
import { measure, type CompactionContext, type CompactionStrategy, type Draft } from '../../../server/compaction/pipeline.js';
import { fitsSummariser, inPlaceRequest, SUMMARY_PROMPT } from '../../../server/compaction/summarizer.js';
import { renderTranscript } from '../../../server/compaction/transcript.js';
import { coveredRange, isSummaryMessage, plain, summaryMessage, type SourcedMessage } from '../../../server/compaction/view.js';
import { emptyLedger } from '../../../server/compaction/ledger.js';
import { firstFoldable } from '../../../server/compaction/plan.js';
import { requestTokens } from '../../../server/llm/tokens.js';
import type { LlmRequest } from '../../../server/llm/types.js';
import type { Policy } from '../policies.js';

/** The session model's max output (the replay model's, as the server sends it). */
export const MAX_OUTPUT = 8192;

/** How much of a tool output a peer's summariser reads: all of it (their sources send outputs whole). */
export const PEER_SUMMARY_OUTPUT_CHARS = Infinity;

function summaryRequest(parts: string[], maxOutputTokens: number): LlmRequest {
  return { system: SUMMARY_PROMPT, messages: [{ role: 'user', content: `<transcript>\n${parts.join('\n')}\n</transcript>` }], tools: [], maxOutputTokens, purpose: 'summary' };
}

/** Goose's middle-out retries of a summary request that does not fit (do_compact): the share of tool responses removed. */
export const MIDDLE_OUT_SHARES = [0.1, 0.2, 0.5, 1];

/** `folded` with `share` of its tool outputs (the middle ones first) replaced by a note. */
export function withoutToolOutputs(folded: readonly SourcedMessage[], share: number): SourcedMessage[] {
  const tools = folded.flatMap((m, i) => (m.role === 'tool' ? [i] : []));
  const middle = (tools.length - 1) / 2;
  const removed = new Set([...tools].sort((a, b) => Math.abs(tools.indexOf(a) - middle) - Math.abs(tools.indexOf(b) - middle)).slice(0, Math.ceil(share * tools.length)));
  return folded.map((m, i) => (removed.has(i) ? ({ ...m, content: '[tool response removed]' } as SourcedMessage) : m));
}

/**
 * One summary request over `folded` (an earlier summary in it is carried as
 * <previous-summary>, i.e. incremental). `dropOldest`: when the request does
 * not fit the summariser's window, drop the oldest part and try again (Codex);
 * otherwise the request goes out as it is and may be refused.
 */
export async function summariseSpan(folded: readonly SourcedMessage[], ctx: CompactionContext, maxOutputTokens: number, dropOldest = false): Promise<{ text: string; usage: Usage }> {
  // The peers' summarisers read tool outputs whole (Goose's compaction.md gets the conversation as it is, OpenHands'
  // condenser formats each event whole, OpenCode's summary request carries the messages): not skein's 2,000-character cut.
  const maxOut = Math.min(maxOutputTokens, ctx.summariser.limits.maxOutputTokens);
  const fits = (r: LlmRequest) => requestTokens(r) + maxOut <= ctx.summariser.limits.contextWindow;
  let parts = renderTranscript(folded, PEER_SUMMARY_OUTPUT_CHARS);
  let request = summaryRequest(parts, maxOut);
  // Checking the size first gives the same result as sending, being refused and retrying.
  while (dropOldest && parts.length > 1 && !fits(request)) {
    parts.shift();
    request = summaryRequest(parts, maxOut);
  }
  // Whole outputs that do not fit: Goose's do_compact retries with 10, 20, 50, then 100% of the tool responses
  // removed from the middle out; the others' sources say nothing of this case, so the same retry stands in for them.
  for (const share of MIDDLE_OUT_SHARES) {
    if (dropOldest || fits(request)) break;
    parts = renderTranscript(withoutToolOutputs(folded, share), PEER_SUMMARY_OUTPUT_CHARS);
    request = summaryRequest(parts, maxOut);
  }
  const response = await ctx.summariser.complete(request, ctx.signal);
  return { text: response.text, usage: response.usage };
}

/**
 * The summary asked for at the end of the conversation itself (the messages
 * up to `end` as the model last read them, then the request), so the prompt
 * cache serves them: Codex sends its compaction prompt after the history
 * (codex-rs/core/src/codex/compact.rs), Claude Code forks the conversation
 * with its cache-safe parameters. When that does not fit the summariser,
 * `summariseSpan` over a transcript of the same span.
 */
export async function summariseInPlace(draft: Draft, ctx: CompactionContext, end: number, maxOutputTokens: number, dropOldest = false): Promise<{ text: string; usage: Usage }> {
  const maxOut = Math.min(maxOutputTokens, ctx.summariser.limits.maxOutputTokens);
  if (ctx.inPlace && ctx.inPlace.view.length === draft.messages.length) {
    const request = inPlaceRequest(ctx.base, plain(ctx.inPlace.view.slice(0, end)), undefined, maxOut);
    if (fitsSummariser(request, ctx.summariser, ctx.inPlace.ratio)) {
      const response = await ctx.summariser.complete(request, ctx.signal);
      return { text: response.text, usage: response.usage };
    }
  }
  return summariseSpan(draft.messages.slice(firstFoldable(draft.messages), end), ctx, maxOutputTokens, dropOldest);
}

/** The draft in which one summary message stands for messages[from, end). */
export function replaceSpan(draft: Draft, ctx: CompactionContext, from: number, end: number, summary: string, usage: Usage): Draft {
  const folded = draft.messages.slice(from, end);
  const coversSeq = coveredRange(folded);
  const messages = [...draft.messages.slice(0, from), summaryMessage(summary, undefined, coversSeq), ...draft.messages.slice(end)];
  return { ...draft, messages, tokens: measure(messages, ctx), fold: { coversSeq, summary, ledger: emptyLedger() }, summariserUsage: usage };
}

/** Runs `inner` only while the view is at or above `tokens`. */
export function whenAtLeast(tokens: number, inner: CompactionStrategy): CompactionStrategy {
  return { name: inner.name, shouldRun: (draft, ctx) => draft.tokens >= tokens && inner.shouldRun(draft, ctx), run: (draft, ctx) => inner.run(draft, ctx) };
}

/** Index of the group boundary at or before `index` (never before `from`). */
export function boundaryAtOrBefore(messages: readonly SourcedMessage[], from: number, index: number): number {
  let i = Math.max(from, Math.min(index, messages.length));
  // A tool result belongs to the assistant message before it: move back to that message.
  while (i > from && i < messages.length && messages[i]!.role === 'tool') i--;
  return i;
}

/** Threshold share of the window for a token count (skein's trigger setting). */
export function ratioEnv(tokens: number, window: number, preflight: boolean): Policy['env'] {
  return { SKEIN_COMPACT_THRESHOLD_RATIO: String(Math.min(1, Math.max(0.01, tokens / window))), SKEIN_COMPACT_PREFLIGHT: preflight ? 'on' : 'off' };
}

/** A policy whose rules depend on the window. */
export type PolicyFor = (window: number) => Policy;

/** A user message kept verbatim inside a summary (read back by the next compaction). */
export function userBlock(text: string): string {
  return `<user_message>\n${text}\n</user_message>`;
}

/** Real user messages of the span; those an earlier compaction kept verbatim are read back from its text. */
export function collectUserMessages(folded: readonly SourcedMessage[]): string[] {
  const out: string[] = [];
  for (const m of folded) {
    if (m.summaryOf) {
      for (const match of m.summaryOf.summary.matchAll(/<user_message>\n([\s\S]*?)\n<\/user_message>/g)) out.push(match[1]!);
    } else if (m.role === 'user' && !isSummaryMessage(m) && !m.content.startsWith(STATUS_NOTE_OPEN)) {
      out.push(m.content);
    }
  }
  return out;
}


/**
 * A peer's own cut of a long tool result, in characters (head and tail kept;
 * the policy sets resultCap: true).
 * skein's cap of one result at 20% of the window applies with it: at 32k that
 * is the smaller one, a help the peer does not have.
 */
export function outputCap(chars: number): Policy['env'] {
  return { SKEIN_TOOL_OUTPUT_LIMIT: String(chars) };
}

/** A cut that keeps the head and the tail of an output longer than `chars` (the shape most tools use). */
export function headTailCut(chars: number, note = (total: number) => `[… ${total - chars} characters cut …]`): (output: string) => string {
  return (output) => (output.length <= chars ? output : `${output.slice(0, chars / 2)}\n${note(output.length)}\n${output.slice(-chars / 2)}`);
}
