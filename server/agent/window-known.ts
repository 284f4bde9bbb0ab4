// What is known about a session's limits: comparing what was said, and the
// session's provider as its own summariser with the limits learned so far.
import type { LimitsEvent } from '../../shared/protocol.js';
import type { KnownLimits } from '../llm/limits/cache.js';
import type { ModelLimits, Provider } from '../llm/types.js';

/** A limits event of a failed ask that may be answered later (older logs: the fallback's "asked the provider: ..." without the flag). */
export function wasUnanswered(e: LimitsEvent): boolean {
  return e.unanswered === true || (e.source === 'table' && e.reported === undefined && e.via.startsWith('asked the provider: '));
}

/** The session's provider as its own summariser: same calls, the limits learned so far (the summariser chunks against them). */
export function withLimits(provider: Provider, limits: ModelLimits): Provider {
  return {
    model: provider.model,
    limits: { contextWindow: limits.contextWindow, maxOutputTokens: limits.maxOutputTokens },
    complete: (request, signal, stream) => provider.complete(request, signal, stream),
  };
}

/** The same answer as before: nothing new to say. */
export function sameLimits(a: KnownLimits, b: KnownLimits): boolean {
  return a.contextWindow === b.contextWindow && a.maxOutputTokens === b.maxOutputTokens && a.source === b.source && a.via === b.via;
}

/** A window learned from a refusal stands while the server says what it said before refusing (it claims more than it serves). */
export function refusalStands(prior: KnownLimits | LimitsEvent | undefined, said: number | undefined): prior is KnownLimits {
  return prior?.source === 'refusal' && said !== undefined && prior.reported?.contextWindow === said;
}
