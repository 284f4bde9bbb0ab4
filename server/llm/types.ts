// The provider-neutral LLM interface. A provider only translates this shape to
// and from its SDK; everything else in skein speaks only these types.
import type { Usage, ViewMessage } from '../../shared/protocol.js';

export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the tool's input object. */
  inputSchema: Record<string, unknown>;
}

export interface LlmRequest {
  system: string;
  /** The conversation, in the model-view shape (no system messages here). */
  messages: ViewMessage[];
  tools: ToolSpec[];
  maxOutputTokens: number;
  /** `summary` when compaction asks for a summary; a provider may use a cheaper path. */
  purpose: 'turn' | 'summary';
}

export interface ToolCall {
  id: string;
  name: string;
  input: Record<string, unknown>;
}

export interface LlmResponse {
  text: string;
  toolCalls: ToolCall[];
  stopReason: 'end_turn' | 'tool_use' | 'max_tokens';
  /** Normalised usage; costUsd is filled in from the model table. */
  usage: Usage;
}

export interface ModelLimits {
  contextWindow: number;
  maxOutputTokens: number;
}

export interface Provider {
  readonly model: string;
  readonly limits: ModelLimits;
  complete(request: LlmRequest, signal: AbortSignal): Promise<LlmResponse>;
}

/** The provider refused the request as longer than its context window. */
export class ContextOverflowError extends Error {
  override readonly name = 'ContextOverflowError';
}

/** Any other provider failure; `retryable` for 429 / 5xx / overload / timeouts. */
export class ProviderError extends Error {
  override readonly name = 'ProviderError';
  constructor(
    message: string,
    readonly status: number | undefined,
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

export function isAbortError(err: unknown): boolean {
  return err instanceof Error && (err.name === 'AbortError' || err.name === 'APIUserAbortError');
}
