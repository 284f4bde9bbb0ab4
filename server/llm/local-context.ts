// SKEIN_LOCAL_CONTEXT: ask a local server for a larger context per request.
// Of the OpenAI-compatible servers only Ollama lets a client choose the
// context per request (options.num_ctx), and only through its native
// /api/chat; llama.cpp's server (-c), vLLM (--max-model-len) and LM Studio
// (the context length the model was loaded with) fix it at launch. So the
// server is asked once whether it is Ollama (GET /api/version); if so, the
// session's requests go to /api/chat with num_ctx, else they stay on Chat
// Completions and the log says why the setting does nothing there.
import { ollamaVersion, type OllamaEndpoint } from './ollama-native.js';
import { rootOf } from './limits/discover.js';
import type { Endpoint } from './credentials.js';

export class LocalContext {
  private decided: OllamaEndpoint | null | undefined;
  private asking: Promise<OllamaEndpoint | undefined> | undefined;

  constructor(
    private readonly endpoint: Endpoint & { baseURL: string },
    private readonly model: string,
    readonly numCtx: number,
    private readonly timeoutMs: number,
  ) {}

  /** Ollama's native endpoint with num_ctx, or undefined when the server is not Ollama (or could not be reached: asked again next time). */
  async native(signal: AbortSignal): Promise<OllamaEndpoint | undefined> {
    if (this.decided !== undefined) return this.decided ?? undefined;
    this.asking ??= this.ask(signal).finally(() => (this.asking = undefined));
    return this.asking;
  }

  private async ask(signal: AbortSignal): Promise<OllamaEndpoint | undefined> {
    const root = rootOf(this.endpoint.baseURL);
    const version = await ollamaVersion(root, this.endpoint.apiKey, signal);
    if (version === undefined) return undefined;
    if (version === false) {
      this.decided = null;
      console.info(
        `[skein] SKEIN_LOCAL_CONTEXT=${this.numCtx} is not used: the server at ${root} is not Ollama (no /api/version), and only Ollama takes a context size per request. ` +
          'Set it where the server starts instead (llama.cpp: -c; vLLM: --max-model-len; LM Studio: the context length the model is loaded with).',
      );
      return undefined;
    }
    this.decided = { root, apiKey: this.endpoint.apiKey, model: this.model, numCtx: this.numCtx, timeoutMs: this.timeoutMs };
    console.info(`[skein] ${this.model}: Ollama ${version} at ${root}; asking for ${this.numCtx} tokens of context per request through /api/chat (SKEIN_LOCAL_CONTEXT)`);
    return this.decided;
  }
}
