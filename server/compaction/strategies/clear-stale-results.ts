// Strategy 0, no LLM, with its own trigger: tool results older than the last
// `keep` tool groups are cleared (clear_tool_results' placeholder) below the
// token threshold, as soon as clearing them pays for itself in the prompt
// cache. A stale result is read again, at the cache-read price, by every later
// request until a fold replaces it; clearing it rewrites everything after it
// once, at the cache-write price. So results are cleared in batches, only when
// the batch is large against the rewrite it causes. Nothing is lost: the
// placeholder names the call and its event, and search_history reads the
// output back.
import { messageTokens } from '../../llm/tokens.js';
import { groupMessages } from '../groups.js';
import type { CompactionStrategy } from '../pipeline.js';
import { firstFoldable, tokensOfMessages } from '../plan.js';
import { CLEARABLE_CHARS, type SourcedMessage } from '../view.js';
import { clearToolResults } from './clear-tool-results.js';

/** Prices relative to uncached input (Anthropic's cache; OpenAI's and Gemini's reads cost about the same, their writes less). */
const CACHE_READ = 0.1;
const CACHE_WRITE = 1.25;
/**
 * A batch must pay back its rewrite within this many requests: a short
 * horizon, so that a session that ends soon after does not pay for a rewrite
 * it never earns back, and batches are few and large.
 */
export const PAYBACK_REQUESTS = 10;
/** A smaller batch is not worth a compaction event (about 8,000 characters). */
export const MIN_BATCH_TOKENS = 2000;

export interface StaleBatch {
  /** Tokens of the results that would be cleared. */
  cleared: number;
  /** Tokens after the first of them that stay, and would be written to the cache again. */
  rewritten: number;
  /** Requests until the view reaches the token threshold at its recent pace (a fold then replaces the results anyway). */
  requestsToFold: number;
}

/**
 * What clearing the stale results of `view` now would clear and rewrite;
 * undefined when nothing is clearable, or too little to make a batch (under
 * MIN_BATCH_TOKENS characters). `thresholdTokens`: where the token
 * trigger fires, in counted tokens of the messages.
 */
export function staleBatch(view: readonly SourcedMessage[], keep: number, thresholdTokens = Infinity): StaleBatch | undefined {
  const from = firstFoldable(view);
  const toolGroups = groupMessages(view, from).filter((g) => g.messages.some((m) => m.role === 'tool'));
  const old = toolGroups.slice(0, Math.max(0, toolGroups.length - keep)).flatMap((g) => g.messages);
  // The same results clear_tool_results would clear.
  const clearable = new Set(old.filter((m) => m.role === 'tool' && m.clearedChars === undefined && m.content.length > CLEARABLE_CHARS));
  if (!clearable.size) return undefined;
  // A token is at least a character (plus a message's framing): too few characters, no need to count.
  if ([...clearable].reduce((n, m) => n + m.content.length + 4, 0) < MIN_BATCH_TOKENS) return undefined;
  let cleared = 0;
  let rewritten = 0;
  for (const m of view.slice(view.findIndex((m) => clearable.has(m)))) {
    if (clearable.has(m)) cleared += messageTokens(m);
    else rewritten += messageTokens(m);
  }
  // The pace: tokens added per answer since the last fold (or the start).
  const since = view.slice(Math.max(from, view.findLastIndex((m) => m.summaryOf !== undefined) + 1));
  const answers = since.filter((m) => m.role === 'assistant').length;
  const pace = answers ? tokensOfMessages(since) / answers : 0;
  const room = Math.max(0, thresholdTokens - tokensOfMessages(view));
  return { cleared, rewritten, requestsToFold: pace > 0 ? room / pace : Infinity };
}

/**
 * Each later request saves the cleared tokens' cache reads, until the
 * payback horizon or the next fold, whichever comes first; the rewrite costs
 * the rest of the suffix at the write price instead of the read price, once.
 */
export function worthClearing(batch: StaleBatch | undefined): boolean {
  if (!batch || batch.cleared < MIN_BATCH_TOKENS) return false;
  const requests = Math.min(PAYBACK_REQUESTS, batch.requestsToFold);
  return batch.cleared * CACHE_READ * requests >= batch.rewritten * (CACHE_WRITE - CACHE_READ);
}

export function clearStaleResults(keepToolGroups = 3): CompactionStrategy {
  // The latest results are never stale: the model has not read them yet (even with SKEIN_COMPACT_KEEP_TOOL_RESULTS=0).
  const keep = Math.max(1, keepToolGroups);
  const clear = clearToolResults(keep);
  return {
    name: 'clear_stale_results',
    due: (view, thresholdTokens) => worthClearing(staleBatch(view, keep, thresholdTokens)),
    // Only on its own trigger (due said so just now); at a token threshold clear_tool_results clears the same results.
    shouldRun: (draft, ctx) => ctx.trigger === 'strategy' && staleBatch(draft.messages, keep) !== undefined,
    // clear_tool_results' run clears exactly the results staleBatch counted (never overflow recovery's all).
    run: (draft, ctx) => clear.run(draft, { ...ctx, level: 0 }),
  };
}
