// Anthropic's failures as the agent's errors (see provider-errors.ts).
import { APIError as AnthropicAPIError, APIConnectionError, APIConnectionTimeoutError } from '@anthropic-ai/sdk';
import { ContextOverflowError, isAbortError, ProviderError } from '../types.js';
import { asError, retryableStatus, retryAfterMs, transport } from './common.js';
import { overflowText, readErrorBody } from './dialects.js';
import { rawBodyOf } from './raw-body.js';

/** Anthropic: "prompt is too long: N tokens > M maximum" and "input length and `max_tokens` exceed context limit: ...". */
const ANTHROPIC_TOO_LONG = /prompt is too long|exceed context limit|context window/i;

export function fromAnthropicError(err: unknown, signal: AbortSignal): Error {
  if (signal.aborted || isAbortError(err)) return err as Error;
  const failed = transport(err, { Timeout: APIConnectionTimeoutError, Connection: APIConnectionError });
  if (failed) return failed;
  if (!(err instanceof AnthropicAPIError)) return asError(err);
  const raw = readErrorBody(rawBodyOf(err.headers));
  const text = err.apiMessage ?? raw.texts[0] ?? err.message;
  if ((err.status === 400 && ANTHROPIC_TOO_LONG.test(text)) || err.status === 413) return new ContextOverflowError(text);
  // A proxy in front of Anthropic (LiteLLM, OpenRouter) answers in its own shape.
  const tooLong = overflowText(err.status, raw);
  if (tooLong !== undefined) return new ContextOverflowError(tooLong);
  // An `error` event in the middle of a stream has no status, only its type.
  const retryable = err.status === undefined ? /overloaded|api_error|rate_limit|timeout/.test(err.type ?? '') : retryableStatus(err.status);
  const type = err.type ? `${err.type}: ` : '';
  return new ProviderError(`${type}${text}`, err.status ?? statusOfType(err.type), retryable, retryAfterMs(err.headers));
}

function statusOfType(type: string | null | undefined): number | undefined {
  return type === 'overloaded_error' ? 529 : type === 'api_error' ? 500 : type === 'rate_limit_error' ? 429 : undefined;
}

