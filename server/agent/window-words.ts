// What the timeline says when the window changes: a refusal or a cut taught
// a smaller one, a server cut within the window, or the server now names another;
// and when SKEIN_CONTEXT_WINDOW says more than the server has.
import type { ContextOverflowError } from '../llm/types.js';

const fmt = (n: number) => n.toLocaleString('en-US');
const cutDetail = (err: ContextOverflowError) => err.message.replace(/^the server was cutting the start of the conversation: /, '');

/** A refusal (or a cut prompt) taught a smaller window than `before`. */
export function learnedMessage(err: ContextOverflowError, learned: number, before: number): string {
  const tokens = fmt(learned);
  return err.truncated
    ? `The server only keeps ${tokens} tokens of context: it was silently cutting the start of the conversation (${cutDetail(err)}). skein now uses a ${tokens}-token window and compacts to fit; for Ollama set SKEIN_LOCAL_CONTEXT (skein then asks for that much context on each request) or raise \`num_ctx\` (the model's num_ctx parameter or OLLAMA_CONTEXT_LENGTH).`
    : `The provider refused a request as too long; its window is ${err.limits.window !== undefined ? '' : 'at most '}${tokens} tokens, not ${fmt(before)}. skein now uses ${tokens} and compacts to fit.`;
}

/** A cut while the window in use already is the server's context. */
export function cutWithinMessage(err: ContextOverflowError, window: number): string {
  const tokens = fmt(window);
  return (
    `The server silently cut the start of the conversation (${cutDetail(err)}): a request passed its ${tokens}-token context. ` +
    `skein dropped the answer to the cut prompt and compacts to fit ${tokens} tokens; for Ollama set SKEIN_LOCAL_CONTEXT or raise \`num_ctx\` for more room.`
  );
}

/** The server named a window other than the one in use (a fallback, a remembered one, or the log's before a restart). */
export function serverNowSays(window: number, via: string, before: number): string {
  return `The server now says its window: ${fmt(window)} tokens (${via}); skein uses it instead of ${fmt(before)}.`;
}

/**
 * SKEIN_CONTEXT_WINDOW (in use) says more than the server's own window: skein uses the setting, the server refuses or
 * cuts past its own. Said once: undefined when the setting is not in use or not larger.
 */
export function settingOverServer(setting: number | undefined, server: number | undefined, via: string): string | undefined {
  if (setting === undefined || server === undefined || server >= setting) return undefined;
  return (
    `SKEIN_CONTEXT_WINDOW is ${fmt(setting)} tokens but the server's window is ${fmt(server)} (${via}): ` +
    `a request past ${fmt(server)} tokens will be refused or its answer cut. skein uses ${fmt(setting)} as told (it learns the smaller window at the first refusal or cut); unset SKEIN_CONTEXT_WINDOW or start the server with a larger context.`
  );
}
