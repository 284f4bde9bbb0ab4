// OpenAI reasoning models (gpt-5.x, o-series) through the Responses API: their
// reasoning survives between tool calls only there. skein keeps nothing on
// OpenAI's side (`store: false`) and asks for the encrypted reasoning
// (`include: ["reasoning.encrypted_content"]`), so each answer's reasoning
// items are logged and sent back as returned, to the model that produced
// them only. Turns stream (text and the reasoning summary as they come);
// summaries are one JSON answer. Chat Completions (openai.ts) stays the path
// for other OpenAI models and OpenAI-compatible servers.
import type OpenAI from 'openai';
import type { ResponseCreateParamsNonStreaming, ResponseInputItem, Response as ApiResponse } from 'openai/resources/responses/responses';
import type { Reasoning, Usage } from '../../shared/protocol.js';
import type { Endpoint } from './credentials.js';
import { modelInfo } from './models.js';
import { openaiClient } from './openai.js';
import { fromOpenAIError } from './errors/openai.js';
import { openaiEffort, ownReasoning } from './reasoning.js';
import { ProviderError, type LlmRequest, type LlmResponse, type ModelLimits, type Provider, type ProviderCompactionResult, type ProviderCompactor, type StreamHandlers, type ToolCall } from './types.js';
import { messageImages, userText } from './message-images.js';

type Item = Record<string, unknown>;

export class OpenAIResponsesProvider implements Provider, ProviderCompactor {
  private readonly client: OpenAI;

  constructor(
    readonly model: string,
    private readonly apiModel: string,
    readonly limits: ModelLimits,
    endpoint: Endpoint,
    timeoutMs: number,
  ) {
    this.client = openaiClient(endpoint, timeoutMs);
  }

  async complete(request: LlmRequest, signal: AbortSignal, stream?: StreamHandlers): Promise<LlmResponse> {
    const params = responsesParams(this.apiModel, request);
    try {
      if (!stream?.onText && !stream?.onThinking) return toResponse(await this.client.responses.create(params, { signal }), this.apiModel);
      const events = await this.client.responses.create({ ...params, stream: true }, { signal });
      let final: ApiResponse | undefined;
      for await (const event of events) {
        if (event.type === 'response.output_text.delta') stream.onText?.(event.delta);
        else if (event.type === 'response.reasoning_summary_text.delta') stream.onThinking?.(event.delta);
        else if (event.type === 'response.completed' || event.type === 'response.incomplete') final = event.response;
        else if (event.type === 'response.failed') throw new Error(`the response failed: ${event.response.error?.message ?? 'no reason given'}`);
      }
      if (!final) throw new SyntaxError('the response stream ended before response.completed');
      return toResponse(final, this.apiModel);
    } catch (err) {
      throw fromOpenAIError(err, signal);
    }
  }

  /**
   * POST /responses/compact: the span as input items; the answer is the
   * span's user messages and one encrypted `compaction` item, sent back later
   * in place of the span. (It takes no focus text: /compact's focus reaches
   * only skein's own summariser.)
   */
  async compactHistory(request: Pick<LlmRequest, 'system' | 'tools' | 'messages'>, signal: AbortSignal): Promise<ProviderCompactionResult> {
    try {
      const compacted = await this.client.responses.compact({ model: this.apiModel, instructions: request.system, input: toInput(request, this.apiModel) }, { signal });
      const output = compacted.output as unknown as Item[];
      if (!output.some((i) => i.type === 'compaction' && typeof i.encrypted_content === 'string')) {
        throw new ProviderError('/responses/compact answered without a compaction item', undefined, false);
      }
      const said = output.filter((i) => i.type === 'message' && i.role === 'user').map((i) => messageText(i.content));
      const text = [
        `OpenAI compacted this span (${this.apiModel}); its compaction item is encrypted. The user's messages in it were:`,
        ...said.map((t) => `- ${t.length > 500 ? `${t.slice(0, 499)}…` : t}`),
      ].join('\n');
      return { compaction: { provider: 'openai', model: this.apiModel, output: output.map((i) => ({ ...i })) }, text, usage: fromResponsesUsage(compacted.usage) };
    } catch (err) {
      throw err instanceof ProviderError ? err : fromOpenAIError(err, signal);
    }
  }
}

function messageText(content: unknown): string {
  return typeof content === 'string' ? content : Array.isArray(content) ? content.map((p: Item) => String(p.text ?? '')).join('') : '';
}

