// Makes the provider for a model name. One provider instance per session, so
// per-session state (the predictable model's simulated cache, Gemini's
// thought signatures) stays apart.
//
// A name is `predictable`, a model of the table (`claude-sonnet-4-5`,
// `gpt-4.1`, `gemini-2.5-pro`, dated snapshots too), a name whose prefix says
// its provider (`claude-…`, `gpt-…`, `o…`, `gemini-…`), or `provider:model`
// (`openai:llama3.1` for a model of an OpenAI-compatible server).
import { KEY_VARIABLES, usable, type Credentials } from './credentials.js';
import { lazyProvider } from './lazy-provider.js';
import { modelInfo, UNKNOWN_MODEL, type ModelInfo, type ProviderName } from './models.js';
import { PredictableProvider } from './predictable.js';
import { loadTrajectory, ReplayProvider } from './replay.js';
import { ProviderError, type ModelLimits, type Provider } from './types.js';

/** The model cannot be used: an unknown name, or its provider has no key. */
export class UnknownModelError extends Error {}

export interface ProviderSettings {
  /** SKEIN_CONTEXT_WINDOW: overrides the model's window. */
  contextWindow?: number | undefined;
  credentials: Credentials;
  /** One request may take this long before it counts as timed out (and is retried). */
  requestTimeoutMs: number;
  /** SKEIN_REPLAY_FILE: the recorded session the `replay` model plays. */
  replayFile?: string | undefined;
  /** SKEIN_LOCAL_CONTEXT: the context asked of a local server per request (Ollama's num_ctx). */
  localContext?: number | undefined;
}

export interface ProviderChoice {
  provider: Provider;
  /** The table entry, with the window and output limit this session uses. */
  info: ModelInfo;
  /** A placeholder's reason (the model cannot be used). A model not in the table is said by the session's window, when its server does not say its own (agent/window.ts). */
  warning?: string;
}

/**
 * Output tokens asked for per request: the model's maximum, but at most 16k
 * and a quarter of the window, so that the room kept free for the answer does
 * not force compaction long before the threshold. A quarter in every window
 * (a local server's 2,048 gets 512, not 1,024: half of it), never under
 * REQUEST_OUTPUT_MIN (a tool call needs that much).
 */
export const REQUEST_OUTPUT_CAP = 16_384;
export const REQUEST_OUTPUT_MIN = 256;

export function requestLimits(info: ModelLimits, contextWindow = info.contextWindow): ModelLimits {
  const maxOutputTokens = Math.min(info.maxOutputTokens, REQUEST_OUTPUT_CAP, Math.max(REQUEST_OUTPUT_MIN, Math.floor(contextWindow / 4)));
  return { contextWindow, maxOutputTokens };
}

const PROVIDERS: readonly ProviderName[] = ['predictable', 'anthropic', 'openai', 'gemini'];

/** Which provider serves a model name, and the model name that provider knows. */
export function parseModelName(name: string): { provider: ProviderName; model: string } | undefined {
  const colon = name.indexOf(':');
  if (colon > 0) {
    const prefix = name.slice(0, colon).toLowerCase();
    const model = name.slice(colon + 1).trim();
    const provider = prefix === 'google' ? 'gemini' : PROVIDERS.find((p) => p === prefix);
    if (provider && provider !== 'predictable' && model) return { provider, model };
  }
  const info = modelInfo(name);
  if (info) return { provider: info.provider, model: name };
  if (/^claude-/i.test(name)) return { provider: 'anthropic', model: name };
  if (/^(gpt-|chatgpt-|codex-|o\d)/i.test(name)) return { provider: 'openai', model: name };
  if (/^gemini-/i.test(name)) return { provider: 'gemini', model: name };
  return undefined;
}

