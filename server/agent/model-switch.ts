// What the agent needs to talk to models beyond its current provider: another
// model for a switch, the summariser, and the retry policy. Built once per
// server from the config (server/sessions/sessions.ts).
import type { Config } from '../config.js';
import { LimitsCache } from '../llm/limits/cache.js';
import { LearnedFile } from '../llm/limits/learned-file.js';
import { createProvider, parseModelName, type ProviderChoice, type ProviderSettings } from '../llm/providers.js';
import type { ModelLimits, Provider } from '../llm/types.js';
import { crossesThreshold, wouldNotFit } from '../compaction/triggers.js';
import type { RetryPolicy } from './model-call.js';

export interface ModelServices {
  /** A provider for another model (a switch); throws UnknownModelError when it cannot be used. */
  create(model: string): ProviderChoice;
  /** SKEIN_SUMMARIZER_MODEL's provider and prices; undefined: the session's own model summarises. */
  summariser(): ProviderChoice | undefined;
  retry: RetryPolicy;
  /** What servers said about their models' limits (asked once per model), and SKEIN_CONTEXT_WINDOW. */
  window?: { cache: LimitsCache; setting: number | undefined; maxOutput?: number };
}

export function providerSettings(config: Config): ProviderSettings {
  return { contextWindow: config.contextWindow, credentials: config.credentials, requestTimeoutMs: config.requestTimeoutMs, replayFile: config.replayFile, localContext: config.localContext };
}

export function modelServices(config: Config): ModelServices {
  const settings = providerSettings(config);
  // The summariser keeps its own window: SKEIN_CONTEXT_WINDOW is about the session's model.
  const summariserSettings = { ...settings, contextWindow: undefined };
  return {
    create: (model) => createProvider(model, settings),
    // One per session, so per-session provider state stays apart.
    summariser: () => (config.summarizerModel ? createProvider(config.summarizerModel, summariserSettings) : undefined),
    retry: { max: config.retryMax, baseMs: config.retryBaseMs },
    window: { cache: limitsCache(config), setting: config.contextWindow, maxOutput: config.maxOutputTokens },
  };
}

/** The process's cache, backed by the data folder's learned-limits.json (per base URL and model). */
function limitsCache(config: Config): LimitsCache {
  const baseURL = (model: string): string | undefined => {
    const kind = parseModelName(model)?.provider;
    if (kind !== 'anthropic' && kind !== 'openai' && kind !== 'gemini') return undefined;
    return config.credentials[kind].baseURL ?? `${kind} (its default URL)`;
  };
  return new LimitsCache({ file: new LearnedFile(config.dataDir), baseURL });
}

/** After a switch: the view no longer fits the new window (over the threshold, or no room left for the answer). */
export function needsCompactionAfterSwitch(estimate: number, limits: ModelLimits, thresholdRatio: number): boolean {
  return crossesThreshold(estimate, limits.contextWindow, thresholdRatio) || wouldNotFit(estimate, limits.contextWindow, limits.maxOutputTokens);
}
