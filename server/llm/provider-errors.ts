// Each provider's failures mapped to the two errors the agent knows: its own
// "too long" becomes one ContextOverflowError (the agent compacts and retries),
// anything else a ProviderError that says whether a retry can help
// (429, 5xx, Anthropic's 529 overloaded, timeouts, dropped connections).
// One file per provider under errors/, so that a provider loads only its own
// SDK; this file gathers them (it loads every SDK: for tests, not providers).
export { retryableStatus, retryAfterMs } from './errors/common.js';
export { fromAnthropicError } from './errors/anthropic.js';
export { fromOpenAIError } from './errors/openai.js';
export { fromGeminiError } from './errors/gemini.js';
