// The model table: context window, max output and prices per million tokens.
import type { ModelLimits } from './types.js';

export interface ModelInfo extends ModelLimits {
  provider: 'predictable';
  /** USD per million tokens. */
  prices: { input: number; output: number; cacheWrite: number; cacheRead: number };
}

const FREE = { input: 0, output: 0, cacheWrite: 0, cacheRead: 0 };

export const MODELS: Record<string, ModelInfo> = {
  // Small on purpose, so compaction shows within a few turns.
  predictable: { provider: 'predictable', contextWindow: 8000, maxOutputTokens: 1024, prices: FREE },
};

export function modelInfo(model: string): ModelInfo | undefined {
  return MODELS[model];
}

export function costUsd(info: ModelInfo, usage: { input: number; cacheRead: number; cacheWrite: number; output: number }): number {
  const p = info.prices;
  return (usage.input * p.input + usage.output * p.output + usage.cacheWrite * p.cacheWrite + usage.cacheRead * p.cacheRead) / 1e6;
}
