// Ollama's own chat API (POST /api/chat), spoken only to ask for a larger
// context per request (SKEIN_LOCAL_CONTEXT). Ollama's OpenAI-compatible
// /v1/chat/completions maps only max_tokens, stop, temperature, seed, the
// penalties and top_p into its options: `num_ctx` can be set there by no
// field, so a server started with a small default keeps cutting the prompt.
// The native API takes `options.num_ctx` (and `num_predict` for the output
// budget) on each request. It streams newline-delimited JSON objects: pieces
// of `message.content` (and `message.thinking`), tool calls whole in
// `message.tool_calls` with arguments as an object, and a last object with
// `done: true`, `done_reason`, `prompt_eval_count` (the whole prompt, cached
// part included) and `eval_count`. A failure is `{"error": "..."}`, as the
// body of a 4xx/5xx or as a line in the middle of a stream.
import { parseRefusal } from './limits/refusal.js';
import { retryableStatus } from './errors/common.js';
import { ContextOverflowError, isAbortError, ProviderError, type LlmRequest, type LlmResponse, type StreamHandlers, type ToolCall } from './types.js';
import { messageImages, userText } from './message-images.js';
import { imagesRefused } from './errors/common.js';

export interface OllamaEndpoint {
  /** The server's root (OPENAI_BASE_URL without its /v1). */
  root: string;
  apiKey: string | undefined;
  /** The model name the server knows. */
  model: string;
  /** options.num_ctx of every request. */
  numCtx: number;
  timeoutMs: number;
}

interface OllamaMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  tool_calls?: { id?: string; function: { name: string; arguments: Record<string, unknown> } }[];
  tool_name?: string;
  tool_call_id?: string;
  /** base64 images of a user message (no data: prefix). */
  images?: string[];
}

/** One object of the answer (streamed or whole). */
interface OllamaChunk {
  message?: { content?: string; thinking?: string; tool_calls?: { id?: string; function?: { name?: string; arguments?: unknown } }[] };
  done?: boolean;
  done_reason?: string;
  prompt_eval_count?: number;
  eval_count?: number;
  error?: string;
}

/** The body of POST /api/chat for a request: the system prompt first, tool results named by their call's tool. */
export function ollamaChatBody(endpoint: Pick<OllamaEndpoint, 'model' | 'numCtx'>, request: LlmRequest, stream: boolean): Record<string, unknown> {
  const names = new Map<string, string>();
  const messages: OllamaMessage[] = [{ role: 'system', content: request.system }];
  for (const m of request.messages) {
    if (m.role === 'user' && m.images?.length) {
      // Ollama's own shape: the message's images as a list of base64 strings beside its text.
      const { images, missing } = messageImages(m);
      messages.push({ role: 'user', content: userText(m, missing, images.length > 0), ...(images.length && { images: images.map((image) => image.data) }) });
    } else if (m.role === 'user' || m.role === 'system') messages.push({ role: 'user', content: m.content });
    else if (m.role === 'tool') {
      const name = names.get(m.toolCallId ?? '');
      messages.push({ role: 'tool', content: m.content, ...(name && { tool_name: name }), ...(m.toolCallId && { tool_call_id: m.toolCallId }) });
    } else {
      for (const c of m.toolCalls ?? []) names.set(c.id, c.name);
      messages.push({
        role: 'assistant',
        content: m.content,
        ...(m.toolCalls?.length && { tool_calls: m.toolCalls.map((c) => ({ id: c.id, function: { name: c.name, arguments: c.input } })) }),
      });
    }
  }
  return {
    model: endpoint.model,
    messages,
    ...(request.tools.length && { tools: request.tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.inputSchema } })) }),
    stream,
    // num_ctx: the context asked for; num_predict: Ollama's name for max_tokens.
    options: { num_ctx: endpoint.numCtx, num_predict: request.maxOutputTokens },
  };
}

/** Ollama's "too long" texts: its own ("the prompt is longer than the context length…") and the runner's. */
const TOO_LONG = /context length|context size|exceeds the available context|too many tokens|prompt is too long/i;

function failure(status: number | undefined, text: string): Error {
  if ((status === undefined || status === 400 || status === 413) && TOO_LONG.test(text)) return new ContextOverflowError(text, parseRefusal(text));
  const noImages = imagesRefused(text, status);
  if (noImages) return noImages;
  // A line in a stream has no status: a runner that crashed or ran out of memory is worth another try.
  return new ProviderError(`Ollama: ${text}`, status, status === undefined ? true : retryableStatus(status));
}

async function errorText(res: Response): Promise<string> {
  const raw = await res.text().catch(() => '');
  try {
    const body = JSON.parse(raw) as { error?: unknown };
    if (typeof body.error === 'string') return body.error;
  } catch {
    // not JSON: the raw text says more than nothing
  }
  return raw.trim().slice(0, 500) || `HTTP ${res.status}`;
}

