// Paged history: `GET /api/sessions/:id/events?since=N` (everything after N, as
// before), `?since=N&limit=K` (the first K after N) and `?before=S&limit=K`
// (the last K before S: a client shows the tail first and pages back).
import type { SkeinEvent } from '../../shared/protocol.js';

export const MAX_PAGE = 5000;

export type PageQuery = { since: number; limit?: number } | { before: number; limit: number };

export interface Page {
  events: SkeinEvent[];
  /** Earlier events exist before the first one returned (before=...), or later ones after the last (since=...&limit). */
  more: boolean;
}

function integer(raw: unknown, name: string, min: number, max: number): number | string | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || !/^\d{1,15}$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    return `"${name}" must be an integer from ${min} to ${max}`;
  }
  return Number(raw);
}

/** Reads the query; a string is the error to answer with 400. */
export function parsePageQuery(query: Record<string, unknown>): PageQuery | string {
  const since = integer(query.since, 'since', 0, Number.MAX_SAFE_INTEGER);
  const before = integer(query.before, 'before', 1, Number.MAX_SAFE_INTEGER);
  const limit = integer(query.limit, 'limit', 1, MAX_PAGE);
  for (const v of [since, before, limit]) if (typeof v === 'string') return v;
  if (since !== undefined && before !== undefined) return 'give "since" or "before", not both';
  if (before !== undefined) return { before: before as number, limit: (limit as number | undefined) ?? 200 };
  return { since: (since as number | undefined) ?? 0, ...(limit !== undefined && { limit: limit as number }) };
}

/** One page of `events` (durable events, in seq order). */
export function pageOf(events: readonly SkeinEvent[], query: PageQuery): Page {
  if ('before' in query) {
    const end = lowerBound(events, query.before);
    const start = Math.max(0, end - query.limit);
    return { events: events.slice(start, end), more: start > 0 };
  }
  const start = lowerBound(events, query.since + 1);
  const end = query.limit === undefined ? events.length : Math.min(events.length, start + query.limit);
  return { events: events.slice(start, end), more: end < events.length };
}

/** Index of the first event whose seq is >= seq (seqs increase). */
function lowerBound(events: readonly SkeinEvent[], seq: number): number {
  let lo = 0;
  let hi = events.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (events[mid]!.seq < seq) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
