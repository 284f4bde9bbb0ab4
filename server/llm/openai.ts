// OpenAI chat completions through the `openai` SDK, for OpenAI itself and any
// OpenAI-compatible server (Ollama, vLLM, llama.cpp server, LM Studio...)
// through OPENAI_BASE_URL. Turns stream; tool calls are assembled from
// `delta.tool_calls[index]` pieces, parallel calls included; usage comes in
// the last chunk (stream_options.include_usage). OpenAI caches prompts by
// itself: no cache markers to send.
import OpenAI from 'openai';
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionFunctionTool,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import { isOpenAI, type Endpoint } from './credentials.js';
import { compatibleLimits, ollamaRequestedLimits, type Discovery } from './limits/discover.js';
import { LocalContext } from './local-context.js';
import { ollamaChat } from './ollama-native.js';
import { fromOpenAIError } from './errors/openai.js';
import { keepingErrorBodies } from './errors/raw-body.js';
import type { LlmRequest, LlmResponse, ModelLimits, Provider, StreamHandlers, ToolCall } from './types.js';
import { fromOpenAI, type OpenAIUsage } from './usage.js';
import { messageImages, userText } from './message-images.js';

export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

export function openaiClient(endpoint: Endpoint, timeoutMs: number): OpenAI {
  // Local servers need no key, but the SDK wants one. skein retries itself. Error bodies are kept whole (raw-body.ts).
  return new OpenAI({ apiKey: endpoint.apiKey ?? 'no-key', baseURL: endpoint.baseURL ?? OPENAI_DEFAULT_BASE_URL, maxRetries: 0, timeout: timeoutMs, fetch: keepingErrorBodies() });
}

export class OpenAIProvider implements Provider {
  private readonly client: OpenAI;
  /** OpenAI's own API wants max_completion_tokens (reasoning models refuse max_tokens); other servers know max_tokens. */
  private readonly official: boolean;
  /** SKEIN_LOCAL_CONTEXT on a local server: Ollama's native chat with num_ctx (other servers stay here). */
  private readonly local: LocalContext | undefined;

  constructor(
    /** The name the session shows (may carry a `provider:` prefix). */
    readonly model: string,
    private readonly apiModel: string,
    readonly limits: ModelLimits,
    private readonly endpoint: Endpoint,
    timeoutMs: number,
    localContext?: number,
  ) {
    this.client = openaiClient(endpoint, timeoutMs);
    this.official = endpoint.baseURL === undefined || isOpenAI(endpoint.baseURL);
    if (localContext !== undefined && !this.official) this.local = new LocalContext({ ...endpoint, baseURL: endpoint.baseURL! }, apiModel, localContext, timeoutMs);
  }

  async complete(request: LlmRequest, signal: AbortSignal, stream?: StreamHandlers): Promise<LlmResponse> {
    const native = await this.local?.native(signal);
    if (native) return ollamaChat(native, request, signal, stream);
    const params = openaiParams(this.apiModel, request, this.official);
    try {
      if (!stream?.onText) return fromCompletion(await this.client.chat.completions.create(params, { signal }));
      const chunks = await this.client.chat.completions.create(
        { ...params, stream: true, stream_options: { include_usage: true } },
        { signal },
      );
      const assembler = new ChunkAssembler(stream.onText);
      for await (const chunk of chunks) assembler.add(chunk);
      return assembler.response();
    } catch (err) {
      throw fromOpenAIError(err, signal);
    }
  }

  /** OpenAI's own models API names no limits (the table has them); a local server's endpoints do. */
  async discoverLimits(signal: AbortSignal): Promise<Discovery> {
    if (this.official) return { failed: "OpenAI's models API does not give limits" };
    const native = await this.local?.native(signal);
    if (native) return ollamaRequestedLimits(native.root, native.apiKey, this.apiModel, native.numCtx, signal);
    return compatibleLimits(this.endpoint.baseURL!, this.endpoint.apiKey, this.apiModel, signal);
  }
}

export function openaiParams(model: string, request: LlmRequest, official: boolean): ChatCompletionCreateParamsNonStreaming {
  const tools: ChatCompletionFunctionTool[] = request.tools.map((t) => ({
    type: 'function',
    function: { name: t.name, description: t.description, parameters: t.inputSchema },
  }));
  const messages: ChatCompletionMessageParam[] = [{ role: 'system', content: request.system }];
  for (const m of request.messages) {
    if (m.role === 'user' && m.images?.length) {
      const { images, missing } = messageImages(m);
      const text = userText(m, missing, images.length > 0);
      messages.push({
        role: 'user',
        content: [...(text ? [{ type: 'text' as const, text }] : []), ...images.map((image) => ({ type: 'image_url' as const, image_url: { url: `data:${image.mediaType};base64,${image.data}` } }))],
      });
    } else if (m.role === 'user' || m.role === 'system') messages.push({ role: 'user', content: m.content });
    else if (m.role === 'tool') messages.push({ role: 'tool', tool_call_id: m.toolCallId ?? 'missing', content: m.content });
    else if (m.toolCalls?.length) {
      messages.push({
        role: 'assistant',
        content: m.content || null,
        tool_calls: m.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.input) } })),
      });
    } else messages.push({ role: 'assistant', content: m.content });
  }
  return {
    model,
    messages,
    ...(official ? { max_completion_tokens: request.maxOutputTokens } : { max_tokens: request.maxOutputTokens }),
    ...(tools.length && { tools }),
  };
}