/** One request to /api/chat. Streams when `stream.onText` is given. */
export async function ollamaChat(endpoint: OllamaEndpoint, request: LlmRequest, signal: AbortSignal, stream?: StreamHandlers): Promise<LlmResponse> {
  const streaming = stream?.onText !== undefined;
  // Like the SDKs: the timeout covers waiting for the answer to begin, not a long stream.
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(new DOMException('the request timed out', 'TimeoutError')), endpoint.timeoutMs);
  try {
    let res: Response;
    try {
      res = await fetch(`${endpoint.root}/api/chat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: streaming ? 'application/x-ndjson' : 'application/json', ...(endpoint.apiKey && { authorization: `Bearer ${endpoint.apiKey}` }) },
        body: JSON.stringify(ollamaChatBody(endpoint, request, streaming)),
        signal: AbortSignal.any([signal, timeout.signal]),
      });
    } finally {
      clearTimeout(timer);
    }
    if (!res.ok) throw failure(res.status, await errorText(res));
    const assembler = new OllamaAssembler(stream);
    if (!streaming) {
      assembler.add(JSON.parse(await res.text()) as OllamaChunk);
      return assembler.response();
    }
    if (!res.body) throw new ProviderError('Ollama: an empty answer', res.status, true);
    let pending = '';
    const decoder = new TextDecoder();
    for await (const bytes of res.body as unknown as AsyncIterable<Uint8Array>) {
      pending += decoder.decode(bytes, { stream: true });
      let newline: number;
      while ((newline = pending.indexOf('\n')) >= 0) {
        const line = pending.slice(0, newline).trim();
        pending = pending.slice(newline + 1);
        if (line) assembler.add(JSON.parse(line) as OllamaChunk);
      }
    }
    if (pending.trim()) assembler.add(JSON.parse(pending) as OllamaChunk);
    return assembler.response();
  } catch (err) {
    if (signal.aborted || (isAbortError(err) && !timeout.signal.aborted)) throw err;
    if (err instanceof ContextOverflowError || err instanceof ProviderError) throw err;
    if (timeout.signal.aborted || (err instanceof Error && err.name === 'TimeoutError')) throw new ProviderError('the request timed out', undefined, true);
    if (err instanceof SyntaxError) throw new ProviderError(`malformed response from Ollama: ${err.message}`, undefined, true);
    throw new ProviderError(`connection failed: ${err instanceof Error ? `${err.message}${err.cause ? ` (${String(err.cause)})` : ''}` : String(err)}`, undefined, true);
  }
}

/** Builds one response from the answer's objects. */
class OllamaAssembler {
  private text = '';
  private readonly calls: ToolCall[] = [];
  private last: OllamaChunk | undefined;

  constructor(private readonly stream: StreamHandlers | undefined) {}

  add(chunk: OllamaChunk): void {
    if (typeof chunk.error === 'string') throw failure(undefined, chunk.error);
    const m = chunk.message;
    if (m?.thinking) this.stream?.onThinking?.(m.thinking);
    if (m?.content) {
      this.text += m.content;
      this.stream?.onText?.(m.content);
    }
    for (const c of m?.tool_calls ?? []) {
      if (!c.function?.name) continue;
      const args = c.function.arguments;
      const input = args && typeof args === 'object' && !Array.isArray(args) ? (args as Record<string, unknown>) : parseArgs(args);
      this.calls.push({ id: c.id || `call_${this.calls.length}_${Date.now().toString(36)}`, name: c.function.name, input });
    }
    if (chunk.done) this.last = chunk;
  }

  response(): LlmResponse {
    // A stream that ends without its `done` object was cut off: ask again rather than keep half an answer.
    if (!this.last) throw new ProviderError('Ollama: the answer ended before it was done', undefined, true);
    const count = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0);
    return {
      text: this.text,
      toolCalls: this.calls,
      stopReason: this.calls.length ? 'tool_use' : this.last.done_reason === 'length' ? 'max_tokens' : 'end_turn',
      usage: { input: count(this.last.prompt_eval_count), cacheRead: 0, cacheWrite: 0, output: count(this.last.eval_count), costUsd: 0 },
    };
  }
}

function parseArgs(raw: unknown): Record<string, unknown> {
  if (typeof raw !== 'string' || !raw.trim()) return {};
  try {
    const value: unknown = JSON.parse(raw);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : { arguments: value };
  } catch {
    return { invalid_json_arguments: raw };
  }
}

/**
 * Whether the server at `root` is Ollama: GET /api/version answers
 * `{"version": "…"}` there and nowhere else. Undefined when the server could
 * not be reached (ask again next time); false for any other answer.
 */
export async function ollamaVersion(root: string, apiKey: string | undefined, signal: AbortSignal, timeoutMs = 5000): Promise<string | false | undefined> {
  try {
    const res = await fetch(`${root}/api/version`, {
      headers: { accept: 'application/json', ...(apiKey && { authorization: `Bearer ${apiKey}` }) },
      signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
    });
    if (!res.ok) return false;
    const body = (await res.json().catch(() => undefined)) as { version?: unknown } | undefined;
    return typeof body?.version === 'string' && body.version ? body.version : false;
  } catch (err) {
    if (signal.aborted) throw err;
    return undefined;
  }
}
