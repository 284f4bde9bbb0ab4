// Anthropic's on-demand compaction (beta `compact-2026-09-04`): a request with
// the top-level `compaction: {type: "summarize"}` parameter answers with one
// signed `compaction` block (a readable summary) and stop_reason
// "compaction". Later requests send that block back, unchanged, as the first
// block of `messages` (an assistant turn) in place of the messages it
// summarises, with the beta header on every one of them. The block is tied
// to the model that wrote it; any other model reads skein's summary text.
import type Anthropic from '@anthropic-ai/sdk';
import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import type { ProviderCompaction } from '../../shared/protocol.js';
import { ProviderError, type ProviderCompactionResult } from './types.js';
import { fromAnthropic } from './usage.js';

export const COMPACT_BETA = 'compact-2026-09-04';
/** A compaction answer is a summary: it never needs the turn's whole output budget. */
export const COMPACTION_MAX_TOKENS = 8192;

/** The request options that go with a request carrying a compaction block. */
export function betaHeaders(usesCompaction: boolean): { headers: Record<string, string> } | Record<string, never> {
  return usesCompaction ? { headers: { 'anthropic-beta': COMPACT_BETA } } : {};
}

/** The block to send first, when the summary is this model's own. */
export function ownCompaction(compacted: ProviderCompaction | undefined, model: string): Record<string, unknown>[] | undefined {
  return compacted?.provider === 'anthropic' && compacted.model === model ? compacted.output.map((b) => ({ ...b })) : undefined;
}

/** Asks the API to summarise `params.messages` (the span to fold, from the conversation's start). */
export async function requestCompaction(
  client: Anthropic,
  params: MessageCreateParamsNonStreaming,
  instructions: string | undefined,
  signal: AbortSignal,
): Promise<ProviderCompactionResult> {
  const body = {
    ...params,
    max_tokens: Math.min(params.max_tokens, COMPACTION_MAX_TOKENS),
    compaction: { type: 'summarize' as const, ...(instructions?.trim() && { instructions }) },
    betas: [COMPACT_BETA],
  };
  const message = await client.beta.messages.create(body as Parameters<typeof client.beta.messages.create>[0] & { stream?: false }, { signal });
  const block = message.content.find((b) => b.type === 'compaction');
  // A null content is a failed compaction the API still returns (it treats such a block as a no-op): nothing to use.
  if (message.stop_reason !== 'compaction' || !block || typeof block.content !== 'string' || !block.content.trim()) {
    throw new ProviderError(`the compaction request answered stop_reason "${message.stop_reason}" without a summary`, undefined, false);
  }
  const output = [{ ...(block as unknown as Record<string, unknown>) }];
  return { compaction: { provider: 'anthropic', model: params.model, output }, text: block.content, usage: fromAnthropic(message.usage as Parameters<typeof fromAnthropic>[0]) };
}