/** Arguments arrive as a JSON string (some servers send an object); bad JSON reaches the tool, which reports it. */
function parseArguments(raw: unknown): Record<string, unknown> {
  if (raw && typeof raw === 'object' && !Array.isArray(raw)) return raw as Record<string, unknown>;
  const text = typeof raw === 'string' ? raw.trim() : '';
  if (!text) return {};
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : { arguments: value };
  } catch {
    return { invalid_json_arguments: text };
  }
}

function stopReason(finish: string | null | undefined, toolCalls: ToolCall[]): LlmResponse['stopReason'] {
  return toolCalls.length ? 'tool_use' : finish === 'length' ? 'max_tokens' : 'end_turn';
}

function fromCompletion(completion: ChatCompletion): LlmResponse {
  const choice = completion.choices[0];
  const toolCalls: ToolCall[] = (choice?.message.tool_calls ?? []).flatMap((c) =>
    c.type === 'function' ? [{ id: c.id, name: c.function.name, input: parseArguments(c.function.arguments) }] : [],
  );
  return {
    text: choice?.message.content ?? '',
    toolCalls,
    stopReason: stopReason(choice?.finish_reason, toolCalls),
    usage: fromOpenAI((completion.usage ?? {}) as OpenAIUsage),
  };
}

/** Builds one response from stream chunks. */
export class ChunkAssembler {
  private text = '';
  private readonly calls: { id: string; name: string; args: string }[] = [];
  private readonly byIndex = new Map<number, { id: string; name: string; args: string }>();
  private finish: string | null | undefined;
  private usage: OpenAIUsage = {};

  constructor(private readonly onText: (delta: string) => void) {}

  add(chunk: ChatCompletionChunk): void {
    // OpenAI sends usage in a last chunk with no choices; some servers put it on the final choice chunk.
    if (chunk.usage) this.usage = chunk.usage as OpenAIUsage;
    const choice = chunk.choices?.[0];
    if (!choice) return;
    if (choice.finish_reason) this.finish = choice.finish_reason;
    const delta = choice.delta;
    if (typeof delta?.content === 'string' && delta.content) {
      this.text += delta.content;
      this.onText(delta.content);
    }
    for (const piece of delta?.tool_calls ?? []) {
      const call = this.callFor(piece.index, piece.id);
      if (piece.id && !call.id) call.id = piece.id;
      // The name comes whole in the first piece; some servers repeat it.
      if (piece.function?.name && !call.name) call.name = piece.function.name;
      const args: unknown = piece.function?.arguments;
      if (typeof args === 'string') call.args += args;
      else if (args && typeof args === 'object') call.args += JSON.stringify(args);
    }
  }

  /** Pieces of one call share its index; a server that omits the index starts a call with each new id. */
  private callFor(index: number | undefined, id: string | undefined) {
    if (typeof index === 'number') {
      let call = this.byIndex.get(index);
      if (!call) {
        call = { id: '', name: '', args: '' };
        this.byIndex.set(index, call);
        this.calls.push(call);
      }
      return call;
    }
    const last = this.calls.at(-1);
    if (last && (!id || last.id === id)) return last;
    const call = { id: '', name: '', args: '' };
    this.calls.push(call);
    return call;
  }

  response(): LlmResponse {
    const ordered = [...this.byIndex.entries()].sort(([a], [b]) => a - b).map(([, c]) => c);
    const calls = ordered.length === this.calls.length ? ordered : this.calls;
    const toolCalls: ToolCall[] = calls
      .filter((c) => c.name)
      .map((c, i) => ({ id: c.id || `call_${i}_${Date.now().toString(36)}`, name: c.name, input: parseArguments(c.args) }));
    return { text: this.text, toolCalls, stopReason: stopReason(this.finish, toolCalls), usage: fromOpenAI(this.usage) };
  }
}

/** The models an OpenAI-compatible server serves (GET /models), in its order. */
export async function listServerModels(endpoint: Endpoint, timeoutMs: number): Promise<string[]> {
  const ids: string[] = [];
  for await (const model of openaiClient(endpoint, timeoutMs).models.list()) ids.push(model.id);
  return ids;
}
