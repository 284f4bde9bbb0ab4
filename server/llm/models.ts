// The model table: context window, max output and prices per million tokens,
// for the built-in model and the current Anthropic, OpenAI and Gemini models.
// Prices are the providers' published list prices in USD per million tokens
// (standard tier, not batch), as of November 2026; a model not listed still
// works, with a conservative window and no cost (see README "Providers").
import type { ReasoningEffort } from '../../shared/protocol.js';
import type { ModelLimits } from './types.js';

export type ProviderName = 'predictable' | 'replay' | 'anthropic' | 'openai' | 'gemini';

export interface Prices {
  input: number;
  output: number;
  /** Writing the prompt cache (Anthropic: 1.25x input for the 5-minute cache; others bill no write). */
  cacheWrite: number;
  cacheRead: number;
}

export interface ModelInfo extends ModelLimits {
  provider: ProviderName;
  /** USD per million tokens. */
  prices: Prices;
  /** Prices for requests whose prompt is over `above` tokens (Gemini Pro's long-context tier). */
  longContext?: { above: number; prices: Prices };
  /** Not in the table: a conservative window and no prices (skein warns in the log and the UI). */
  unknown?: boolean;
  /** How the model reasons, and what it refuses; absent: skein sends no reasoning option. */
  thinking?: ThinkingCaps;
  /** Anthropic: takes mid-conversation `role: "system"` messages (Opus 4.8 and later); others get them as user text. */
  systemMessages?: boolean;
}

/**
 * A reasoning model's capabilities (server/llm/reasoning.ts turns them into request options):
 * - `adaptive` (Anthropic): `thinking: {type: "adaptive"}` and `output_config.effort`; `none` sends `disabled`.
 * - `always` (Anthropic Fable 5.x): thinks on every request; refuses `thinking: {type: "disabled"}` and a forced tool choice.
 * - `responses` (OpenAI gpt-5.x, o-series): the Responses API with `reasoning: {effort, summary}` and encrypted reasoning items.
 * - `level` / `budget` (Gemini 3 / 2.5): `thinkingConfig.thinkingLevel` or `thinkingBudget`, with thought summaries.
 */
export interface ThinkingCaps {
  mode: 'adaptive' | 'always' | 'responses' | 'level' | 'budget';
  /** The efforts the model accepts (`default` is always allowed: the option is left out). */
  efforts: ReasoningEffort[];
  /** Anthropic preserved thinking: returned thinking blocks pass a prefix check (append-only requests). */
  preserved?: boolean;
}

const ANTHROPIC_ALWAYS: ThinkingCaps = { mode: 'always', efforts: ['low', 'medium', 'high', 'max'], preserved: true };
const ANTHROPIC_PRESERVED: ThinkingCaps = { mode: 'adaptive', efforts: ['none', 'low', 'medium', 'high', 'max'], preserved: true };
const ANTHROPIC_ADAPTIVE: ThinkingCaps = { mode: 'adaptive', efforts: ['none', 'low', 'medium', 'high', 'max'] };
/** OpenAI: gpt-5.1+ turn reasoning off with `none` (gpt-5 with `minimal`); gpt-5.6 adds `xhigh` (skein's `max`). */
const OPENAI_XHIGH: ThinkingCaps = { mode: 'responses', efforts: ['none', 'low', 'medium', 'high', 'max'] };
const OPENAI_GPT5: ThinkingCaps = { mode: 'responses', efforts: ['none', 'low', 'medium', 'high'] };
const OPENAI_O: ThinkingCaps = { mode: 'responses', efforts: ['low', 'medium', 'high'] };
const think = (info: ModelInfo, thinking: ThinkingCaps): ModelInfo => ({ ...info, thinking });
/** An Anthropic model that takes mid-conversation system messages. */
const updatable = (info: ModelInfo): ModelInfo => ({ ...info, systemMessages: true });

const FREE: Prices = { input: 0, output: 0, cacheWrite: 0, cacheRead: 0 };

