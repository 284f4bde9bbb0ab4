// Anthropic Messages API through @anthropic-ai/sdk. Turns stream (text goes
// to the timeline as it comes), summaries are one JSON answer. Prompt caching:
// one breakpoint on the system prompt (which caches tools + system, the order
// the API reads them) and one on the latest turn, so every request reads the
// previous one's prefix from the cache. A compaction changes only messages,
// so the tools + system prefix stays cached across it.
import Anthropic from '@anthropic-ai/sdk';
import type { Message, MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import type { ThinkingCapabilities } from '../../shared/protocol.js';
import { keepingErrorBodies } from './errors/raw-body.js';
import { betaHeaders, requestCompaction } from './anthropic-compaction.js';
import { prefixOf, prefixRefusal, readReasoning } from './anthropic-thinking.js';
import type { Endpoint } from './credentials.js';
import { modelInfo, type ThinkingCaps } from './models.js';
import { anthropicLimits, type Discovery } from './limits/discover.js';
import { fromAnthropicError } from './errors/anthropic.js';
import {
  ProviderError,
  type CapabilityAware,
  type LlmRequest,
  type LlmResponse,
  type ModelLimits,
  type Provider,
  type ProviderCompactionResult,
  type ProviderCompactor,
  type StreamHandlers,
  type ToolCall,
} from './types.js';
import { fromAnthropic } from './usage.js';
import { buildParams, prefixBase } from './anthropic-params.js';

// Re-exported: callers build or check a request without the provider (anthropic-params.ts).
export { anthropicParams, toMessages } from './anthropic-params.js';

export const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com';

export class AnthropicProvider implements Provider, ProviderCompactor, CapabilityAware {
  private readonly client: Anthropic;
  /** Thinking the API refused although its prefix looked unchanged (by prefix fingerprint): never sent again. */
  private readonly refused = new Set<string>();
  /** What the Models API said about thinking (`off`: no adaptive thinking): wins over the model table's entry. */
  private discovered: ThinkingCaps | 'off' | undefined;

  constructor(
    /** The name the session shows (may carry a `provider:` prefix). */
    readonly model: string,
    private readonly apiModel: string,
    readonly limits: ModelLimits,
    endpoint: Endpoint,
    timeoutMs: number,
  ) {
    // skein retries itself (visible in the timeline), so the SDK does not; the
    // explicit baseURL and authToken keep stray ANTHROPIC_* variables out.
    this.client = new Anthropic({
      apiKey: endpoint.apiKey ?? null,
      authToken: null,
      baseURL: endpoint.baseURL ?? ANTHROPIC_DEFAULT_BASE_URL,
      maxRetries: 0,
      timeout: timeoutMs,
      // Error bodies are kept whole (a proxy in front may answer in another family's shape).
      fetch: keepingErrorBodies(),
    });
  }

  async complete(request: LlmRequest, signal: AbortSignal, stream?: StreamHandlers): Promise<LlmResponse> {
    try {
      return await this.attempt(request, signal, stream);
    } catch (err) {
      // A refused thinking prefix is a defect in skein (requests are append-only): drop that thinking and retry once.
      const refusal = err instanceof ProviderError && err.status === 400 ? prefixRefusal(err.message) : undefined;
      if (!refusal) throw err;
      const { sentThinking } = buildParams(this.apiModel, request, this.refused, this.caps());
      const dropped = sentThinking.filter((t) => t.index >= refusal.message);
      if (!dropped.length) throw err;
      for (const t of dropped) this.refused.add(t.prefix);
      const response = await this.attempt(request, signal, stream);
      const note = { code: 'thinking_prefix_defect', message: `${this.model} refused the thinking of ${dropped.length} earlier turn(s) (${(err as Error).message}); sent again without it` };
      return { ...response, notes: [...(response.notes ?? []), note] };
    }
  }

  private async attempt(request: LlmRequest, signal: AbortSignal, stream?: StreamHandlers): Promise<LlmResponse> {
    const { params, usesCompaction } = buildParams(this.apiModel, request, this.refused, this.caps());
    const prefix = prefixOf(prefixBase(params), params.messages);
    const options = { signal, ...betaHeaders(usesCompaction) };
    try {
      let message: Message;
      if (stream?.onText || stream?.onThinking) {
        const live = this.client.messages.stream(params, options);
        const { onText, onThinking } = stream;
        if (onText) live.on('text', (delta) => onText(delta));
        if (onThinking) live.on('thinking', (delta) => onThinking(delta));
        message = await live.finalMessage();
      } else {
        message = await this.client.messages.create(params, options);
      }
      const response = toResponse(message);
      const reasoning = readReasoning(message, this.apiModel, prefix);
      return reasoning ? { ...response, reasoning } : response;
    } catch (err) {
      throw fromAnthropicError(err, signal);
    }
  }

  discoverLimits(signal: AbortSignal): Promise<Discovery> {
    return anthropicLimits(this.client, this.apiModel, signal);
  }

  adoptCapabilities(thinking: ThinkingCapabilities | undefined): void {
    // The Models API does not say whether thinking is preserved: that stays the table's.
    const preserved = modelInfo(this.apiModel)?.thinking?.preserved === true;
    this.discovered = thinking && (thinking.mode === 'off' ? 'off' : { mode: thinking.mode, efforts: thinking.efforts, ...(preserved && { preserved }) });
  }

  /** The span's summary by the API itself (on-demand compaction), sent back later as its signed block. */
  async compactHistory(request: Pick<LlmRequest, 'system' | 'tools' | 'messages'> & { instructions?: string }, signal: AbortSignal): Promise<ProviderCompactionResult> {
    const { params } = buildParams(this.apiModel, { ...request, maxOutputTokens: this.limits.maxOutputTokens, purpose: 'summary' }, this.refused, this.caps());
    try {
      return await requestCompaction(this.client, params, request.instructions, signal);
    } catch (err) {
      throw err instanceof ProviderError ? err : fromAnthropicError(err, signal);
    }
  }

  private caps(): ThinkingCaps | undefined {
    if (this.discovered === 'off') return undefined;
    return this.discovered ?? modelInfo(this.apiModel)?.thinking;
  }
}

function toResponse(message: Message): LlmResponse {
  let text = '';
  const toolCalls: ToolCall[] = [];
  for (const block of message.content) {
    if (block.type === 'text') text += block.text;
    else if (block.type === 'tool_use') {
      const input = block.input && typeof block.input === 'object' && !Array.isArray(block.input) ? (block.input as Record<string, unknown>) : {};
      toolCalls.push({ id: block.id, name: block.name, input });
    }
  }
  const stop = message.stop_reason;
  const stopReason = toolCalls.length ? 'tool_use' : stop === 'max_tokens' || stop === 'model_context_window_exceeded' ? 'max_tokens' : 'end_turn';
  return { text, toolCalls, stopReason, usage: fromAnthropic(message.usage), ...(stop === 'model_context_window_exceeded' && { contextFull: true }) };
}