export function responsesParams(model: string, request: LlmRequest): ResponseCreateParamsNonStreaming {
  const effort = openaiEffort(model, modelInfo(model)?.thinking, request.effort);
  return {
    model,
    instructions: request.system,
    input: toInput(request, model),
    ...(request.tools.length && {
      tools: request.tools.map((t) => ({ type: 'function' as const, name: t.name, description: t.description, parameters: t.inputSchema, strict: false })),
    }),
    max_output_tokens: request.maxOutputTokens,
    store: false,
    include: ['reasoning.encrypted_content'],
    reasoning: { ...(effort && { effort: effort as 'low' }), summary: 'auto' },
  };
}

/**
 * The conversation as input items: this model's own answers go back as
 * returned, reasoning items first; its own compaction (the items
 * /responses/compact returned) in place of the span it covers; a
 * mid-conversation system message as a `developer` message where it stands
 * (`instructions` never changes).
 */
function toInput(request: Pick<LlmRequest, 'messages'>, model: string): ResponseInputItem[] {
  const input: Item[] = [];
  for (const m of request.messages) {
    if (m.compacted?.provider === 'openai' && m.compacted.model === model) input.push(...m.compacted.output.map((item) => ({ ...item })));
    else if (m.role === 'system') input.push({ role: 'developer', content: m.content || '(empty message)' });
    else if (m.role === 'user' && m.images?.length) {
      const { images, missing } = messageImages(m);
      const text = userText(m, missing, images.length > 0);
      input.push({
        role: 'user',
        content: [...(text ? [{ type: 'input_text' as const, text }] : []), ...images.map((image) => ({ type: 'input_image' as const, detail: 'auto' as const, image_url: `data:${image.mediaType};base64,${image.data}` }))],
      });
    } else if (m.role === 'user') input.push({ role: 'user', content: m.content || '(empty message)' });
    else if (m.role === 'tool') input.push({ type: 'function_call_output', call_id: m.toolCallId ?? 'missing', output: m.content || '(no output)' });
    else {
      const own = ownReasoning(m, 'openai', model);
      if (own) {
        input.push(...own.output.map((item) => ({ ...item })));
        continue;
      }
      if (m.content) input.push({ role: 'assistant', content: m.content });
      for (const call of m.toolCalls ?? []) input.push({ type: 'function_call', call_id: call.id, name: call.name, arguments: JSON.stringify(call.input) });
    }
  }
  return input as unknown as ResponseInputItem[];
}

function toResponse(response: ApiResponse, model: string): LlmResponse {
  let text = '';
  let summary = '';
  const toolCalls: ToolCall[] = [];
  const output = response.output as unknown as Item[];
  for (const item of output) {
    if (item.type === 'message') {
      for (const part of (item.content as Item[] | undefined) ?? []) if (part.type === 'output_text') text += String(part.text ?? '');
    } else if (item.type === 'function_call') {
      toolCalls.push({ id: String(item.call_id), name: String(item.name), input: parseArguments(item.arguments) });
    } else if (item.type === 'reasoning') {
      for (const part of (item.summary as Item[] | undefined) ?? []) summary += (summary ? '\n\n' : '') + String(part.text ?? '');
    }
  }
  const truncated = response.status === 'incomplete' && response.incomplete_details?.reason === 'max_output_tokens';
  const stopReason = toolCalls.length ? 'tool_use' : truncated ? 'max_tokens' : 'end_turn';
  const reasoning: Reasoning | undefined = output.some((i) => i.type === 'reasoning')
    ? { provider: 'openai', model, output: output.map((i) => ({ ...i })), ...(summary && { text: summary }) }
    : undefined;
  return { text, toolCalls, stopReason, usage: fromResponsesUsage(response.usage), ...(reasoning && { reasoning }) };
}

function parseArguments(raw: unknown): Record<string, unknown> {
  try {
    const value = JSON.parse(String(raw ?? '{}')) as unknown;
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** Responses usage: input_tokens INCLUDES cached_tokens (split out); output_tokens INCLUDES reasoning_tokens (billed as output). */
export function fromResponsesUsage(u: ApiResponse['usage'] | undefined): Usage {
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0);
  const prompt = n(u?.input_tokens);
  const cached = Math.min(prompt, n(u?.input_tokens_details?.cached_tokens));
  const reasoning = n(u?.output_tokens_details?.reasoning_tokens);
  return { input: prompt - cached, cacheRead: cached, cacheWrite: 0, output: n(u?.output_tokens), costUsd: 0, ...(reasoning && { reasoning }) };
}
