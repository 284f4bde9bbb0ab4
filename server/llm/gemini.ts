// Gemini through @google/genai (the maintained successor of
// @google/generative-ai, which reached end of life in 2025). Turns use
// streamGenerateContent (SSE); summaries one generateContent answer. Gemini
// caches prompt prefixes by itself (implicit caching): no markers to send.
// Thought signatures: Gemini 3 refuses a replayed function call without the
// signature it came with. Signatures seen in this process are sent back;
// calls from before a restart or from another model get the documented
// placeholder that skips the check.
import { GoogleGenAI, type Content, type GenerateContentParameters, type GenerateContentResponse, type Part } from '@google/genai';
import type { Reasoning, ViewMessage } from '../../shared/protocol.js';
import type { Endpoint } from './credentials.js';
import { geminiSchema } from './gemini-schema.js';
import { modelInfo } from './models.js';
import { geminiLimits, type Discovery } from './limits/discover.js';
import { fromGeminiError } from './errors/gemini.js';
import { geminiThinking, ownReasoning } from './reasoning.js';
import type { LlmRequest, LlmResponse, ModelLimits, Provider, StreamHandlers, ToolCall } from './types.js';
import { fromGemini, type GeminiUsage } from './usage.js';
import { messageImages, userText } from './message-images.js';

export const GEMINI_DEFAULT_BASE_URL = 'https://generativelanguage.googleapis.com/';
const SKIP_SIGNATURE_CHECK = 'skip_thought_signature_validator';

export class GeminiProvider implements Provider {
  private readonly client: GoogleGenAI;
  private readonly signatures = new Map<string, string>();
  private calls = 0;

  constructor(
    /** The name the session shows (may carry a `provider:` prefix). */
    readonly model: string,
    private readonly apiModel: string,
    readonly limits: ModelLimits,
    endpoint: Endpoint,
    timeoutMs: number,
  ) {
    // No SDK retries unless asked (none here): skein retries itself, visibly.
    this.client = new GoogleGenAI({
      apiKey: endpoint.apiKey ?? '',
      vertexai: false,
      httpOptions: { baseUrl: endpoint.baseURL ?? GEMINI_DEFAULT_BASE_URL, timeout: timeoutMs },
    });
  }

  async complete(request: LlmRequest, signal: AbortSignal, stream?: StreamHandlers): Promise<LlmResponse> {
    const params = geminiParams(this.apiModel, request, (id) => this.signatures.get(id));
    params.config = { ...params.config, abortSignal: signal };
    try {
      const assembler = new ResponseAssembler(stream?.onText, stream?.onThinking, () => `gemini_${++this.calls}_${Date.now().toString(36)}`, this.apiModel);
      if (stream?.onText || stream?.onThinking) {
        for await (const chunk of await this.client.models.generateContentStream(params)) assembler.add(chunk);
      } else {
        assembler.add(await this.client.models.generateContent(params));
      }
      const response = assembler.response();
      for (const [id, signature] of assembler.signatures) this.signatures.set(id, signature);
      return response;
    } catch (err) {
      throw fromGeminiError(err, signal);
    }
  }

  discoverLimits(signal: AbortSignal): Promise<Discovery> {
    return geminiLimits(this.client, this.apiModel, signal);
  }
}

export function geminiParams(model: string, request: LlmRequest, signatureOf: (id: string) => string | undefined): GenerateContentParameters {
  const declarations = request.tools.map((t) => ({ name: t.name, description: t.description, parametersJsonSchema: geminiSchema(t.inputSchema) }));
  const thinkingConfig = geminiThinking(modelInfo(model)?.thinking, request.effort);
  return {
    model,
    contents: toContents(request.messages, signatureOf, model.startsWith('gemini-3'), model),
    config: {
      systemInstruction: request.system,
      maxOutputTokens: request.maxOutputTokens,
      ...(declarations.length && { tools: [{ functionDeclarations: declarations }] }),
      ...(thinkingConfig && { thinkingConfig }),
    },
  };
}

