// OpenAI's (and OpenAI-compatible servers') failures as the agent's errors (see provider-errors.ts).
import { APIError as OpenAIAPIError, APIConnectionError, APIConnectionTimeoutError } from 'openai';
import { parseRefusal } from '../limits/refusal.js';
import { ContextOverflowError, isAbortError, ProviderError } from '../types.js';
import { asError, retryableStatus, retryAfterMs, transport } from './common.js';

/** OpenAI's code, llama.cpp's type, and the wording of vLLM, LM Studio and other compatible servers. */
const OPENAI_TOO_LONG = /maximum context length|context length|context window|context size|exceeds the available context size|too many tokens|prompt is too long|maximum model length/i;

export function fromOpenAIError(err: unknown, signal: AbortSignal): Error {
  if (signal.aborted || isAbortError(err)) return err as Error;
  const failed = transport(err, { Timeout: APIConnectionTimeoutError, Connection: APIConnectionError });
  if (failed) return failed;
  if (!(err instanceof OpenAIAPIError)) return asError(err);
  const body = (err.error ?? {}) as { message?: unknown };
  const text = typeof body.message === 'string' ? body.message : err.message;
  // llama.cpp names the numbers beside its text: n_ctx and n_prompt_tokens.
  const overflow = () => new ContextOverflowError(text, parseRefusal(text, body as Record<string, unknown>));
  if (err.code === 'context_length_exceeded' || err.type === 'exceed_context_size_error') return overflow();
  if ((err.status === 400 || err.status === 413) && OPENAI_TOO_LONG.test(text)) return overflow();
  // An unknown server: a 4xx whose text speaks of the context and names a number of tokens.
  if (err.status !== undefined && err.status >= 400 && err.status < 500 && /context/i.test(text) && /\d{3,}/.test(text) && /token/i.test(text)) return overflow();
  const retryable = err.status === undefined ? /server_error|overloaded|rate_limit|timeout/i.test(`${err.type ?? ''} ${err.code ?? ''}`) : retryableStatus(err.status);
  return new ProviderError(text, err.status, retryable, retryAfterMs(err.headers));
}

