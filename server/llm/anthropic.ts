// Anthropic Messages API through @anthropic-ai/sdk. Turns stream (text goes
// to the timeline as it comes), summaries are one JSON answer. Prompt caching:
// one breakpoint on the system prompt (which caches tools + system, the order
// the API reads them) and one on the latest turn, so every request reads the
// previous one's prefix from the cache. A compaction changes only messages,
// so the tools + system prefix stays cached across it.
import Anthropic from '@anthropic-ai/sdk';
import type { ContentBlockParam, Message, MessageCreateParamsNonStreaming, MessageParam, Tool } from '@anthropic-ai/sdk/resources/messages';
import type { ViewMessage } from '../../shared/protocol.js';
import { assistantBlocks, prefixOf, prefixRefusal, readReasoning, type PrefixBase } from './anthropic-thinking.js';
import type { Endpoint } from './credentials.js';
import { modelInfo } from './models.js';
import { anthropicLimits, type Discovery } from './limits/discover.js';
import { fromAnthropicError } from './errors/anthropic.js';
import { anthropicThinking, ownReasoning } from './reasoning.js';
import { ProviderError, type LlmRequest, type LlmResponse, type ModelLimits, type Provider, type StreamHandlers, type ToolCall } from './types.js';
import { fromAnthropic } from './usage.js';

export const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com';
const CACHE = { type: 'ephemeral' } as const;

export class AnthropicProvider implements Provider {
  private readonly client: Anthropic;
  /** Thinking the API refused although its prefix looked unchanged (by prefix fingerprint): never sent again. */
  private readonly refused = new Set<string>();

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
    });
  }

  async complete(request: LlmRequest, signal: AbortSignal, stream?: StreamHandlers): Promise<LlmResponse> {
    try {
      return await this.attempt(request, signal, stream);
    } catch (err) {
      // A refused thinking prefix is a defect in skein (requests are append-only): drop that thinking and retry once.
      const refusal = err instanceof ProviderError && err.status === 400 ? prefixRefusal(err.message) : undefined;
      if (!refusal) throw err;
      const { sentThinking } = buildParams(this.apiModel, request, this.refused);
      const dropped = sentThinking.filter((t) => t.index >= refusal.message);
      if (!dropped.length) throw err;
      for (const t of dropped) this.refused.add(t.prefix);
      const response = await this.attempt(request, signal, stream);
      const note = { code: 'thinking_prefix_defect', message: `${this.model} refused the thinking of ${dropped.length} earlier turn(s) (${(err as Error).message}); sent again without it` };
      return { ...response, notes: [...(response.notes ?? []), note] };
    }
  }

  private async attempt(request: LlmRequest, signal: AbortSignal, stream?: StreamHandlers): Promise<LlmResponse> {
    const { params } = buildParams(this.apiModel, request, this.refused);
    const prefix = prefixOf(prefixBase(params), params.messages);
    try {
      let message: Message;
      if (stream?.onText || stream?.onThinking) {
        const live = this.client.messages.stream(params, { signal });
        const { onText, onThinking } = stream;
        if (onText) live.on('text', (delta) => onText(delta));
        if (onThinking) live.on('thinking', (delta) => onThinking(delta));
        message = await live.finalMessage();
      } else {
        message = await this.client.messages.create(params, { signal });
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
}

const prefixBase = (params: MessageCreateParamsNonStreaming): PrefixBase => ({ model: params.model, system: params.system, tools: params.tools });

export function anthropicParams(model: string, request: LlmRequest): MessageCreateParamsNonStreaming {
  return buildParams(model, request, new Set()).params;
}

/** The request, and which wire messages carry thinking (their index and the prefix fingerprint recorded with them). */
function buildParams(model: string, request: LlmRequest, refused: ReadonlySet<string>): { params: MessageCreateParamsNonStreaming; sentThinking: { index: number; prefix: string }[] } {
  const tools: Tool[] = request.tools.map((t) => ({
    name: t.name,
    description: t.description,
    input_schema: t.inputSchema as Tool['input_schema'],
  }));
  const system: MessageCreateParamsNonStreaming['system'] = [{ type: 'text', text: request.system, cache_control: CACHE }];
  const sentThinking: { index: number; prefix: string }[] = [];
  const base: PrefixBase = { model, system, tools: tools.length ? tools : undefined };
  const messages = toMessages(request.messages, { base, refused, sent: (index, prefix) => sentThinking.push({ index, prefix }) });
  // Breakpoint on the latest turn: the next request reads everything up to here.
  const last = messages.at(-1);
  if (last && Array.isArray(last.content) && last.content.length) {
    const block = last.content[last.content.length - 1]!;
    if (block.type !== 'thinking' && block.type !== 'redacted_thinking') last.content[last.content.length - 1] = { ...block, cache_control: CACHE } as ContentBlockParam;
  }
  const options = anthropicThinking(modelInfo(model)?.thinking, request.effort);
  const params = {
    model,
    max_tokens: request.maxOutputTokens,
    system,
    messages,
    ...(tools.length && { tools }),
    ...options,
  } as MessageCreateParamsNonStreaming;
  return { params, sentThinking };
}

interface ThinkingContext {
  base: PrefixBase;
  /** Prefix fingerprints whose thinking the API refused before. */
  refused: ReadonlySet<string>;
  sent(index: number, prefix: string): void;
}

/** Tool ids must match ^[a-zA-Z0-9_-]+$; ids from another provider (after a model switch) are made to fit. */
function toolId(id: string | undefined): string {
  return (id ?? 'missing').replace(/[^a-zA-Z0-9_-]/g, '_');
}

/** Consecutive messages of one role become one message (tool results and a queued user text share a user turn). */
export function toMessages(view: ViewMessage[], thinking?: ThinkingContext): MessageParam[] {
  const out: { role: 'user' | 'assistant'; content: ContentBlockParam[] }[] = [];
  const push = (role: 'user' | 'assistant', blocks: ContentBlockParam[]) => {
    const previous = out.at(-1);
    if (previous?.role === role) previous.content.push(...blocks);
    else out.push({ role, content: blocks });
  };
  for (const m of view) {
    if (m.role === 'user' || m.role === 'system') {
      push('user', [{ type: 'text', text: m.content.trim() ? m.content : '(empty message)' }]);
    } else if (m.role === 'assistant') {
      const own = thinking && ownReasoning(m, 'anthropic', thinking.base.model);
      if (own && thinking) {
        // Sent as returned while nothing before it changed; a turn merged into the previous one never keeps its thinking.
        const prefix = prefixOf(thinking.base, out);
        const keep = out.at(-1)?.role !== 'assistant' && own.prefix === prefix && !thinking.refused.has(prefix);
        if (keep && own.output.some((b) => b.type === 'thinking' || b.type === 'redacted_thinking')) thinking.sent(out.length, prefix);
        push('assistant', assistantBlocks(own, keep));
        continue;
      }
      const blocks: ContentBlockParam[] = m.content.trim() ? [{ type: 'text', text: m.content }] : [];
      for (const call of m.toolCalls ?? []) blocks.push({ type: 'tool_use', id: toolId(call.id), name: call.name, input: call.input });
      push('assistant', blocks.length ? blocks : [{ type: 'text', text: '(no answer)' }]);
    } else {
      push('user', [{ type: 'tool_result', tool_use_id: toolId(m.toolCallId), content: m.content || '(no output)' }]);
    }
  }
  return out;
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
  return { text, toolCalls, stopReason, usage: fromAnthropic(message.usage) };
}
