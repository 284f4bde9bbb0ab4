// A request's head, as the server reads it: the system prompt, the tools and
// the first message (the first user message, never folded). What the server
// counted for a request that was its head alone is a floor of every later
// request that starts with it, whatever the server's tokenizer: a later
// request counted lower was cut (window.ts, cutEvidence).
import { createHash } from 'node:crypto';
import type { LlmRequest } from '../llm/types.js';

export interface RequestHead {
  /** A digest of the system prompt, the tools and the first message. */
  key: string;
  /** The request is its head alone (one message). */
  only: boolean;
}

export function headOf(request: Pick<LlmRequest, 'system' | 'tools' | 'messages'>): RequestHead | undefined {
  const first = request.messages[0];
  if (!first || first.role !== 'user') return undefined;
  const hash = createHash('sha256');
  for (const part of [request.system, JSON.stringify(request.tools), first.content]) hash.update(part).update('\u0000');
  return { key: hash.digest('base64url'), only: request.messages.length === 1 };
}
