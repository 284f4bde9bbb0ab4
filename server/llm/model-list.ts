// GET /api/models: the models usable with the configured keys, and the start
// step that picks the model of an OpenAI-compatible server when only
// OPENAI_BASE_URL is set.
import type { ModelEntry } from '../../shared/protocol.js';
import { effortsOf } from './reasoning.js';
import { isOpenAI, SERVER_CHOICE, usable } from './credentials.js';
import { MODELS, modelInfo, UNKNOWN_MODEL } from './models.js';
import { requestLimits, UnknownModelError, type ProviderSettings } from './providers.js';

/** A local server answers fast or not at all: don't hold the page up. */
const LIST_TIMEOUT_MS = 3000;

/** OPENAI_BASE_URL points somewhere other than OpenAI: list what that server serves. */
function compatibleServer(settings: ProviderSettings): boolean {
  const base = settings.credentials.openai.baseURL;
  return base !== undefined && !isOpenAI(base);
}

export async function availableModels(settings: ProviderSettings): Promise<ModelEntry[]> {
  const entries: ModelEntry[] = [];
  for (const [id, info] of Object.entries(MODELS)) {
    if (info.provider === 'openai' && compatibleServer(settings)) continue;
    if (info.provider === 'replay') {
      if (!settings.replayFile) continue;
    } else if (info.provider !== 'predictable' && !usable(settings.credentials, info.provider)) continue;
    const limits = requestLimits(info, settings.contextWindow ?? info.contextWindow);
    const efforts = effortsOf(info.thinking);
    entries.push({ id, provider: info.provider, contextWindow: limits.contextWindow, maxOutputTokens: info.maxOutputTokens, prices: info.prices, ...(efforts && { efforts }) });
  }
  if (compatibleServer(settings)) {
    let ids: string[] = [];
    try {
      // The OpenAI SDK is loaded only when such a server is set up.
      const { listServerModels } = await import('./openai.js');
      ids = await listServerModels(settings.credentials.openai, LIST_TIMEOUT_MS);
    } catch {
      // The server is down: its models are not usable now; the rest of the list is.
    }
    for (const id of ids) {
      const known = modelInfo(id);
      const base = known ?? { ...UNKNOWN_MODEL, prices: { input: 0, output: 0, cacheWrite: 0, cacheRead: 0 } };
      const limits = requestLimits(base, settings.contextWindow ?? base.contextWindow);
      entries.push({
        id: `openai:${id}`,
        provider: 'openai',
        contextWindow: limits.contextWindow,
        maxOutputTokens: base.maxOutputTokens,
        prices: base.prices,
        ...(!known && { unknown: true }),
      });
    }
  }
  return entries;
}

/** `openai:auto` (only OPENAI_BASE_URL set) becomes the first model the server lists; other names stay. */
export async function resolveStartModel(model: string, settings: ProviderSettings): Promise<string> {
  if (model !== SERVER_CHOICE) return model;
  const base = settings.credentials.openai.baseURL ?? '';
  let ids: string[];
  try {
    // The OpenAI SDK is loaded only when such a server is set up.
      const { listServerModels } = await import('./openai.js');
      ids = await listServerModels(settings.credentials.openai, LIST_TIMEOUT_MS);
  } catch (err) {
    throw new UnknownModelError(`OPENAI_BASE_URL=${base} did not list its models (${err instanceof Error ? err.message : String(err)}); start the server, or name the model with SKEIN_MODEL=openai:<model>`);
  }
  if (!ids[0]) throw new UnknownModelError(`OPENAI_BASE_URL=${base} serves no model; load one, or name it with SKEIN_MODEL=openai:<model>`);
  return `openai:${ids[0]}`;
}