/** Anthropic: a 5-minute cache write is 1.25x the input price; reads as listed (0.1x on most models). */
function claude(contextWindow: number, maxOutputTokens: number, input: number, output: number, cacheRead = input * 0.1): ModelInfo {
  return { provider: 'anthropic', contextWindow, maxOutputTokens, prices: { input, output, cacheWrite: input * 1.25, cacheRead } };
}

/** OpenAI: cached input at its own price; GPT-5.6 also bills cache writes (1.25x) and doubles input over 272k. */
function gpt(contextWindow: number, maxOutputTokens: number, input: number, cachedInput: number, output: number, writes = false): ModelInfo {
  const info: ModelInfo = { provider: 'openai', contextWindow, maxOutputTokens, prices: { input, output, cacheWrite: writes ? input * 1.25 : input, cacheRead: cachedInput } };
  if (writes) info.longContext = { above: 272_000, prices: { input: input * 2, output: output * 1.5, cacheWrite: input * 2.5, cacheRead: cachedInput * 2 } };
  return info;
}

/** Gemini's implicit cache: no write charge, cached input at its own price; Pro models cost more over 200k. */
function gemini(input: number, cachedInput: number, output: number, long?: [number, number, number], maxOutputTokens = 65_536): ModelInfo {
  const info: ModelInfo = { provider: 'gemini', contextWindow: 1_048_576, maxOutputTokens, prices: { input, output, cacheWrite: input, cacheRead: cachedInput } };
  if (long) info.longContext = { above: 200_000, prices: { input: long[0], cacheWrite: long[0], cacheRead: long[1], output: long[2] } };
  return info;
}

const M = 1_000_000;

