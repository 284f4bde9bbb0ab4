// One model call as the agent makes it: the answer's text streams to the
// session's subscribers as ephemeral delta frames, and a transient failure
// (429, 5xx, overloaded, timeout) is retried with exponential backoff, each
// retry shown in the timeline. After the last retry the error goes up: the
// agent records it and waits for the user.
import type { DeltaFrame } from '../../shared/protocol.js';
import { sentence } from '../../shared/sentence.js';
import { ProviderError, type LlmRequest, type LlmResponse, type Provider } from '../llm/types.js';

export interface RetryPolicy {
  /** Retries after the first attempt (0: none). */
  max: number;
  /** Delay before the first retry; it doubles with each one. */
  baseMs: number;
}

/** A provider's retry-after is honoured up to this; longer waits fail the turn (the user can try again). */
export const MAX_DELAY_MS = 60_000;

export interface CallHooks {
  /** The log's last seq when the request was sent: deltas carry it so the UI knows where they belong. */
  afterSeq: number;
  /** Sends an ephemeral frame to the session's subscribers (not logged). */
  broadcast(frame: DeltaFrame): void;
  /** Records that a retry is coming (a visible event). */
  retrying(message: string): void;
}

export function backoffMs(retry: number, policy: RetryPolicy, retryAfterMs?: number): number {
  const exponential = policy.baseMs * 2 ** (retry - 1);
  // A little jitter so that many sessions hitting one rate limit do not retry in step.
  const jittered = exponential * (0.9 + Math.random() * 0.2);
  return Math.round(Math.min(MAX_DELAY_MS, Math.max(jittered, retryAfterMs ?? 0)));
}

export async function callModel(provider: Provider, request: LlmRequest, signal: AbortSignal, policy: RetryPolicy, hooks: CallHooks): Promise<LlmResponse> {
  for (let attempt = 0; ; attempt++) {
    let index = 0;
    let thinkingIndex = 0;
    const onText = (text: string) => hooks.broadcast({ type: 'delta', afterSeq: hooks.afterSeq, attempt, index: index++, text });
    // The readable thinking streams on its own channel (and its own count), shown above the answer.
    const onThinking = (text: string) => hooks.broadcast({ type: 'delta', afterSeq: hooks.afterSeq, attempt, index: thinkingIndex++, text, channel: 'thinking' });
    try {
      const response = await provider.complete(request, signal, { onText, onThinking });
      // The SDKs' streams end quietly when aborted mid-answer: a partial answer is never taken for a finished one.
      signal.throwIfAborted();
      return response;
    } catch (err) {
      if (signal.aborted || !(err instanceof ProviderError) || !err.retryable || attempt >= policy.max) throw err;
      const delay = backoffMs(attempt + 1, policy, err.retryAfterMs);
      const status = err.status !== undefined ? ` (${err.status})` : '';
      hooks.retrying(`${provider.model}${status}: ${sentence(err.message)} Retrying in ${formatDelay(delay)} (retry ${attempt + 1} of ${policy.max}).`);
      await sleep(delay, signal);
    }
  }
}

function formatDelay(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason instanceof Error ? signal.reason : new DOMException('aborted', 'AbortError'));
    const done = () => {
      clearTimeout(timer);
      reject(signal.reason instanceof Error ? signal.reason : new DOMException('aborted', 'AbortError'));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', done);
      resolve();
    }, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
