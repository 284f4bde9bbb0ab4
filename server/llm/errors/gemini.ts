// Gemini's failures as the agent's errors (see provider-errors.ts).
import { ApiError as GeminiApiError } from '@google/genai';
import { ContextOverflowError, isAbortError, ProviderError } from '../types.js';
import { asError, retryableStatus, transport } from './common.js';

/** Gemini: 400 INVALID_ARGUMENT "The input token count (N) exceeds the maximum number of tokens allowed (M)." */
const GEMINI_TOO_LONG = /input token count.*exceeds the maximum|exceeds the maximum number of tokens/i;

export function fromGeminiError(err: unknown, signal: AbortSignal): Error {
  if (signal.aborted || isAbortError(err)) return err as Error;
  const failed = transport(err);
  if (failed) return failed;
  if (!(err instanceof GeminiApiError)) return asError(err);
  const { message, status } = geminiBody(err.message);
  if (err.status === 400 && GEMINI_TOO_LONG.test(message)) return new ContextOverflowError(message);
  return new ProviderError(status ? `${status}: ${message}` : message, err.status, retryableStatus(err.status));
}

/** The SDK puts the JSON body (or "got status: X. {json}" mid-stream) in the message. */
function geminiBody(raw: string): { message: string; status?: string } {
  const start = raw.indexOf('{');
  try {
    const body = JSON.parse(start >= 0 ? raw.slice(start) : raw) as { error?: { message?: unknown; status?: unknown } };
    const message = typeof body.error?.message === 'string' ? body.error.message : raw;
    return typeof body.error?.status === 'string' ? { message, status: body.error.status } : { message };
  } catch {
    return { message: raw };
  }
}
