// Makes the provider for a model name. One provider instance per session, so
// per-session state (the predictable model's simulated cache) stays apart.
import { modelInfo, type ModelInfo } from './models.js';
import { PredictableProvider } from './predictable.js';
import type { Provider } from './types.js';

export class UnknownModelError extends Error {}

export function createProvider(model: string, contextWindowOverride?: number): { provider: Provider; info: ModelInfo } {
  const info = modelInfo(model);
  if (!info) throw new UnknownModelError(`unknown model "${model}"; available: predictable`);
  const limits = { contextWindow: contextWindowOverride ?? info.contextWindow, maxOutputTokens: info.maxOutputTokens };
  return { provider: new PredictableProvider(limits), info: { ...info, ...limits } };
}