export function createProvider(name: string, settings: ProviderSettings): ProviderChoice {
  const parsed = parseModelName(name);
  if (!parsed) {
    throw new UnknownModelError(
      `unknown model "${name}": use a model of the table (e.g. claude-sonnet-4-5, gpt-4.1, gemini-2.5-pro), predictable, or provider:model (e.g. openai:llama3.1 for an OpenAI-compatible server)`,
    );
  }
  const { provider: kind, model } = parsed;
  if (kind === 'replay' && !settings.replayFile) throw new UnknownModelError('model "replay" needs SKEIN_REPLAY_FILE, a recorded session (the format of the trajectories README)');
  if (kind !== 'predictable' && kind !== 'replay' && !usable(settings.credentials, kind)) {
    const also = kind === 'openai' ? ' (or OPENAI_BASE_URL for an OpenAI-compatible server)' : kind === 'gemini' ? ' (or GOOGLE_API_KEY)' : '';
    throw new UnknownModelError(`model "${name}" needs ${KEY_VARIABLES[kind]}${also}, which is not set`);
  }
  const known = modelInfo(model);
  const info: ModelInfo = known ? { ...known, provider: kind } : { provider: kind, ...UNKNOWN_MODEL, prices: { input: 0, output: 0, cacheWrite: 0, cacheRead: 0 }, unknown: true };
  const limits = requestLimits(info, settings.contextWindow ?? info.contextWindow);
  return { provider: instantiate(kind, name, model, limits, settings), info: { ...info, ...limits } };
}

/**
 * Said once a session's model turns out to have no known window: not in the
 * table, and its server did not say (said then, not at the start: a server
 * usually answers a moment later). `why`: how asking it failed.
 */
export function unknownModelWarning(name: string, window: number, why: string, detail: string): string {
  const asked = detail.length > 300 ? `${detail.slice(0, 299)}…` : detail;
  return `"${name}" is not in skein's model table and ${why}: assuming a ${window.toLocaleString('en-US')}-token window and no prices; set SKEIN_CONTEXT_WINDOW to its real window (asking it: ${asked})`;
}

function instantiate(kind: ProviderName, name: string, model: string, limits: ModelLimits, settings: ProviderSettings): Provider {
  const { credentials, requestTimeoutMs } = settings;
  switch (kind) {
    case 'predictable':
      return new PredictableProvider(limits);
    case 'replay':
      return new ReplayProvider(limits, loadTrajectory(settings.replayFile!));
    case 'anthropic':
      // Each SDK is loaded when a session first calls its model (lazy-provider.ts).
      return lazyProvider(name, limits, '@anthropic-ai/sdk', { discovers: true, compacts: true, capabilities: true }, async () => new (await import('./anthropic.js')).AnthropicProvider(name, model, limits, credentials.anthropic, requestTimeoutMs));
    case 'openai':
      // Reasoning models keep their reasoning between tool calls only through the Responses API;
      // `openai:…` names a model of an OpenAI-compatible server, which stays on Chat Completions.
      if (name === model && modelInfo(model)?.thinking?.mode === 'responses') {
        return lazyProvider(name, limits, 'openai', { compacts: true }, async () => new (await import('./openai-responses.js')).OpenAIResponsesProvider(name, model, limits, credentials.openai, requestTimeoutMs));
      }
      return lazyProvider(name, limits, 'openai', { discovers: true }, async () => new (await import('./openai.js')).OpenAIProvider(name, model, limits, credentials.openai, requestTimeoutMs, settings.localContext));
    case 'gemini':
      return lazyProvider(name, limits, '@google/genai', { discovers: true }, async () => new (await import('./gemini.js')).GeminiProvider(name, model, limits, credentials.gemini, requestTimeoutMs));
  }
}

/**
 * For a session whose model can no longer be used (its key is gone since it
 * was created): the session still loads, shows its history, and says why on
 * the next message; switching the model makes it usable again.
 */
export function createProviderOrPlaceholder(name: string, settings: ProviderSettings): ProviderChoice {
  try {
    return createProvider(name, settings);
  } catch (err) {
    if (!(err instanceof UnknownModelError)) throw err;
    const limits = requestLimits(UNKNOWN_MODEL, settings.contextWindow);
    const message = err.message;
    const provider: Provider = {
      model: name,
      limits,
      complete: () => Promise.reject(new ProviderError(`${message}; switch the session to another model`, undefined, false)),
    };
    const info: ModelInfo = { provider: 'predictable', ...limits, prices: { input: 0, output: 0, cacheWrite: 0, cacheRead: 0 }, unknown: true };
    return { provider, info, warning: message };
  }
}
