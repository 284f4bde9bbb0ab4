// OpenAI's (and OpenAI-compatible servers') failures as the agent's errors (see provider-errors.ts).
// The SDK keeps only a body's `error` key: the raw body (kept by the provider's
// fetch, raw-body.ts) is read too, so a refusal in any family's shape is seen.
import { APIError as OpenAIAPIError, APIConnectionError, APIConnectionTimeoutError } from 'openai';
import { parseRefusal } from '../limits/refusal.js';
import { ContextOverflowError, isAbortError, ProviderError } from '../types.js';
import { asError, imagesRefused, retryableStatus, retryAfterMs, transport } from './common.js';
import { overflowText, readErrorBody, type ErrorBody } from './dialects.js';
import { rawBodyOf } from './raw-body.js';

export function fromOpenAIError(err: unknown, signal: AbortSignal): Error {
  if (signal.aborted || isAbortError(err)) return err as Error;
  const failed = transport(err, { Timeout: APIConnectionTimeoutError, Connection: APIConnectionError });
  if (failed) return failed;
  if (!(err instanceof OpenAIAPIError)) return asError(err);
  const body = bodyOf(err);
  const tooLong = overflowText(err.status, body);
  // llama.cpp names the numbers beside its text: n_ctx and n_prompt_tokens.
  if (tooLong !== undefined) return new ContextOverflowError(tooLong, parseRefusal(body.texts.join(' | '), body.fields));
  const text = body.texts[0] ?? err.message;
  const noImages = imagesRefused(text, err.status);
  if (noImages) return noImages;
  const retryable = err.status === undefined ? /server_error|overloaded|rate_limit|timeout/i.test(`${err.type ?? ''} ${err.code ?? ''}`) : retryableStatus(err.status);
  return new ProviderError(text, err.status, retryable, retryAfterMs(err.headers));
}

/** What the SDK kept (`error`, code, type) and the raw body the fetch kept, read together. */
function bodyOf(err: InstanceType<typeof OpenAIAPIError>): ErrorBody {
  const raw = readErrorBody(rawBodyOf(err.headers));
  const kept = readErrorBody(err.error === undefined ? undefined : JSON.stringify({ error: err.error }));
  const codes = [...(typeof err.code === 'string' ? [err.code] : []), ...(typeof err.type === 'string' ? [err.type] : []), ...kept.codes, ...raw.codes];
  return { texts: [...new Set([...kept.texts, ...raw.texts])], codes, fields: { ...raw.fields, ...kept.fields } };
}
