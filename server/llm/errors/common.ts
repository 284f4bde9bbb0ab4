// What every provider's error mapping shares (no SDK is imported here: each
// provider's mapping, in its own file, is loaded with that provider's SDK).
import { ProviderError } from '../types.js';

/** 408 timeout, 409 conflict (lock), 429 rate limit, 5xx and 529 overloaded: worth another try. */
export function retryableStatus(status: number | undefined): boolean {
  return status === 408 || status === 409 || status === 429 || (status !== undefined && status >= 500);
}

/** `retry-after-ms`, or `retry-after` in seconds or as an HTTP date. */
export function retryAfterMs(headers: { get(name: string): string | null } | undefined, now = Date.now()): number | undefined {
  const ms = Number(headers?.get('retry-after-ms'));
  if (Number.isFinite(ms) && ms > 0) return ms;
  const raw = headers?.get('retry-after');
  if (!raw) return undefined;
  const seconds = Number(raw);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(raw);
  return Number.isFinite(date) ? Math.max(0, date - now) : undefined;
}

/** An SDK's classes for a request that timed out and for a failed connection. */
export interface TransportErrors {
  Timeout: abstract new (...args: never[]) => Error;
  Connection: abstract new (...args: never[]) => Error;
}

/** Not an API answer at all: timed out, or the connection failed. */
export function transport(err: unknown, sdk?: TransportErrors): ProviderError | undefined {
  if ((sdk && err instanceof sdk.Timeout) || (err instanceof Error && err.name === 'TimeoutError')) {
    return new ProviderError('the request timed out', undefined, true);
  }
  if (sdk && err instanceof sdk.Connection) {
    return new ProviderError(`connection failed: ${(err as Error).message}`, undefined, true);
  }
  if (err instanceof TypeError && /fetch failed|network|socket|ECONN/i.test(`${err.message} ${String(err.cause ?? '')}`)) {
    return new ProviderError(`connection failed: ${err.message}`, undefined, true);
  }
  // A body or stream event that is not JSON: the provider (or a proxy) sent something broken; ask again.
  if (err instanceof SyntaxError) return new ProviderError(`malformed response from the provider: ${err.message}`, undefined, true);
  return undefined;
}

export function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

/** How servers say a model reads no images (llama.cpp without its projector, Ollama and vLLM on a text-only model). */
const NO_IMAGES = /image input is not supported|does not support (images|image input|vision)|not a multimodal model|mmproj|vision is not supported/i;

/**
 * A refusal of the images themselves is not worth a retry (llama.cpp says it with a 500): it is
 * said as what it is, and that nothing is lost. Undefined for any other error.
 */
export function imagesRefused(text: string, status: number | undefined): ProviderError | undefined {
  if (!NO_IMAGES.test(text)) return undefined;
  return new ProviderError(
    `this model cannot read images (the server said: ${text}). Your message and its images are kept in the session: ` +
      'switch to a model that reads images (/model), or send the text again without them.',
    status,
    false,
  );
}