/** Tool results go back as functionResponse parts of a user turn; consecutive turns of one role are merged. */
export function toContents(view: ViewMessage[], signatureOf: (id: string) => string | undefined, needsSignatures: boolean, model = ''): Content[] {
  const out: Content[] = [];
  const names = new Map<string, string>();
  const push = (role: 'user' | 'model', parts: Part[]) => {
    const previous = out.at(-1);
    if (previous?.role === role) previous.parts!.push(...parts);
    else out.push({ role, parts });
  };
  for (const m of view) {
    if (m.role === 'user' && m.images?.length) {
      const { images, missing } = messageImages(m);
      const text = userText(m, missing, images.length > 0);
      push('user', [...images.map((image): Part => ({ inlineData: { mimeType: image.mediaType, data: image.data } })), ...(text ? [{ text }] : [])]);
    } else if (m.role === 'user' || m.role === 'system') push('user', [{ text: m.content || '(empty message)' }]);
    else if (m.role === 'assistant') {
      // This model's own answer goes back as returned: its parts carry their thought signatures (after a restart too).
      const own = ownReasoning(m, 'gemini', model);
      if (own) {
        for (const call of m.toolCalls ?? []) names.set(call.id, call.name);
        push('model', own.output.map((p) => ({ ...p }) as Part));
        continue;
      }
      const parts: Part[] = m.content ? [{ text: m.content }] : [];
      (m.toolCalls ?? []).forEach((call, i) => {
        names.set(call.id, call.name);
        const signature = signatureOf(call.id) ?? (needsSignatures && i === 0 ? SKIP_SIGNATURE_CHECK : undefined);
        parts.push({ functionCall: { name: call.name, args: call.input }, ...(signature && { thoughtSignature: signature }) });
      });
      push('model', parts.length ? parts : [{ text: '(no answer)' }]);
    } else {
      const name = names.get(m.toolCallId ?? '') ?? 'unknown_tool';
      push('user', [{ functionResponse: { name, response: { output: m.content } } }]);
    }
  }
  return out;
}

/** Builds one response from the chunks of a stream (or the one JSON answer). */
class ResponseAssembler {
  private text = '';
  private readonly toolCalls: ToolCall[] = [];
  readonly signatures = new Map<string, string>();
  private finish: string | undefined;
  private usage: GeminiUsage = {};
  /** Every part as it came, for the log (thought summaries and signatures included). */
  private readonly parts: Part[] = [];
  private thoughts = '';

  constructor(
    private readonly onText: ((delta: string) => void) | undefined,
    private readonly onThinking: ((delta: string) => void) | undefined,
    private readonly newId: () => string,
    private readonly model: string,
  ) {}

  add(chunk: GenerateContentResponse): void {
    // usageMetadata is cumulative: the last one counts.
    if (chunk.usageMetadata) this.usage = chunk.usageMetadata as GeminiUsage;
    const candidate = chunk.candidates?.[0];
    if (candidate?.finishReason) this.finish = candidate.finishReason;
    for (const part of candidate?.content?.parts ?? []) {
      this.parts.push(part);
      if (part.thought) {
        // A thought summary (includeThoughts): shown above the answer, never part of it.
        if (typeof part.text === 'string' && part.text) {
          this.thoughts += part.text;
          this.onThinking?.(part.text);
        }
        continue;
      }
      if (typeof part.text === 'string' && part.text) {
        this.text += part.text;
        this.onText?.(part.text);
      }
      if (part.functionCall?.name) {
        const id = part.functionCall.id || this.newId();
        if (part.thoughtSignature) this.signatures.set(id, part.thoughtSignature);
        this.toolCalls.push({ id, name: part.functionCall.name, input: part.functionCall.args ?? {} });
      }
    }
  }

  response(): LlmResponse {
    const stopReason = this.toolCalls.length ? 'tool_use' : this.finish === 'MAX_TOKENS' ? 'max_tokens' : 'end_turn';
    const thought = this.parts.some((p) => p.thought || p.thoughtSignature);
    const reasoning: Reasoning | undefined = thought
      ? { provider: 'gemini', model: this.model, output: this.parts.map((p) => ({ ...p }) as Record<string, unknown>), ...(this.thoughts && { text: this.thoughts }) }
      : undefined;
    return { text: this.text, toolCalls: this.toolCalls, stopReason, usage: fromGemini(this.usage), ...(reasoning && { reasoning }) };
  }
}
