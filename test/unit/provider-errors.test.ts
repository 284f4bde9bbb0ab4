// Each provider's errors, built by its own SDK from the bodies the API sends,
// mapped to one ContextOverflowError or a ProviderError that knows if a retry helps.
import { APIError as AnthropicAPIError } from '@anthropic-ai/sdk';
import { ApiError as GeminiApiError } from '@google/genai';
import { APIError as OpenAIAPIError } from 'openai';
import { describe, expect, it } from 'vitest';
import { fromAnthropicError, fromGeminiError, fromOpenAIError, retryAfterMs } from '../../server/llm/provider-errors.js';
import { ContextOverflowError, ProviderError } from '../../server/llm/types.js';

const signal = new AbortController().signal;
const anthropic = (status: number, type: string, message: string, headers: Record<string, string> = {}) =>
  fromAnthropicError(AnthropicAPIError.generate(status, { type: 'error', error: { type, message } }, undefined, new Headers(headers)), signal);
const openai = (status: number, error: object) => fromOpenAIError(OpenAIAPIError.generate(status, { error }, undefined, new Headers()), signal);
const gemini = (code: number, status: string, message: string) => fromGeminiError(new GeminiApiError({ status: code, message: JSON.stringify({ error: { code, message, status } }) }), signal);

describe('too long becomes ContextOverflowError', () => {
  it('Anthropic: both wordings', () => {
    expect(anthropic(400, 'invalid_request_error', 'prompt is too long: 208310 tokens > 200000 maximum')).toBeInstanceOf(ContextOverflowError);
    const e = anthropic(400, 'invalid_request_error', 'input length and `max_tokens` exceed context limit: 188240 + 21333 > 200000, decrease input length or `max_tokens` and try again');
    expect(e).toBeInstanceOf(ContextOverflowError);
    expect(e.message).toContain('188240 + 21333 > 200000');
    expect(anthropic(400, 'invalid_request_error', 'messages: text content blocks must be non-empty')).toBeInstanceOf(ProviderError);
  });

  it('OpenAI and compatible servers', () => {
    expect(openai(400, { message: "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.", type: 'invalid_request_error', param: 'messages', code: 'context_length_exceeded' })).toBeInstanceOf(ContextOverflowError);
    // vLLM and llama.cpp server say it their own way.
    expect(openai(400, { message: "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens.", type: 'BadRequestError', code: 400 })).toBeInstanceOf(ContextOverflowError);
    expect(openai(400, { message: 'the request exceeds the available context size, try increasing it', type: 'exceed_context_size_error', code: 400 })).toBeInstanceOf(ContextOverflowError);
    expect(openai(400, { message: "Invalid value for 'tool_choice'", type: 'invalid_request_error', code: null })).toBeInstanceOf(ProviderError);
  });

  it('Gemini', () => {
    expect(gemini(400, 'INVALID_ARGUMENT', 'The input token count (1200293) exceeds the maximum number of tokens allowed (1048576).')).toBeInstanceOf(ContextOverflowError);
    expect(gemini(400, 'INVALID_ARGUMENT', 'API key not valid. Please pass a valid API key.')).toBeInstanceOf(ProviderError);
  });
});

describe('retryable or not', () => {
  const retryable = (e: Error) => e instanceof ProviderError && e.retryable;
  it('429, 5xx and 529 overloaded are; 400, 401 and 404 are not', () => {
    expect(retryable(anthropic(529, 'overloaded_error', 'Overloaded'))).toBe(true);
    expect(retryable(anthropic(429, 'rate_limit_error', 'slow down'))).toBe(true);
    expect(retryable(anthropic(401, 'authentication_error', 'invalid x-api-key'))).toBe(false);
    expect(retryable(openai(500, { message: 'The server had an error', type: 'server_error', code: null }))).toBe(true);
    expect(retryable(openai(404, { message: 'The model does not exist', type: 'invalid_request_error', code: 'model_not_found' }))).toBe(false);
    expect(retryable(gemini(503, 'UNAVAILABLE', 'The model is overloaded. Please try again later.'))).toBe(true);
    expect(retryable(gemini(400, 'INVALID_ARGUMENT', 'bad'))).toBe(false);
  });

  it('an overloaded error in the middle of an Anthropic stream (no status) is', () => {
    const midStream = new AnthropicAPIError(undefined, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }, undefined, new Headers(), 'overloaded_error');
    const e = fromAnthropicError(midStream, signal);
    expect(e).toMatchObject({ retryable: true, status: 529 });
  });

  it('reads retry-after in seconds, milliseconds or as a date', () => {
    expect((anthropic(429, 'rate_limit_error', 'slow down', { 'retry-after': '7' }) as ProviderError).retryAfterMs).toBe(7000);
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '250' }))).toBe(250);
    expect(retryAfterMs(new Headers({ 'retry-after': new Date(Date.UTC(2030, 0, 1, 0, 0, 30)).toUTCString() }), Date.UTC(2030, 0, 1))).toBe(30_000);
    expect(retryAfterMs(new Headers())).toBeUndefined();
  });

  it('a cancelled request stays an abort', () => {
    const controller = new AbortController();
    controller.abort();
    const abort = new DOMException('aborted', 'AbortError');
    expect(fromGeminiError(abort, controller.signal)).toBe(abort);
  });
});
