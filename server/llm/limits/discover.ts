// Asking a server for a model's limits, once per model (the session keeps the
// answer in its log). Each provider has its own endpoint:
// - Anthropic: Models API (`client.models.retrieve`): max_input_tokens, max_tokens;
// - Gemini: `models.get`: inputTokenLimit, outputTokenLimit;
// - an OpenAI-compatible server: its /v1/models entry (vLLM: max_model_len),
//   llama.cpp server's /props (n_ctx, under default_generation_settings in
//   recent versions), Ollama's /api/show (the num_ctx parameter, else the
//   context_length of the loaded model from /api/ps, else the model's own
//   <arch>.context_length), LM Studio's /api/v0/models/{id}.
// Nothing here throws: a server that does not answer gives { failed }, and the
// caller falls back to the model table; `transient` when it may answer later
// (unreachable, timed out, 5xx, 429): the caller asks again (backoff.ts).
import type Anthropic from '@anthropic-ai/sdk';
import type { GoogleGenAI } from '@google/genai';
import type { ReasoningEffort, ThinkingCapabilities } from '../../../shared/protocol.js';
import { retryableStatus } from '../errors/common.js';
import type { DiscoveredLimits, DiscoveryFailure } from '../types.js';

export type Discovery = DiscoveredLimits | DiscoveryFailure;

/** One model-info request may take this long; a slow server is not worth waiting for. */
export const DISCOVERY_TIMEOUT_MS = 5000;

const positive = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.floor(v) : undefined);
const reason = (err: unknown) => (err instanceof Error ? err.message : String(err)).slice(0, 200);

/** An HTTP answer that is not 2xx (the status is the message, as before). */
class StatusError extends Error {
  constructor(readonly status: number) {
    super(`${status}`);
  }
}

/** The server may answer later: no HTTP answer at all (down, timed out), or one worth a retry (5xx, 429). */
function transient(err: unknown): boolean {
  const status = (err as { status?: unknown } | null)?.status;
  return typeof status === 'number' ? retryableStatus(status) : true;
}

function failure(failed: string, err: unknown): DiscoveryFailure {
  return transient(err) ? { failed, transient: true } : { failed };
}

function withTimeout(signal: AbortSignal): AbortSignal {
  return AbortSignal.any([signal, AbortSignal.timeout(DISCOVERY_TIMEOUT_MS)]);
}

function found(via: string, contextWindow: number | undefined, maxOutputTokens: number | undefined, truncates = false): Discovery {
  if (contextWindow === undefined && maxOutputTokens === undefined) return { failed: `${via}: no limits in the answer` };
  return { via, ...(contextWindow && { contextWindow }), ...(maxOutputTokens && { maxOutputTokens }), ...(truncates && { truncates }) };
}

export async function anthropicLimits(client: Anthropic, model: string, signal: AbortSignal): Promise<Discovery> {
  try {
    const info = await client.models.retrieve(model, {}, { signal: withTimeout(signal), timeout: DISCOVERY_TIMEOUT_MS });
    const limits = found('Anthropic Models API (max_input_tokens, max_tokens)', positive(info.max_input_tokens), positive(info.max_tokens));
    const thinking = thinkingOf(info.capabilities);
    if (!thinking) return limits;
    return 'failed' in limits ? { via: 'Anthropic Models API (capabilities)', thinking } : { ...limits, via: `${limits.via.slice(0, -1)}, capabilities)`, thinking };
  } catch (err) {
    return failure(`Anthropic Models API: ${reason(err)}`, err);
  }
}

/**
 * The Models API's `capabilities.thinking` and `capabilities.effort` as
 * skein's thinking options: adaptive thinking that refuses `disabled` is
 * always-on; the efforts the model lists (and `none` where thinking can be
 * turned off). Undefined when the answer has no capabilities.
 */
export function thinkingOf(capabilities: Anthropic.ModelCapabilities | null | undefined): ThinkingCapabilities | undefined {
  const thinking = capabilities?.thinking;
  if (!thinking) return undefined;
  if (!thinking.supported || !thinking.types?.adaptive?.supported) return { mode: 'off', efforts: [] };
  const mode = thinking.types.disabled?.supported === false ? 'always' : 'adaptive';
  const effort = capabilities.effort;
  const levels = (['low', 'medium', 'high', 'max'] as const).filter((e) => effort?.supported && effort[e]?.supported);
  const efforts: ReasoningEffort[] = [...(mode === 'adaptive' ? (['none'] as const) : []), ...levels];
  return { mode, efforts };
}

export async function geminiLimits(client: GoogleGenAI, model: string, signal: AbortSignal): Promise<Discovery> {
  try {
    const info = await client.models.get({ model, config: { abortSignal: withTimeout(signal) } });
    return found('Gemini models.get (inputTokenLimit, outputTokenLimit)', positive(info.inputTokenLimit), positive(info.outputTokenLimit));
  } catch (err) {
    return failure(`Gemini models.get: ${reason(err)}`, err);
  }
}

async function getJson(url: string, apiKey: string | undefined, signal: AbortSignal, body?: unknown): Promise<any> {
  const res = await fetch(url, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { accept: 'application/json', ...(apiKey && { authorization: `Bearer ${apiKey}` }), ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
    signal: withTimeout(signal),
  });
  if (!res.ok) {
    await res.body?.cancel();
    throw new StatusError(res.status);
  }
  return res.json();
}

