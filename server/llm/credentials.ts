// API keys and base URLs of the providers, read from the environment only
// (never from flags: a key on the command line shows in `ps`). Nothing here
// is ever logged or sent to a client.

export interface Endpoint {
  apiKey: string | undefined;
  baseURL: string | undefined;
}

export interface Credentials {
  anthropic: Endpoint;
  openai: Endpoint;
  gemini: Endpoint;
}

/** The environment variables, for messages and the README. */
export const KEY_VARIABLES = {
  anthropic: 'ANTHROPIC_API_KEY',
  openai: 'OPENAI_API_KEY',
  gemini: 'GEMINI_API_KEY',
} as const;

/** The model a provider's sessions get when only its key is set. */
export const DEFAULT_MODELS = {
  anthropic: 'claude-sonnet-5-5',
  openai: 'gpt-5.6-terra',
  gemini: 'gemini-2.5-pro',
} as const;

/** Stands for "ask the OpenAI-compatible server which models it serves" (resolved at start). */
export const SERVER_CHOICE = 'openai:auto';

function value(env: NodeJS.ProcessEnv, ...names: string[]): string | undefined {
  for (const name of names) {
    const v = env[name]?.trim();
    if (v) return v;
  }
  return undefined;
}

export function readCredentials(env: NodeJS.ProcessEnv): Credentials {
  return {
    anthropic: { apiKey: value(env, 'ANTHROPIC_API_KEY'), baseURL: value(env, 'ANTHROPIC_BASE_URL') },
    openai: { apiKey: value(env, 'OPENAI_API_KEY'), baseURL: value(env, 'OPENAI_BASE_URL') },
    gemini: { apiKey: value(env, 'GEMINI_API_KEY', 'GOOGLE_API_KEY'), baseURL: value(env, 'GEMINI_BASE_URL') },
  };
}

/**
 * A provider is usable with a key, or (OpenAI-compatible servers such as
 * Ollama, vLLM or llama.cpp, which need none) with only a base URL.
 */
export function usable(credentials: Credentials, provider: keyof Credentials): boolean {
  const endpoint = credentials[provider];
  return endpoint.apiKey !== undefined || (provider === 'openai' && endpoint.baseURL !== undefined);
}

/** The base URL is OpenAI's own API (not a compatible server). */
export function isOpenAI(baseURL: string): boolean {
  try {
    return /(^|\.)api\.openai\.com$/.test(new URL(baseURL).hostname);
  } catch {
    return false;
  }
}

/**
 * SKEIN_MODEL's default: the first provider that is set up, in the order
 * Anthropic, OpenAI, Gemini; with OPENAI_BASE_URL, the first model that
 * server lists (resolved at start); else the offline `predictable`.
 */
export function defaultModel(env: NodeJS.ProcessEnv): string {
  const credentials = readCredentials(env);
  if (credentials.anthropic.apiKey) return DEFAULT_MODELS.anthropic;
  if (credentials.openai.baseURL && !isOpenAI(credentials.openai.baseURL)) return SERVER_CHOICE;
  if (credentials.openai.apiKey) return DEFAULT_MODELS.openai;
  if (credentials.gemini.apiKey) return DEFAULT_MODELS.gemini;
  return 'predictable';
}