export const MODELS: Record<string, ModelInfo> = {
  // Small on purpose, so compaction shows within a few turns.
  predictable: { provider: 'predictable', contextWindow: 8000, maxOutputTokens: 1024, prices: FREE },
  // Plays a recorded session (SKEIN_REPLAY_FILE); for tests and benchmarks.
  replay: { provider: 'replay', contextWindow: 200_000, maxOutputTokens: 8192, prices: FREE },

  'claude-fable-5-1': updatable(think(claude(M, 128_000, 10, 50, 0.25), ANTHROPIC_ALWAYS)),
  'claude-opus-5-5': updatable(think(claude(M, 128_000, 4, 20, 0.2), ANTHROPIC_PRESERVED)),
  'claude-sonnet-5-5': updatable(think(claude(M, 128_000, 2, 10, 0.1), ANTHROPIC_PRESERVED)),
  'claude-haiku-5-5': { ...claude(M, 128_000, 0.1, 0.5, 0.01), thinking: ANTHROPIC_PRESERVED, systemMessages: true, longContext: { above: 100_000, prices: { input: 0.5, output: 2.5, cacheWrite: 0.625, cacheRead: 0.05 } } },
  'claude-opus-5': updatable(think(claude(M, 128_000, 5, 25), ANTHROPIC_ADAPTIVE)),
  'claude-opus-4-8': updatable(think(claude(M, 128_000, 5, 25), ANTHROPIC_ADAPTIVE)),
  'claude-opus-4-7': think(claude(M, 128_000, 5, 25), ANTHROPIC_ADAPTIVE),
  'claude-opus-4-6': think(claude(M, 128_000, 5, 25), ANTHROPIC_ADAPTIVE),
  'claude-sonnet-4-6': think(claude(M, 64_000, 3, 15), ANTHROPIC_ADAPTIVE),
  'claude-opus-4-5': claude(200_000, 64_000, 5, 25),
  'claude-sonnet-4-5': claude(200_000, 64_000, 3, 15),
  'claude-haiku-4-5': claude(200_000, 64_000, 1, 5),

  'gpt-5.6-sol': think(gpt(1_050_000, 128_000, 5, 0.5, 30, true), OPENAI_XHIGH),
  'gpt-5.6-terra': think(gpt(1_050_000, 128_000, 2, 0.2, 12, true), OPENAI_XHIGH),
  'gpt-5.6-luna': think(gpt(1_050_000, 128_000, 0.2, 0.02, 1.2, true), OPENAI_XHIGH),
  // GPT-5 and 5.1 take at most 272k input tokens of their 400k window: that is the window here.
  'gpt-5.1': think(gpt(272_000, 128_000, 1.25, 0.125, 10), OPENAI_GPT5),
  'gpt-5': think(gpt(272_000, 128_000, 1.25, 0.125, 10), OPENAI_GPT5),
  'gpt-5-mini': think(gpt(272_000, 128_000, 0.25, 0.025, 2), OPENAI_GPT5),
  'gpt-5-nano': think(gpt(272_000, 128_000, 0.05, 0.005, 0.4), OPENAI_GPT5),
  'gpt-4.1': gpt(1_047_576, 32_768, 2, 0.5, 8),
  'gpt-4.1-mini': gpt(1_047_576, 32_768, 0.4, 0.1, 1.6),
  'gpt-4.1-nano': gpt(1_047_576, 32_768, 0.1, 0.025, 0.4),
  'gpt-4o': gpt(128_000, 16_384, 2.5, 1.25, 10),
  'gpt-4o-mini': gpt(128_000, 16_384, 0.15, 0.075, 0.6),
  o3: think(gpt(200_000, 100_000, 2, 0.5, 8), OPENAI_O),
  'o4-mini': think(gpt(200_000, 100_000, 1.1, 0.275, 4.4), OPENAI_O),

  'gemini-3-pro-preview': think(gemini(2, 0.2, 12, [4, 0.4, 18]), { mode: 'level', efforts: ['low', 'high'] }),
  'gemini-3-flash-preview': think(gemini(0.5, 0.05, 3), { mode: 'level', efforts: ['low', 'medium', 'high'] }),
  'gemini-2.5-pro': think(gemini(1.25, 0.125, 10, [2.5, 0.25, 15]), { mode: 'budget', efforts: ['low', 'medium', 'high', 'max'] }),
  'gemini-2.5-flash': think(gemini(0.3, 0.03, 2.5), { mode: 'budget', efforts: ['none', 'low', 'medium', 'high'] }),
  'gemini-2.5-flash-lite': think(gemini(0.1, 0.01, 0.4), { mode: 'budget', efforts: ['none', 'low', 'medium', 'high'] }),
  'gemini-2.0-flash': gemini(0.1, 0.025, 0.4, undefined, 8_192),
};

/** Aliases the providers document for the same model. */
const ALIASES: Record<string, string> = {
  'gpt-5.1-chat-latest': 'gpt-5.1',
  'gpt-5-chat-latest': 'gpt-5',
};

/** What an unknown model gets: small enough for most local models, with a warning. */
export const UNKNOWN_MODEL: ModelLimits = { contextWindow: 32_000, maxOutputTokens: 4_096 };

/** The table entry for a model name; dated snapshots (claude-sonnet-4-5-20250929, gpt-4.1-2025-04-14) map to their model. */
export function modelInfo(model: string): ModelInfo | undefined {
  const name = ALIASES[model] ?? model;
  if (MODELS[name]) return MODELS[name];
  const undated = name.replace(/-(\d{8}|\d{4}-\d{2}-\d{2})$/, '');
  return MODELS[ALIASES[undated] ?? undated];
}

export function costUsd(info: ModelInfo, usage: { input: number; cacheRead: number; cacheWrite: number; output: number }): number {
  const prompt = usage.input + usage.cacheRead + usage.cacheWrite;
  const p = info.longContext && prompt > info.longContext.above ? info.longContext.prices : info.prices;
  return (usage.input * p.input + usage.output * p.output + usage.cacheWrite * p.cacheWrite + usage.cacheRead * p.cacheRead) / 1e6;
}
