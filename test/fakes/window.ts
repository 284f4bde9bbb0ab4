// Server families for the window tests: how each one refuses a request longer
// than its real window (its own error text and fields, taken from each
// server's source), how Ollama silently cuts the prompt instead, and the
// model-info endpoint each one answers (/v1/models with vLLM's max_model_len,
// llama.cpp's /props, Ollama's /api/show and /api/ps, LM Studio's
// /api/v0/models). The OpenAI-compatible fake calls these hooks.
import type http from 'node:http';
import { json, type FakeRequest } from './http.js';
import { refusalOf, type CompatFlavour, type Refusal } from './dialects.js';
import { llamaModels } from './llamacpp.js';

export type { CompatFlavour } from './dialects.js';

export interface WindowSettings {
  flavour: CompatFlavour;
  /** The context window the server really has (Ollama: num_ctx), in its own tokens. */
  window: number;
  /** Answer the flavour's model-info endpoint (false: it fails with 404 or 500). */
  advertise: boolean;
  /** When not advertised: 'missing' answers 404, 'broken' answers 500. */
  failure?: 'missing' | 'broken';
  /** Count with skein's own estimator's library as is (the old fakes), not the family's tokenizer. */
  o200k?: boolean;
}

/** The refusal the server sends for `prompt` input tokens and `maxTokens` output asked (status and raw body), or undefined when it fits (or it cuts). */
export function refusal(w: WindowSettings, prompt: number, maxTokens: number): Refusal | undefined {
  return refusalOf(w.flavour, w.window, prompt, maxTokens);
}

/**
 * Ollama's chatPrompt: drops messages from the front (system messages stay)
 * until the prompt fits num_ctx; the last message always stays. Returns the
 * kept messages and whether the first user message was among those dropped.
 */
export function ollamaTruncate<M extends { role: string }>(messages: M[], count: (kept: M[]) => number, window: number): { kept: M[]; droppedFirstUser: boolean } {
  const firstUser = messages.findIndex((m) => m.role === 'user');
  for (let i = 0; i < messages.length; i++) {
    const kept = [...messages.slice(0, i).filter((m) => m.role === 'system'), ...messages.slice(i)];
    if (count(kept) <= window || i === messages.length - 1) return { kept, droppedFirstUser: firstUser >= 0 && i > firstUser };
  }
  return { kept: messages, droppedFirstUser: false };
}

/** The flavour's model-info endpoints. Returns true when it answered the request. */
export function serveModelInfo(w: WindowSettings | undefined, models: string[], req: FakeRequest, res: http.ServerResponse): boolean {
  if (!w) return false;
  const url = req.url.split('?')[0]!;
  const endpoint =
    (w.flavour === 'llamacpp' && url === '/props') ||
    (w.flavour === 'ollama' && (url === '/api/show' || url === '/api/ps')) ||
    (w.flavour === 'lmstudio' && url.startsWith('/api/v0/models/'));
  if (!endpoint && !((w.flavour === 'vllm' || w.flavour === 'vllm-old' || w.flavour === 'sglang' || w.flavour === 'opaque' || w.flavour === 'llamacpp') && url === '/v1/models')) return false;
  if (!w.advertise) {
    if (url === '/v1/models') return false; // the ordinary list, without windows
    json(res, w.failure === 'broken' ? 500 : 404, { error: w.failure === 'broken' ? 'internal error' : 'not found' });
    return true;
  }
  switch (url) {
    case '/v1/models':
      // llama-server names its context under meta (skein reads /props for it).
      json(res, 200, w.flavour === 'llamacpp' ? llamaModels(models, w.window) : { object: 'list', data: models.map((id) => ({ id, object: 'model', created: 1_700_000_000, owned_by: 'vllm', root: id, parent: null, max_model_len: w.window })) });
      return true;
    case '/props':
      json(res, 200, { default_generation_settings: { n_ctx: w.window, params: { n_predict: -1 } }, total_slots: 1, model_path: 'model.gguf', build_info: 'b6000' });
      return true;
    case '/api/show':
      json(res, 200, { parameters: `num_ctx                        ${w.window}\nstop                           "<|eot_id|>"`, model_info: { 'general.architecture': 'llama', 'llama.context_length': 131072 }, details: { family: 'llama' } });
      return true;
    case '/api/ps':
      json(res, 200, { models: models.map((name) => ({ name, model: name, size: 1, context_length: w.window })) });
      return true;
    default:
      json(res, 200, { id: decodeURIComponent(url.slice('/api/v0/models/'.length)), object: 'model', type: 'llm', state: 'loaded', max_context_length: 131072, loaded_context_length: w.window });
      return true;
  }
}
