// The compaction pipeline: small strategies run in order, cheapest first. Each
// looks at the draft view and either leaves it or returns a smaller one; the
// pipeline stops as soon as the view is at or below the target.
import type { CompactionTrigger, Ledger, ProviderCompaction, Usage } from '../../shared/protocol.js';
import { requestTokens } from '../llm/tokens.js';
import type { LlmRequest, Provider, ProviderCompactor } from '../llm/types.js';
import { plain, type SourcedMessage } from './view.js';

export interface CompactionContext {
  /** The fixed part of every request (system prompt, tools): never changed by compaction. */
  base: Pick<LlmRequest, 'system' | 'tools'>;
  contextWindow: number;
  /** The window in the pipeline's own count (the provider's window over the estimator's ratio); contextWindow when absent. */
  windowTokens?: number;
  /** The view should end at or below this many tokens. */
  targetTokens: number;
  summariser: Provider;
  summariserTimeoutMs: number;
  /** The session's own model, when its API compacts a conversation itself (provider_compact). */
  compactor?: ProviderCompactor;
  trigger: CompactionTrigger;
  /**
   * Set when the summariser is the session's own model: the view as the model
   * last read it and the estimator's ratio (provider tokens per counted
   * token), so the summary can be asked for in place and read the cached
   * prefix (summarizer.ts, inPlaceRequest).
   */
  inPlace?: { view: readonly SourcedMessage[]; ratio: number };
  /** Focus text from `/compact focus` or compact_history. */
  instructions?: string;
  /** compact_history: recent groups to keep verbatim. */
  preserveRecentGroups?: number;
  /** Asked for by someone (manual, agent, model switch): fold even when already under target. */
  force: boolean;
  /** The circuit breaker is open: do not call the summariser, use the deterministic path. */
  skipSummariser: boolean;
  /**
   * Overflow recovery after a refused retry: 1 folds deterministically with a
   * smaller kept tail, 2 also clears every old tool result and keeps no
   * recent group. Absent: the normal pipeline.
   */
  level?: number;
  signal: AbortSignal;
}

/** The view as the strategies reshape it, and what to record about it. */
export interface Draft {
  messages: SourcedMessage[];
  tokens: number;
  strategies: string[];
  clearedThroughSeq?: number;
  /** The cleared results' placeholders list the identifiers their outputs held. */
  clearedIndex?: boolean;
  clearedResults?: number;
  clearedChars?: number;
  fold?: { coversSeq: [number, number]; keptSeqs?: number[]; summary: string; ledger: Ledger; provider?: ProviderCompaction };
  /** Why the LLM summary was not used. */
  summariserError?: string;
  /** Why the provider's own compaction was not used (skein's strategies went on). */
  providerError?: string;
  summariserUsage?: Usage;
}

export interface CompactionStrategy {
  readonly name: string;
  shouldRun(draft: Draft, ctx: CompactionContext): boolean;
  run(draft: Draft, ctx: CompactionContext): Promise<Draft>;
  /**
   * Optional: asks for a compaction before a request even when no token
   * trigger fired (a condenser that counts events, say). Checked at every
   * safe point before a request when no token trigger fired; the strategy
   * then runs alone (trigger `strategy`) and must make progress.
   * `thresholdTokens`: where the token trigger fires, in counted tokens of
   * the messages (the fixed part taken off).
   */
  due?(view: readonly SourcedMessage[], thresholdTokens: number): boolean;
}

export interface CompactionResult {
  strategy: string;
  strategies: string[];
  summary: string;
  ledger?: Ledger;
  coversSeq?: [number, number];
  /** Events inside coversSeq kept verbatim after the summary. */
  keptSeqs?: number[];
  clearedThroughSeq?: number;
  clearedIndex?: boolean;
  tokensBefore: number;
  tokensAfter: number;
  messagesBefore: number;
  messagesAfter: number;
  /** Set when the summariser failed and the deterministic fallback was used. */
  error?: string;
  summariserUsage?: Usage;
  /** provider_compact: the provider's own compaction of the span. */
  provider?: ProviderCompaction;
  /** provider_compact was tried and failed: why (skein's own strategies compacted instead). */
  providerError?: string;
}

export function measure(messages: SourcedMessage[], ctx: Pick<CompactionContext, 'base'>): number {
  return requestTokens({ ...ctx.base, messages: plain(messages) });
}

export function overTarget(draft: Draft, ctx: CompactionContext): boolean {
  return draft.tokens > ctx.targetTokens;
}

export async function runPipeline(strategies: readonly CompactionStrategy[], messages: SourcedMessage[], ctx: CompactionContext): Promise<CompactionResult> {
  const tokensBefore = measure(messages, ctx);
  let draft: Draft = { messages, tokens: tokensBefore, strategies: [] };
  for (const strategy of strategies) {
    if (!strategy.shouldRun(draft, ctx)) continue;
    const next = await strategy.run(draft, ctx);
    // A strategy counts when it changed the view; a fold that would grow the view is not taken.
    if (next.messages !== draft.messages && next.tokens < draft.tokens) draft = { ...next, strategies: [...draft.strategies, strategy.name] };
    else draft = { ...draft, ...pick(next, draft) };
  }
  return {
    strategy: draft.strategies.at(-1) ?? 'none',
    strategies: draft.strategies,
    summary: describe(draft),
    ...(draft.fold && { ledger: draft.fold.ledger, coversSeq: draft.fold.coversSeq }),
    ...(draft.fold?.keptSeqs && { keptSeqs: draft.fold.keptSeqs }),
    ...(draft.fold?.provider && { provider: draft.fold.provider }),
    ...(draft.providerError !== undefined && { providerError: draft.providerError }),
    ...(draft.clearedThroughSeq !== undefined && { clearedThroughSeq: draft.clearedThroughSeq }),
    ...(draft.clearedThroughSeq !== undefined && draft.clearedIndex && { clearedIndex: true }),
    tokensBefore,
    tokensAfter: draft.tokens,
    messagesBefore: messages.length,
    messagesAfter: draft.messages.length,
    ...(draft.summariserError !== undefined && draft.fold && { error: draft.summariserError }),
    ...(draft.summariserUsage && { summariserUsage: draft.summariserUsage }),
  };
}

/** What a strategy that did not change the view still reports: its summariser's error and cost. */
function pick(next: Draft, draft: Draft): Partial<Draft> {
  return {
    ...(next.summariserError !== undefined && { summariserError: next.summariserError }),
    ...(next.providerError !== undefined && { providerError: next.providerError }),
    ...(next.summariserUsage && next.summariserUsage !== draft.summariserUsage && { summariserUsage: next.summariserUsage }),
  };
}

/** A finished compaction always has a non-empty summary. */
function describe(draft: Draft): string {
  if (draft.fold) return draft.fold.summary;
  if (draft.clearedResults) {
    return `Cleared ${draft.clearedResults} old tool result${draft.clearedResults === 1 ? '' : 's'} (${(draft.clearedChars ?? 0).toLocaleString('en-US')} characters) from the model's view; no summary was needed.`;
  }
  return 'Nothing to fold yet: all that is left is what the model reads now (the first message, the message being answered and its latest step); no summary was made.';
}
