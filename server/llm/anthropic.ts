// Anthropic Messages API through @anthropic-ai/sdk. Turns stream (text goes
// to the timeline as it comes), summaries are one JSON answer. Prompt caching:
// one breakpoint on the system prompt (which caches tools + system, the order
// the API reads them) and one on the latest turn, so every request reads the
// previous one's prefix from the cache. A compaction changes only messages,
// so the tools + system prefix stays cached across it.
import Anthropic from '@anthropic-ai/sdk';
import type { ContentBlockParam, Message, MessageCreateParamsNonStreaming, MessageParam, Tool } from '@anthropic-ai/sdk/resources/messages';
import type { ThinkingCapabilities, ViewMessage } from '../../shared/protocol.js';
import { keepingErrorBodies } from './errors/raw-body.js';
import { betaHeaders, ownCompaction, requestCompaction } from './anthropic-compaction.js';
import { assistantBlocks, prefixOf, prefixRefusal, readReasoning, type PrefixBase } from './anthropic-thinking.js';
import type { Endpoint } from './credentials.js';
import { modelInfo, type ThinkingCaps } from './models.js';
import { anthropicLimits, type Discovery } from './limits/discover.js';
import { fromAnthropicError } from './errors/anthropic.js';
import { anthropicThinking, ownReasoning } from './reasoning.js';
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
import { messageImages, userText } from './message-images.js';

export const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com';
const CACHE = { type: 'ephemeral' } as const;

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

const prefixBase = (params: MessageCreateParamsNonStreaming): PrefixBase => ({ model: params.model, system: params.system, tools: params.tools });

export function anthropicParams(model: string, request: LlmRequest, caps = modelInfo(model)?.thinking): MessageCreateParamsNonStreaming {
  return buildParams(model, request, new Set(), caps).params;
}

interface BuiltParams {
  params: MessageCreateParamsNonStreaming;
  /** Which wire messages carry thinking (their index and the prefix fingerprint recorded with them). */
  sentThinking: { index: number; prefix: string }[];
  /** The first message is this model's own compaction block (the request needs the beta header). */
  usesCompaction: boolean;
}

/** The request, with the thinking options of `caps` (the Models API's, else the table's). */
function buildParams(model: string, request: LlmRequest, refused: ReadonlySet<string>, caps: ThinkingCaps | undefined): BuiltParams {
  const tools: Tool[] = request.tools.map((t) => ({
    name: t.name,
    description: t.description,
    input_schema: t.inputSchema as Tool['input_schema'],
  }));
  const system: MessageCreateParamsNonStreaming['system'] = [{ type: 'text', text: request.system, cache_control: CACHE }];
  const sentThinking: { index: number; prefix: string }[] = [];
  const base: PrefixBase = { model, system, tools: tools.length ? tools : undefined };
  const systemMessages = modelInfo(model)?.systemMessages === true;
  const messages = toMessages(request.messages, { base, refused, systemMessages, sent: (index, prefix) => sentThinking.push({ index, prefix }) });
  const first = messages[0]?.content;
  const usesCompaction = Array.isArray(first) && first[0]?.type === ('compaction' as string);
  // Breakpoint on the latest turn: the next request reads everything up to here.
  const last = messages.at(-1);
  if (last && Array.isArray(last.content) && last.content.length) {
    const block = last.content[last.content.length - 1]!;
    if (block.type !== 'thinking' && block.type !== 'redacted_thinking') last.content[last.content.length - 1] = { ...block, cache_control: CACHE } as ContentBlockParam;
  }
  const options = anthropicThinking(caps, request.effort);
  const params = {
    model,
    max_tokens: request.maxOutputTokens,
    system,
    messages,
    ...(tools.length && { tools }),
    ...options,
  } as MessageCreateParamsNonStreaming;
  return { params, sentThinking, usesCompaction };
}

interface ThinkingContext {
  base: PrefixBase;
  /** The model takes mid-conversation `role: "system"` messages. */
  systemMessages?: boolean;
  /** Prefix fingerprints whose thinking the API refused before. */
  refused: ReadonlySet<string>;
  sent(index: number, prefix: string): void;
}

/** Tool ids must match ^[a-zA-Z0-9_-]+$; ids from another provider (after a model switch) are made to fit. */
function toolId(id: string | undefined): string {
  return (id ?? 'missing').replace(/[^a-zA-Z0-9_-]/g, '_');
}

/**
 * Consecutive messages of one role become one message (tool results and a
 * queued user text share a user turn). A mid-conversation `system` message
 * (an instruction that changed during the session) goes as its own
 * `role: "system"` message where it stands: the top-level `system` never
 * changes, so every earlier turn's thinking keeps its prefix.
 */
export function toMessages(view: ViewMessage[], thinking?: ThinkingContext): MessageParam[] {
  const out: { role: 'user' | 'assistant' | 'system'; content: ContentBlockParam[] }[] = [];
  const push = (role: 'user' | 'assistant', blocks: ContentBlockParam[]) => {
    const previous = out.at(-1);
    if (previous?.role === role) previous.content.push(...blocks);
    else out.push({ role, content: blocks });
  };
  for (const [i, m] of view.entries()) {
    // This model's own compaction block opens the conversation in place of the turns it summarises.
    const block = thinking && out.length === 0 ? ownCompaction(m.compacted, thinking.base.model) : undefined;
    if (block) {
      out.push({ role: 'assistant', content: block as unknown as ContentBlockParam[] });
      continue;
    }
    if (m.role === 'system') {
      const text = m.content.trim() ? m.content : '(empty message)';
      // The API's placement rule: right after a user turn, and last or followed by the model's answer.
      // Elsewhere (or on a model without them) the update is a user-turn text block; either way nothing earlier changes.
      const next = view[i + 1]?.role;
      const fits = thinking?.systemMessages === true && out.at(-1)?.role === 'user' && (next === undefined || next === 'assistant');
      if (fits) out.push({ role: 'system', content: [{ type: 'text', text }] });
      else push('user', [{ type: 'text', text: `<system-update>\n${text}\n</system-update>` }]);
    } else if (m.role === 'user') {
      // Images first, then the words about them (Anthropic's advice for image prompts).
      const { images, missing } = messageImages(m);
      const text = userText(m, missing, images.length > 0);
      push('user', [
        ...images.map((image): ContentBlockParam => ({ type: 'image', source: { type: 'base64', media_type: image.mediaType, data: image.data } })),
        ...(text ? [{ type: 'text' as const, text }] : []),
      ]);
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
  return out as MessageParam[];
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
