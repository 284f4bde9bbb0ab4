// A server whose real window is smaller than skein is told, in process, for
// replaying the recorded trajectories fast (the benchmark's mismatch section
// and the property test): it stands in front of any provider (the replay
// model), counts with its own tokenizer (tokenizers.ts: 0.5x-2x skein's
// estimate by kind of text) and reports usage in its own tokens, and either
// refuses an over-long request with its family's real status and raw body
// (dialects.ts) — turned into an error exactly as the OpenAI SDK and skein's
// provider would (the body kept by the provider's fetch, the SDK's APIError,
// skein's mapping) — or, Ollama-style, silently drops the start of the
// conversation, or, LMDeploy-style, answers nothing with finish "length". It
// also answers skein's limits question like that server would.
import { APIError } from 'openai';
import { fromOpenAIError } from '../../server/llm/errors/openai.js';
import { keepingErrorBodies } from '../../server/llm/errors/raw-body.js';
import type { DiscoveredLimits, LlmRequest, LlmResponse, Provider, RecordedTools, ScriptedUser, StreamHandlers } from '../../server/llm/types.js';
import { EMPTY_LENGTH_ANSWER, FLAVOUR_TOKENIZER, TRUNCATING, type CompatFlavour } from './dialects.js';
import { countWith, ratioTokenizer, type FakeTokenizer } from './tokenizers.js';
import { ollamaTruncate, refusal } from './window.js';

export interface WindowedStats {
  refusals: number;
  /** Requests whose start was dropped (Ollama-style). */
  cuts: number;
  /** Of those, requests that lost the first user message. */
  cutFirstUser: number;
  /** Requests answered, and the largest prompt among them (server tokens). */
  answered: number;
  largestPrompt: number;
  /** When each refusal was sent (ms since the epoch). */
  refusedAt: number[];
}

export class WindowedProvider implements Provider, RecordedTools, ScriptedUser {
  readonly stats: WindowedStats = { refusals: 0, cuts: 0, cutFirstUser: 0, answered: 0, largestPrompt: 0, refusedAt: [] };
  readonly tokenizer: FakeTokenizer;

  constructor(
    private readonly inner: Provider,
    readonly window: number,
    private readonly flavour: CompatFlavour,
    /** Answer skein's limits question (an Ollama server always answers /api/show). */
    private readonly advertise = flavour === 'ollama',
    /** About how many of its tokens per o200k token (undefined: the family's own tokenizer). */
    ratio?: number,
  ) {
    this.tokenizer = ratio === undefined ? FLAVOUR_TOKENIZER[flavour] : ratioTokenizer(ratio);
  }

  get model(): string {
    return this.inner.model;
  }

  get limits() {
    return this.inner.limits;
  }

  /** The server's own count of a request: system, tools, each message with the template's framing. */
  count(request: Pick<LlmRequest, 'system' | 'tools' | 'messages'>): number {
    const t = this.tokenizer;
    let n = 3 + countWith(t, request.system) + t.perMessage;
    for (const tool of request.tools) n += countWith(t, JSON.stringify(tool)) + t.perMessage;
    for (const m of request.messages) {
      n += t.perMessage + countWith(t, m.content);
      for (const call of m.toolCalls ?? []) n += countWith(t, JSON.stringify(call));
    }
    return n;
  }

  async complete(request: LlmRequest, signal: AbortSignal, stream?: StreamHandlers): Promise<LlmResponse> {
    if (TRUNCATING.has(this.flavour)) {
      const count = (messages: LlmRequest['messages']) => this.count({ ...request, messages });
      const { kept, droppedFirstUser } = ollamaTruncate(request.messages, count, this.window);
      if (kept.length < request.messages.length) {
        this.stats.cuts++;
        if (droppedFirstUser) this.stats.cutFirstUser++;
      }
      // Ollama never refuses for the output budget: it generates until num_ctx is full. The inner model must not refuse it either.
      const prompt = count(kept);
      if (process.env.SKEIN_BENCH_DEBUG) console.log('SRV', JSON.stringify({ full: count(request.messages), prompt, kept: kept.length, of: request.messages.length, droppedFirstUser, maxTokens: request.maxOutputTokens }));
      const answer = await this.inner.complete({ ...request, messages: kept, maxOutputTokens: Math.min(request.maxOutputTokens, Math.max(1, this.inner.limits.contextWindow - prompt)) }, signal, stream);
      return this.reported(answer, prompt);
    }
    const prompt = this.count(request);
    if (EMPTY_LENGTH_ANSWER.has(this.flavour) && prompt + request.maxOutputTokens > this.window) {
      this.stats.refusals++;
      this.stats.refusedAt.push(Date.now());
      return { text: '', toolCalls: [], stopReason: 'max_tokens', usage: { input: prompt, output: 0, cacheRead: 0, cacheWrite: 0, costUsd: 0 } };
    }
    const refused = refusal({ flavour: this.flavour, window: this.window, advertise: false }, prompt, request.maxOutputTokens);
    if (process.env.SKEIN_BENCH_DEBUG) console.log('SRV', JSON.stringify({ prompt, maxTokens: request.maxOutputTokens, refused: Boolean(refused), answered: this.stats.answered }));
    if (refused) {
      this.stats.refusals++;
      this.stats.refusedAt.push(Date.now());
      throw await asProviderWouldThrow(refused.status, refused.body, signal);
    }
    return this.reported(await this.inner.complete(request, signal, stream), prompt);
  }

  /** The answer with usage in the server's own tokens (the cache split kept in proportion). */
  private reported(answer: LlmResponse, prompt: number): LlmResponse {
    this.stats.answered++;
    this.stats.largestPrompt = Math.max(this.stats.largestPrompt, prompt);
    const u = answer.usage;
    const total = u.input + u.cacheRead + u.cacheWrite;
    const scale = total > 0 ? prompt / total : 1;
    const cacheRead = Math.floor(u.cacheRead * scale);
    const cacheWrite = Math.floor(u.cacheWrite * scale);
    const output = Math.max(u.output > 0 ? 1 : 0, Math.round(countWith(this.tokenizer, answer.text) + answer.toolCalls.reduce((k, c) => k + countWith(this.tokenizer, JSON.stringify(c.input)), 0)));
    return { ...answer, usage: { ...u, input: prompt - cacheRead - cacheWrite, cacheRead, cacheWrite, output } };
  }

  async discoverLimits(): Promise<DiscoveredLimits | { failed: string }> {
    if (!this.advertise) return { failed: 'no model-info endpoint' };
    return { contextWindow: this.window, via: 'the bench server', ...(TRUNCATING.has(this.flavour) && { truncates: true }) };
  }

  recordedToolResult(callId: string): { output: string; isError: boolean } | undefined {
    return (this.inner as Partial<RecordedTools>).recordedToolResult?.(callId);
  }

  nextUserMessage(): string | undefined {
    return (this.inner as Partial<ScriptedUser>).nextUserMessage?.();
  }
}

/** What skein's OpenAI provider throws for this answer: its fetch keeps the raw body, the SDK builds its APIError from the parsed JSON, skein maps it. */
export async function asProviderWouldThrow(status: number, body: string, signal: AbortSignal): Promise<Error> {
  const res = await keepingErrorBodies(async () => new Response(body, { status, headers: { 'content-type': 'application/json' } }))('http://server/v1/chat/completions');
  let parsed: unknown;
  try {
    parsed = JSON.parse(await res.text());
  } catch {
    parsed = undefined;
  }
  return fromOpenAIError(APIError.generate(status, parsed as object | undefined, parsed === undefined ? body : undefined, res.headers), signal);
}
