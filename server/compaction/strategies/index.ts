// The default pipeline, cheapest first. To add a strategy, write an object
// with shouldRun(draft, ctx) / run(draft, ctx) and put it in this list.
import type { CompactionStrategy } from '../pipeline.js';
import { clearToolResults } from './clear-tool-results.js';
import { deterministicFallback } from './fallback.js';
import { summarize } from './summarize.js';

export const DEFAULT_TOOL_RESULTS_KEPT = 3;

export function defaultStrategies(keepToolResults = DEFAULT_TOOL_RESULTS_KEPT): CompactionStrategy[] {
  return [clearToolResults(keepToolResults), summarize(), deterministicFallback()];
}

export { clearToolResults, deterministicFallback, summarize };
