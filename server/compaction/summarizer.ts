// Talks to the summariser: the structured prompt (a text file beside this
// one), chunking when the input would not fit the summariser's own window, a
// deadline, and a check that refuses empty or suspicious output.
import fs from 'node:fs';
import type { Usage, ViewMessage } from '../../shared/protocol.js';
import { requestTokens, tokensOf } from '../llm/tokens.js';
import type { LlmRequest, Provider } from '../llm/types.js';

export const SUMMARY_PROMPT = fs.readFileSync(new URL('./summary-prompt.md', import.meta.url), 'utf8');
/** Room kept free in the summariser's window for framing the estimate does not see. */
const MARGIN_TOKENS = 256;

export class SummariserError extends Error {}

export interface SummariseOptions {
  summariser: Provider;
  focus?: string;
  maxOutputTokens: number;
  timeoutMs: number;
  signal: AbortSignal;
}

/**
 * Summarises `previous` (an earlier summary, may be '') plus transcript parts.
 * When they do not fit the summariser's window at once, they are summarised in
 * chunks, each chunk's summary becoming the previous summary of the next.
 */
export async function summarise(previous: string, parts: string[], options: SummariseOptions): Promise<{ text: string; usage: Usage; chunks: number }> {
  const { summariser } = options;
  const maxOutput = Math.max(128, Math.min(options.maxOutputTokens, summariser.limits.maxOutputTokens));
  const budget = summariser.limits.contextWindow - maxOutput - tokensOf(SUMMARY_PROMPT) - tokensOf(options.focus ?? '') - MARGIN_TOKENS;
  if (budget < 512) throw new SummariserError(`the summariser's window (${summariser.limits.contextWindow} tokens) is too small to summarise anything`);
  const usage: Usage = { input: 0, cacheRead: 0, cacheWrite: 0, output: 0, costUsd: 0 };
  let running = previous;
  let chunks = 0;
  let pending = parts.map((p) => clipToTokens(p, Math.floor(budget / 2)));
  while (pending.length || chunks === 0) {
    const room = budget - tokensOf(running) - 16;
    const chunk: string[] = [];
    let used = 0;
    while (pending.length && (chunk.length === 0 || used + tokensOf(pending[0]!) <= room)) {
      used += tokensOf(pending[0]!);
      chunk.push(pending.shift()!);
    }
    const input = transcriptInput(running, chunk);
    const response = await withDeadline(options, (signal) => summariser.complete(request(input, options.focus, maxOutput), signal));
    for (const k of ['input', 'cacheRead', 'cacheWrite', 'output', 'costUsd'] as const) usage[k] += response.usage[k];
    const problem = suspicious(response.text, input);
    if (problem) throw new SummariserError(problem);
    running = response.text.trim();
    chunks++;
    if (!pending.length) break;
  }
  return { text: running, usage, chunks };
}

/** The first words of a summary request that asks about the conversation above it (see summariseInPlace). */
export const IN_PLACE_OPEN = '<compaction-request>';

/**
 * A summary request that is the conversation itself (system prompt, tools and
 * every message up to the end of the span being folded) followed by one user
 * message asking for the summary. Its prefix is the prefix the last request
 * sent, so a provider's prompt cache serves it at the cached-input price: the
 * summariser reads the folded history for a tenth of what a separate
 * transcript costs (Codex and Claude Code ask for their summaries the same
 * way). Only for the session's own model: another model has no such cache.
 * The span always starts right after the first user message (plan.ts).
 */
export function inPlaceRequest(base: Pick<LlmRequest, 'system' | 'tools'>, prefix: readonly ViewMessage[], focus: string | undefined, maxOutputTokens: number): LlmRequest {
  const focusLine = focus ? `\n\nThe user asked the summary to focus on: ${focus}` : '';
  const ask =
    `${IN_PLACE_OPEN}\nThe conversation above is being compacted. Do not call any tools: answer with the summary only. ` +
    'Summarise every message after the first user message (the task, which stays in the context) up to this one; ' +
    `a <compacted-history> message among them is the earlier summary: carry it forward (its ledger is kept apart, leave it out).${focusLine}\n\n${SUMMARY_PROMPT}`;
  return { ...base, messages: [...prefix, { role: 'user', content: ask }], maxOutputTokens, purpose: 'summary' };
}

/** Whether `request` fits the summariser's window with `ratio` (provider tokens per counted token) and the answer's room. */
export function fitsSummariser(request: LlmRequest, summariser: Provider, ratio: number): boolean {
  return Math.ceil(requestTokens(request) * ratio) + request.maxOutputTokens + MARGIN_TOKENS <= summariser.limits.contextWindow;
}

/** One in-place summary request (see inPlaceRequest); the same deadline and checks as summarise. */
export async function summariseInPlace(request: LlmRequest, options: Omit<SummariseOptions, 'maxOutputTokens' | 'focus'>): Promise<{ text: string; usage: Usage; chunks: number }> {
  const response = await withDeadline(options, (signal) => options.summariser.complete(request, signal));
  if (response.toolCalls.length && !response.text.trim()) throw new SummariserError('the summariser called a tool instead of writing the summary');
  const folded = request.messages.slice(1, -1).map((m) => m.content + (m.toolCalls ? JSON.stringify(m.toolCalls) : '')).join('\n');
  const problem = suspicious(response.text, folded);
  if (problem) throw new SummariserError(problem);
  return { text: response.text.trim(), usage: response.usage, chunks: 1 };
}

function transcriptInput(previous: string, parts: string[]): string {
  const head = previous ? `<previous-summary>\n${previous.replace(/^<previous-summary>\n|\n<\/previous-summary>$/g, '')}\n</previous-summary>\n` : '';
  return `${head}<transcript>\n${parts.join('\n')}\n</transcript>`;
}

function request(input: string, focus: string | undefined, maxOutputTokens: number): LlmRequest {
  const focusLine = focus ? `\n\nThe user asked the summary to focus on: ${focus}` : '';
  return { system: SUMMARY_PROMPT, messages: [{ role: 'user', content: input + focusLine }], tools: [], maxOutputTokens, purpose: 'summary' };
}

async function withDeadline<T>(options: Pick<SummariseOptions, 'timeoutMs' | 'signal'>, run: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const timeout = AbortSignal.timeout(options.timeoutMs);
  try {
    return await run(AbortSignal.any([options.signal, timeout]));
  } catch (err) {
    if (options.signal.aborted) throw err; // the user cancelled: not a summariser failure
    if (timeout.aborted) throw new SummariserError(`the summariser did not answer within ${options.timeoutMs} ms`);
    throw new SummariserError(err instanceof Error ? err.message : String(err));
  }
}

/** A summary that is empty, longer than what it summarises, or an error message is not used. */
export function suspicious(text: string, input: string): string | undefined {
  const t = text.trim();
  if (!t) return 'the summariser returned an empty summary';
  if (t.length > input.length) return 'the summary was longer than the history it summarised';
  if (/^(error|exception|traceback|i'm sorry|i cannot|i can't|as an ai)\b/i.test(t) || /^\{"error"/.test(t)) {
    return `the summariser returned an error text: ${t.slice(0, 120)}`;
  }
  return undefined;
}

function clipToTokens(text: string, maxTokens: number): string {
  if (tokensOf(text) <= maxTokens) return text;
  const chars = maxTokens * 3;
  return `${text.slice(0, chars / 2)}\n[... clipped to fit the summariser ...]\n${text.slice(-chars / 2)}`;
}
