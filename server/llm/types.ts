// The provider-neutral LLM interface. A provider only translates this shape to
// and from its SDK; everything else in skein speaks only these types.
import type { ProviderCompaction, Reasoning, ReasoningEffort, ThinkingCapabilities, Usage, ViewMessage } from '../../shared/protocol.js';
import { parseRefusal, type RefusalLimits } from './limits/refusal.js';

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
  /** How hard a reasoning model should think (absent or `default`: the provider's default). */
  effort?: ReasoningEffort;
}

export interface ToolCall {
  id: string;
  name: string;
  input: Record<string, unknown>;
}

export interface LlmResponse {
  text: string;
  toolCalls: ToolCall[];
  /** 'max_tokens': the answer was cut (finish_reason "length", stop_reason "max_tokens", MAX_TOKENS, Responses "incomplete"): by its output budget or a full context. */
  stopReason: 'end_turn' | 'tool_use' | 'max_tokens';
  /** A cut the provider itself put down to a full context window (Anthropic's stop_reason "model_context_window_exceeded"). */
  contextFull?: boolean;
  /** Normalised usage; costUsd is filled in from the model table. */
  usage: Usage;
  /** A reasoning model's answer as returned, to send back exactly (see shared/protocol.ts). */
  reasoning?: Reasoning;
  /** Defects the provider worked around (e.g. a refused thinking prefix, retried without it): logged as error events. */
  notes?: { code: string; message: string }[];
}

export interface ModelLimits {
  contextWindow: number;
  maxOutputTokens: number;
}

/** Live output while a response is generated (turns only; summaries are not streamed). */
export interface StreamHandlers {
  /** A piece of the assistant's text, in order. */
  onText?(delta: string): void;
  /** A piece of the readable thinking (or thought summary), in order. */
  onThinking?(delta: string): void;
}

export interface Provider {
  readonly model: string;
  readonly limits: ModelLimits;
  complete(request: LlmRequest, signal: AbortSignal, stream?: StreamHandlers): Promise<LlmResponse>;
}

/** The provider refused the request as longer than its context window (or was seen cutting it). */
export class ContextOverflowError extends Error {
  override readonly name = 'ContextOverflowError';
  /** The numbers the refusal names (window, prompt, output budget), parsed from its text unless given. */
  readonly limits: RefusalLimits;
  constructor(
    message: string,
    limits?: RefusalLimits,
    /** Not a refusal: the server answered but had silently dropped the start of the prompt. */
    readonly truncated = false,
  ) {
    super(message);
    this.limits = limits ?? parseRefusal(message);
  }
}

/** A model-info request that did not name the limits; `transient`: the server may answer later (down, 5xx, 429). */
export interface DiscoveryFailure {
  failed: string;
  transient?: boolean;
}

/** What a provider's model-info endpoint says about a model; fields it does not give are left out. */
export interface DiscoveredLimits {
  contextWindow?: number;
  maxOutputTokens?: number;
  /** Which endpoint said so, e.g. "GET /props (n_ctx)". */
  via: string;
  /** The server drops the start of a prompt that does not fit instead of refusing it (Ollama). */
  truncates?: boolean;
  /** How the model thinks, when the endpoint says (Anthropic's Models API `capabilities`). */
  thinking?: ThinkingCapabilities;
}

/** Optional: a provider that takes capabilities learned from its Models API (they win over the model table). */
export interface CapabilityAware {
  adoptCapabilities(thinking: ThinkingCapabilities | undefined): void;
}

export function isCapabilityAware(provider: Provider): provider is Provider & CapabilityAware {
  return typeof (provider as Partial<CapabilityAware>).adoptCapabilities === 'function';
}

/** What a provider-side compaction returned: its own state to send back, a readable text for everyone else, its cost. */
export interface ProviderCompactionResult {
  compaction: ProviderCompaction;
  /** The readable summary (Anthropic's block content; for OpenAI's opaque item, the span's user messages). */
  text: string;
  usage: Usage;
}

/**
 * Optional: a provider whose API compacts a conversation itself (Anthropic's
 * on-demand compaction, OpenAI's /responses/compact). `messages` is the span
 * to fold, from the start of the conversation; the kept turns follow it.
 * Throws ProviderError when the provider cannot (the pipeline goes on with skein's own strategies).
 */
export interface ProviderCompactor {
  compactHistory(request: Pick<LlmRequest, 'system' | 'tools' | 'messages'> & { instructions?: string }, signal: AbortSignal): Promise<ProviderCompactionResult>;
}

export function hasProviderCompaction(provider: Provider): provider is Provider & ProviderCompactor {
  return typeof (provider as Partial<ProviderCompactor>).compactHistory === 'function';
}

/** Optional: a provider that can ask its server for the model's limits. Never throws: undefined when it cannot tell. */
export interface LimitsDiscovery {
  discoverLimits(signal: AbortSignal): Promise<DiscoveredLimits | DiscoveryFailure>;
}

export function hasLimitsDiscovery(provider: Provider): provider is Provider & LimitsDiscovery {
  return typeof (provider as Partial<LimitsDiscovery>).discoverLimits === 'function';
}

/** Any other provider failure; `retryable` for 429 / 5xx / overload / timeouts. */
export class ProviderError extends Error {
  override readonly name = 'ProviderError';
  constructor(
    message: string,
    readonly status: number | undefined,
    readonly retryable: boolean,
    /** How long the provider asked us to wait (retry-after), when it said. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

export function isAbortError(err: unknown): boolean {
  return err instanceof Error && (err.name === 'AbortError' || err.name === 'APIUserAbortError');
}

/** Optional: a provider that replays a recorded session returns the recorded tool outputs instead of running tools. */
export interface RecordedTools {
  recordedToolResult(callId: string): { output: string; isError: boolean } | undefined;
}

export function hasRecordedTools(provider: Provider): provider is Provider & RecordedTools {
  return typeof (provider as Partial<RecordedTools>).recordedToolResult === 'function';
}

/** Optional: a provider that replays a recorded session also plays the user's later messages. */
export interface ScriptedUser {
  nextUserMessage(): string | undefined;
}

export function hasScriptedUser(provider: Provider): provider is Provider & ScriptedUser {
  return typeof (provider as Partial<ScriptedUser>).nextUserMessage === 'function';
}
