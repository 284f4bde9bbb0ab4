// The default pipeline, cheapest first. To add a strategy, write an object
// with shouldRun(draft, ctx) / run(draft, ctx) and put it in this list.
import type { CompactionStrategy } from '../pipeline.js';
import { clearStaleResults } from './clear-stale-results.js';
import { clearToolResults } from './clear-tool-results.js';
import { deterministicFallback } from './fallback.js';
import { providerCompact } from './provider-compact.js';
import { summarize } from './summarize.js';

export const DEFAULT_TOOL_RESULTS_KEPT = 3;

/**
 * `provider`: SKEIN_COMPACT_PROVIDER=on puts provider_compact before skein's own summary (it falls through when the provider cannot).
 * `clearStale` (default on, SKEIN_COMPACT_CLEAR_STALE): clear_stale_results, with its own trigger, first.
 */
export function defaultStrategies(keepToolResults = DEFAULT_TOOL_RESULTS_KEPT, options: { provider?: boolean; clearStale?: boolean } = {}): CompactionStrategy[] {
  return [...(options.clearStale !== false ? [clearStaleResults(keepToolResults)] : []), clearToolResults(keepToolResults), ...(options.provider ? [providerCompact()] : []), summarize(), deterministicFallback()];
}

export { clearStaleResults, clearToolResults, deterministicFallback, providerCompact, summarize };
