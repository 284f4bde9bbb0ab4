// One compaction: choose the span to fold (whole groups only, never the first
// user message), summarise it with the LLM, fall back to the deterministic
// ledger when the summariser fails, and report the numbers.
import fs from 'node:fs';
import type { CompactionTrigger, Usage } from '../../shared/protocol.js';
import { messageTokens, requestTokens } from '../llm/tokens.js';
import { isAbortError, type LlmRequest, type Provider } from '../llm/types.js';
import { groupMessages } from './groups.js';
import { ledgerSummary } from './ledger.js';
import { renderTranscript } from './transcript.js';
import { plain, summaryMessage, type SourcedMessage } from './view.js';

const SUMMARY_PROMPT = fs.readFileSync(new URL('./summary-prompt.md', import.meta.url), 'utf8');
/** Recent groups kept verbatim at most; the rest of the budget goes to the summary. */
const MAX_KEPT_GROUPS = 4;
const SUMMARY_MAX_TOKENS = 2048;

export interface CompactionInput {
  messages: SourcedMessage[];
  /** The fixed part of every request (system prompt, tools). */
  base: Pick<LlmRequest, 'system' | 'tools'>;
  summariser: Provider;
  contextWindow: number;
  targetRatio: number;
  trigger: CompactionTrigger;
  instructions?: string;
  signal: AbortSignal;
}

export interface CompactionOutcome {
  strategy: 'summarize' | 'fallback' | 'none';
  summary: string;
  coversSeq?: [number, number];
  tokensBefore: number;
  tokensAfter: number;
  messagesBefore: number;
  messagesAfter: number;
  /** Why the summariser's text was not used, when strategy is fallback. */
  error?: string;
  summariserUsage?: Usage;
}

/** Index of the first message that may be folded: everything up to the first user message is pinned. */
function firstFoldable(messages: readonly SourcedMessage[]): number {
  const firstUser = messages.findIndex((m) => m.role === 'user');
  return firstUser + 1;
}

/** How many messages (from the first foldable one) to fold, keeping recent groups within budget. */
export function planFold(messages: readonly SourcedMessage[], keepBudgetTokens: number): number {
  const from = firstFoldable(messages);
  const groups = groupMessages(messages, from);
  let kept = 0;
  let keptTokens = 0;
  while (kept < groups.length && kept < MAX_KEPT_GROUPS) {
    const group = groups[groups.length - 1 - kept]!;
    const tokens = group.messages.reduce((n, m) => n + messageTokens(m), 0);
    if (keptTokens + tokens > keepBudgetTokens) break;
    keptTokens += tokens;
    kept++;
  }
  const foldGroups = groups.length - kept;
  if (foldGroups === 0) return 0;
  let end = groups[foldGroups]?.start ?? messages.length;
  // A kept message older than the folded span (a user message typed during a
  // tool call) is folded too, so that the span stays a clean seq range.
  let maxSeq = Math.max(...messages.slice(from, end).map((m) => m.seq));
  while (end < messages.length && messages[end]!.seq <= maxSeq) {
    const group = groups.find((g) => g.start === end);
    const size = group ? group.messages.length : 1;
    for (const m of messages.slice(end, end + size)) maxSeq = Math.max(maxSeq, m.seq);
    end += size;
  }
  return end - from;
}

export async function compact(input: CompactionInput): Promise<CompactionOutcome> {
  const { messages, base, contextWindow } = input;
  const tokensBefore = requestTokens({ ...base, messages: plain(messages) });
  const fixed = requestTokens({ ...base, messages: [] });
  const from = firstFoldable(messages);
  const pinnedTokens = messages.slice(0, from).reduce((n, m) => n + messageTokens(m), 0);
  // Three quarters of what the target leaves go to kept recent groups, the rest to the summary.
  const free = input.targetRatio * contextWindow - fixed - pinnedTokens;
  const count = planFold(messages, Math.max(0, free * 0.75));
  const nothing = {
    strategy: 'none' as const,
    summary: 'Nothing to fold: the conversation is only the first message and the most recent steps.',
    tokensBefore,
    tokensAfter: tokensBefore,
    messagesBefore: messages.length,
    messagesAfter: messages.length,
  };
  if (count === 0) return nothing;

  const folded = messages.slice(from, from + count);
  const coversSeq: [number, number] = [Math.min(...folded.map((m) => m.seq)), Math.max(...folded.map((m) => m.seq))];
  const transcript = renderTranscript(plain(folded));
  let summary: string;
  let strategy: CompactionOutcome['strategy'] = 'summarize';
  let error: string | undefined;
  let summariserUsage: Usage | undefined;
  try {
    const response = await input.summariser.complete(
      summaryRequest(transcript, input.instructions, input.summariser.limits.maxOutputTokens),
      input.signal,
    );
    summariserUsage = response.usage;
    const problem = suspicious(response.text, transcript);
    if (problem) throw new Error(problem);
    summary = response.text.trim();
  } catch (err) {
    if (isAbortError(err) || input.signal.aborted) throw err;
    strategy = 'fallback';
    error = err instanceof Error ? err.message : String(err);
    summary = ledgerSummary(plain(folded));
  }
  const after = [...messages.slice(0, from), summaryMessage(summary, coversSeq[0]), ...messages.slice(from + count)];
  return {
    strategy,
    summary,
    coversSeq,
    tokensBefore,
    tokensAfter: requestTokens({ ...base, messages: plain(after) }),
    messagesBefore: messages.length,
    messagesAfter: after.length,
    ...(error !== undefined && { error }),
    ...(summariserUsage && { summariserUsage }),
  };
}

function summaryRequest(transcript: string, focus: string | undefined, maxOutput: number): LlmRequest {
  const focusLine = focus ? `\n\nThe user asked the summary to focus on: ${focus}` : '';
  return {
    system: SUMMARY_PROMPT,
    messages: [{ role: 'user', content: `<transcript>\n${transcript}\n</transcript>${focusLine}` }],
    tools: [],
    maxOutputTokens: Math.min(SUMMARY_MAX_TOKENS, maxOutput),
    purpose: 'summary',
  };
}

/** A summary that is empty, longer than what it summarises, or an error message is not used. */
function suspicious(text: string, transcript: string): string | undefined {
  const t = text.trim();
  if (!t) return 'the summariser returned an empty summary';
  if (t.length > transcript.length) return 'the summary was longer than the history it summarised';
  if (/^(error|exception|traceback|i'm sorry|i cannot|as an ai)\b/i.test(t)) return `the summariser returned an error text: ${t.slice(0, 120)}`;
  return undefined;
}
