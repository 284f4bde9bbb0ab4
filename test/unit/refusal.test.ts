// The limit in every provider's "too long" refusal, built where it matters by
// the provider's own SDK error class and mapped by provider-errors.ts.
import { APIError as AnthropicAPIError } from '@anthropic-ai/sdk';
import { ApiError as GeminiApiError } from '@google/genai';
import { APIError as OpenAIAPIError } from 'openai';
import { describe, expect, it } from 'vitest';
import { parseRefusal } from '../../server/llm/limits/refusal.js';
import { fromAnthropicError, fromGeminiError, fromOpenAIError } from '../../server/llm/provider-errors.js';
import { ContextOverflowError } from '../../server/llm/types.js';
import { refusal, type CompatFlavour } from '../fakes/window.js';
import { asProviderWouldThrow } from '../fakes/windowed-provider.js';

const signal = new AbortController().signal;
const anthropic = (message: string) => fromAnthropicError(AnthropicAPIError.generate(400, { type: 'error', error: { type: 'invalid_request_error', message } }, undefined, new Headers()), signal);
const openai = (status: number, error: object) => fromOpenAIError(OpenAIAPIError.generate(status, { error }, undefined, new Headers()), signal);
const limitsOf = (e: Error) => {
  expect(e).toBeInstanceOf(ContextOverflowError);
  return (e as ContextOverflowError).limits;
};

describe('the limit named by each refusal', () => {
  it('Anthropic: "prompt is too long" and "input length and `max_tokens` exceed context limit"', () => {
    expect(limitsOf(anthropic('prompt is too long: 208310 tokens > 200000 maximum'))).toEqual({ window: 200000, prompt: 208310 });
    expect(limitsOf(anthropic('input length and `max_tokens` exceed context limit: 570 + 16384 > 9000, decrease input length or `max_tokens` and try again'))).toEqual({ window: 9000, prompt: 570, maxTokens: 16384 });
  });

  it('every family served by the fakes, its raw body kept by the fetch and read through the real SDK error', async () => {
    const from = async (flavour: CompatFlavour, prompt: number, maxTokens: number) => {
      const r = refusal({ flavour, window: 8192, advertise: false }, prompt, maxTokens)!;
      return limitsOf(await asProviderWouldThrow(r.status, r.body, signal));
    };
    expect(await from('openai', 9000, 1000)).toEqual({ window: 8192, prompt: 9000, maxTokens: 1000 });
    expect(await from('azure', 9000, 1000)).toEqual({ window: 8192, prompt: 10000 });
    expect(await from('vllm', 9000, 1000)).toEqual({ window: 8192, prompt: 9001, maxTokens: 1000 });
    expect(await from('vllm', 500, 16384)).toEqual({ window: 8192, prompt: 500, maxTokens: 16384 });
    expect(await from('vllm-old', 7000, 1500)).toEqual({ window: 8192, prompt: 7000, maxTokens: 1500 });
    expect(await from('sglang', 7000, 1500)).toEqual({ window: 8192, prompt: 7000, maxTokens: 1500 });
    expect(await from('sglang', 9000, 1500)).toEqual({ window: 8192, prompt: 9000 });
    expect(await from('mlc', 9000, 1000)).toEqual({ window: 8192, prompt: 9000 });
    expect(await from('tgi', 7000, 1500)).toEqual({ window: 8192, prompt: 7000, maxTokens: 1500 });
    expect(await from('tgi', 9000, 1500)).toEqual({ window: 8192, prompt: 9000 });
    expect(await from('llamacpp', 9000, 1000)).toEqual({ window: 8192, prompt: 9000 });
    expect(await from('ollama-refuses', 9000, 1000)).toEqual({});
    expect(await from('lmstudio', 9000, 1000)).toEqual({ window: 8192, prompt: 9000 });
    expect(await from('litellm', 7000, 1500)).toEqual({ window: 8192, prompt: 7000, maxTokens: 1500 });
    expect(await from('openrouter', 7000, 1500)).toEqual({ window: 8192, prompt: 7000, maxTokens: 1500 });
    expect(await from('openrouter', 9000, 1000)).toEqual({ window: 8192, prompt: 9000 });
    expect(await from('nonumber', 9000, 1000)).toEqual({});
  });

  it('without the raw body (the SDK alone) a vLLM-old, SGLang or MLC refusal is "400 status code (no body)": the body is what tells', () => {
    const e = OpenAIAPIError.generate(400, { object: 'error', message: "This model's maximum context length is 6000 tokens. However, you requested 6512 tokens (5012 in the messages, 1500 in the completion).", type: 'BadRequestError', param: null, code: 400 }, undefined, new Headers());
    expect(e.message).toBe('400 status code (no body)');
    expect(fromOpenAIError(e, signal)).not.toBeInstanceOf(ContextOverflowError);
  });

  it('OpenAI\'s "your messages resulted in" and the older vLLM text', () => {
    expect(parseRefusal("This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens. Please reduce the length of the messages.")).toEqual({ window: 128000, prompt: 130000 });
    expect(parseRefusal('The decoder prompt (length 9000) is longer than the maximum model length of 8192.')).toEqual({ window: 8192, prompt: 9000 });
  });

  it('Gemini: "exceeds the maximum number of tokens allowed (M)"', () => {
    const e = fromGeminiError(new GeminiApiError({ status: 400, message: JSON.stringify({ error: { code: 400, message: 'The input token count (1200293) exceeds the maximum number of tokens allowed (1048576).', status: 'INVALID_ARGUMENT' } }) }), signal);
    expect(limitsOf(e)).toEqual({ window: 1048576, prompt: 1200293 });
  });

  it('an unknown server whose 4xx text speaks of the context and a number', () => {
    const e = openai(400, { message: 'Input is too long for this model: context window is 4,096 tokens', type: 'invalid_request_error' });
    expect(limitsOf(e)).toEqual({ window: 4096 });
    expect(parseRefusal('context overflow, try again')).toEqual({});
  });
});
