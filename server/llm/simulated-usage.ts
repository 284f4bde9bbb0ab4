// Usage for the offline models (predictable, replay): real token counts of
// the request, split the way a provider cache with a breakpoint on the latest
// turn would report them.
import { messageTokens, tokensOf, toolsTokens } from './tokens.js';
import type { LlmRequest } from './types.js';

/**
 * How many recent requests' prefixes stay readable. A provider's cache holds
 * many prefixes at once: a summary request with its own prompt in between
 * does not evict the conversation's prefix (a summary request that starts
 * with the conversation reads it).
 */
const REMEMBERED_PREFIXES = 4;

export class SimulatedCache {
  /** Keys of the last few requests' elements (system+tools, then each message), newest last. */
  private previous: Key[][] = [];

  /** The longest prefix shared with a recent request is a cache read, the rest a write, the newest message uncached. */
  usage(request: LlmRequest): { input: number; cacheRead: number; cacheWrite: number } {
    const elements = cacheElements(request);
    let common = 0;
    for (const earlier of this.previous) {
      let n = 0;
      while (n < elements.length && sameKey(elements[n]!.key, earlier[n])) n++;
      common = Math.max(common, n);
    }
    this.previous = [...this.previous, elements.map((e) => e.key)].slice(-REMEMBERED_PREFIXES);
    const last = elements.length - 1;
    let cacheRead = 0;
    let cacheWrite = 0;
    for (let i = 0; i < last; i++) {
      if (i < common) cacheRead += elements[i]!.tokens;
      else cacheWrite += elements[i]!.tokens;
    }
    return { input: elements[last]!.tokens, cacheRead, cacheWrite };
  }
}

/** Input tokens of a request, counted the way SimulatedCache splits them (equals requestTokens). */
export function simulatedInputTokens(request: LlmRequest): number {
  return cacheElements(request).reduce((n, e) => n + e.tokens, 0);
}

/** Parts compared one by one: message texts are the log's own strings, so equal ones compare by pointer. */
type Key = readonly (string | undefined)[];

function sameKey(a: Key, b: Key | undefined): boolean {
  return b !== undefined && a.length === b.length && a.every((part, i) => part === b[i]);
}

function cacheElements(request: LlmRequest): { key: Key; tokens: number }[] {
  const head = {
    key: [request.system, request.tools.map((t) => t.name).join(',')],
    tokens: 4 + tokensOf(request.system) + toolsTokens(request.tools),
  };
  const messages = request.messages.map((m) => ({
    key: [m.role, m.content, m.toolCallId, m.toolCalls ? JSON.stringify(m.toolCalls) : undefined],
    tokens: messageTokens(m),
  }));
  return [head, ...messages];
}