/** The server's root: OPENAI_BASE_URL without its /v1. */
export function rootOf(baseURL: string): string {
  return baseURL.replace(/\/+$/, '').replace(/\/v1$/, '');
}

/** An OpenAI-compatible server: tries each local server's endpoint in turn; the first that names a window wins. */
export async function compatibleLimits(baseURL: string, apiKey: string | undefined, model: string, signal: AbortSignal): Promise<Discovery> {
  const root = rootOf(baseURL);
  const tried: string[] = [];
  // Any endpoint that could not be reached (or failed with a 5xx): the server may say more later.
  let passing = false;
  const attempts: [string, () => Promise<Discovery>][] = [
    ['GET /v1/models', () => modelsEntry(baseURL, apiKey, model, signal)],
    ['GET /props', () => llamaCppProps(root, apiKey, signal)],
    ['POST /api/show', () => ollamaShow(root, apiKey, model, signal)],
    ['GET /api/v0/models', () => lmStudio(root, apiKey, model, signal)],
  ];
  for (const [name, attempt] of attempts) {
    if (signal.aborted) break;
    try {
      const result = await attempt();
      if ('failed' in result) tried.push(result.failed);
      else if (result.contextWindow) return result;
      else tried.push(`${name}: no window`);
    } catch (err) {
      tried.push(`${name}: ${reason(err)}`);
      passing ||= transient(err);
    }
  }
  return { failed: tried.join('; '), ...(passing && { transient: true }) };
}

/** vLLM (max_model_len) and other servers that put the window in their model list. */
async function modelsEntry(baseURL: string, apiKey: string | undefined, model: string, signal: AbortSignal): Promise<Discovery> {
  const list = await getJson(`${baseURL.replace(/\/+$/, '')}/models`, apiKey, signal);
  const entry = (Array.isArray(list?.data) ? list.data : []).find((m: any) => m?.id === model);
  if (!entry) return { failed: `GET /v1/models: no entry for ${model}` };
  const window = positive(entry.max_model_len) ?? positive(entry.context_length) ?? positive(entry.context_window) ?? positive(entry.max_context_length);
  return found('GET /v1/models (max_model_len)', window, undefined);
}

/** llama.cpp server: n_ctx of a slot (recent versions under default_generation_settings; older ones at the top). */
async function llamaCppProps(root: string, apiKey: string | undefined, signal: AbortSignal): Promise<Discovery> {
  const props = await getJson(`${root}/props`, apiKey, signal);
  const window = positive(props?.default_generation_settings?.n_ctx) ?? positive(props?.n_ctx);
  return found('GET /props (n_ctx)', window, undefined);
}

/**
 * Ollama: the context it really uses is the num_ctx parameter, else (when the
 * model is loaded) /api/ps context_length; the model's own context_length is
 * only an upper bound. Ollama drops the start of a prompt that does not fit.
 */
async function ollamaShow(root: string, apiKey: string | undefined, model: string, signal: AbortSignal): Promise<Discovery> {
  const show = await getJson(`${root}/api/show`, apiKey, signal, { model });
  if (!show || typeof show !== 'object' || !('model_info' in show || 'parameters' in show)) return { failed: 'POST /api/show: not an Ollama answer' };
  const numCtx = positive(Number(/^num_ctx\s+(\d+)/m.exec(String(show.parameters ?? ''))?.[1]));
  if (numCtx) return found('Ollama /api/show (num_ctx)', numCtx, undefined, true);
  const ps = await getJson(`${root}/api/ps`, apiKey, signal).catch(() => undefined);
  const loaded = (Array.isArray(ps?.models) ? ps.models : []).find((m: any) => m?.name === model || m?.model === model);
  if (positive(loaded?.context_length)) return found('Ollama /api/ps (context_length)', positive(loaded.context_length), undefined, true);
  const info = show.model_info ?? {};
  const arch = info['general.architecture'];
  const trained = positive(info[`${arch}.context_length`]);
  return found('Ollama /api/show (<arch>.context_length)', trained, undefined, true);
}

/** LM Studio's own REST API: the loaded context length, else the model's maximum. */
async function lmStudio(root: string, apiKey: string | undefined, model: string, signal: AbortSignal): Promise<Discovery> {
  const m = await getJson(`${root}/api/v0/models/${encodeURIComponent(model)}`, apiKey, signal);
  return found('LM Studio /api/v0/models (loaded_context_length)', positive(m?.loaded_context_length) ?? positive(m?.max_context_length), undefined);
}

/**
 * Ollama asked for `requested` tokens of context per request (SKEIN_LOCAL_CONTEXT,
 * options.num_ctx): it gives that much, but never more than the model was
 * trained for (its runner clamps num_ctx to the model's context length).
 */
export async function ollamaRequestedLimits(root: string, apiKey: string | undefined, model: string, requested: number, signal: AbortSignal): Promise<Discovery> {
  const via = `Ollama /api/chat options.num_ctx ${requested} (SKEIN_LOCAL_CONTEXT)`;
  try {
    const show = await getJson(`${root}/api/show`, apiKey, signal, { model });
    const info = show?.model_info ?? {};
    const trained = positive(info[`${info['general.architecture']}.context_length`]);
    if (trained !== undefined && trained < requested) return found(`${via}, capped by the model's context_length (${trained})`, trained, undefined, true);
  } catch {
    // The model's own limit is unknown: the requested context stands, and a cut prompt would still be noticed.
  }
  return found(via, requested, undefined, true);
}
