// The provider-neutral request (what the predictable model gets) checked by
// Anthropic's rules, the strictest of the three: translated by skein's own
// Anthropic code, exactly as it would be sent.
import { anthropicParams } from '../../../server/llm/anthropic-params.js';
import type { LlmRequest } from '../../../server/llm/types.js';
import { checkAnthropicRequest } from './anthropic.js';
import type { Rejection } from './rejection.js';

export function checkNeutralRequest(request: LlmRequest): Rejection | undefined {
  // An empty user text would be sent as "(empty message)"; the view should never hold one (a message of images alone is not empty).
  const empty = request.messages.findIndex((m) => m.role === 'user' && !m.content.trim() && !m.images?.length);
  if (empty >= 0) return { status: 400, message: `view message ${empty}: empty user text`, body: {} };
  return checkAnthropicRequest(anthropicParams('predictable', request));
}
