// A server whose real window is smaller than skein is told, in process, for
// replaying the recorded trajectories fast (the benchmark's mismatch section
// and the property test): it stands in front of any provider (the replay
// model) and either refuses an over-long request with a real server's error
// text (parsed by skein like any other), or, Ollama-style, silently drops the
// start of the conversation and answers from what is left, reporting the kept
// count. It also answers skein's limits question like that server would.
import { ContextOverflowError, type DiscoveredLimits, type LlmRequest, type LlmResponse, type Provider, type RecordedTools, type ScriptedUser, type StreamHandlers } from '../../server/llm/types.js';
import { simulatedInputTokens } from '../../server/llm/simulated-usage.js';
import { ollamaTruncate, refusal, type CompatFlavour } from './window.js';

export interface WindowedStats {
  refusals: number;
  /** Requests whose start was dropped (Ollama-style). */
  cuts: number;
  /** Of those, requests that lost the first user message. */
  cutFirstUser: number;
}

export class WindowedProvider implements Provider, RecordedTools, ScriptedUser {
  readonly stats: WindowedStats = { refusals: 0, cuts: 0, cutFirstUser: 0 };

  constructor(
    private readonly inner: Provider,
    readonly window: number,
    private readonly flavour: CompatFlavour,
    /** Answer skein's limits question (an Ollama server always answers /api/show). */
    private readonly advertise = flavour === 'ollama',
  ) {}

  get model(): string {
    return this.inner.model;
  }

  get limits() {
    return this.inner.limits;
  }

  async complete(request: LlmRequest, signal: AbortSignal, stream?: StreamHandlers): Promise<LlmResponse> {
    if (this.flavour === 'ollama') {
      const count = (messages: LlmRequest['messages']) => simulatedInputTokens({ ...request, messages });
      const { kept, droppedFirstUser } = ollamaTruncate(request.messages, count, this.window);
      if (kept.length < request.messages.length) {
        this.stats.cuts++;
        if (droppedFirstUser) this.stats.cutFirstUser++;
      }
      // Ollama never refuses for the output budget: it generates until num_ctx is full. The inner model must not refuse it either.
      const room = Math.max(1, this.inner.limits.contextWindow - count(kept));
      return this.inner.complete({ ...request, messages: kept, maxOutputTokens: Math.min(request.maxOutputTokens, room) }, signal, stream);
    }
    const input = simulatedInputTokens(request);
    const refused = refusal({ flavour: this.flavour, window: this.window, advertise: false }, input, request.maxOutputTokens);
    if (refused) {
      this.stats.refusals++;
      const body = refused.body as { error: { message: string; n_ctx?: number; n_prompt_tokens?: number } };
      throw new ContextOverflowError(body.error.message, undefined);
    }
    return this.inner.complete(request, signal, stream);
  }

  async discoverLimits(): Promise<DiscoveredLimits | { failed: string }> {
    if (!this.advertise) return { failed: 'no model-info endpoint' };
    return { contextWindow: this.window, via: 'the bench server', ...(this.flavour === 'ollama' && { truncates: true }) };
  }

  recordedToolResult(callId: string): { output: string; isError: boolean } | undefined {
    return (this.inner as Partial<RecordedTools>).recordedToolResult?.(callId);
  }

  nextUserMessage(): string | undefined {
    return (this.inner as Partial<ScriptedUser>).nextUserMessage?.();
  }
}
