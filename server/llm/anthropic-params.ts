// The Anthropic Messages request built from skein's neutral request: pure,
// with the SDK's types only, so the provider rules of the tests (and anything
// else that only builds or checks a request) need not load the SDK itself.
import type { ContentBlockParam, MessageCreateParamsNonStreaming, MessageParam, Tool } from '@anthropic-ai/sdk/resources/messages';
import type { ViewMessage } from '../../shared/protocol.js';
import { ownCompaction } from './anthropic-compaction.js';
import { assistantBlocks, prefixOf, type PrefixBase } from './anthropic-thinking.js';
import { modelInfo, type ThinkingCaps } from './models.js';
import { anthropicThinking, ownReasoning } from './reasoning.js';
import type { LlmRequest } from './types.js';
import { messageImages, userText } from './message-images.js';

const CACHE = { type: 'ephemeral' } as const;

export const prefixBase = (params: MessageCreateParamsNonStreaming): PrefixBase => ({ model: params.model, system: params.system, tools: params.tools });

export function anthropicParams(model: string, request: LlmRequest, caps = modelInfo(model)?.thinking): MessageCreateParamsNonStreaming {
  return buildParams(model, request, new Set(), caps).params;
}

export interface BuiltParams {
  params: MessageCreateParamsNonStreaming;
  /** Which wire messages carry thinking (their index and the prefix fingerprint recorded with them). */
  sentThinking: { index: number; prefix: string }[];
  /** The first message is this model's own compaction block (the request needs the beta header). */
  usesCompaction: boolean;
}

/** The request, with the thinking options of `caps` (the Models API's, else the table's). */
export function buildParams(model: string, request: LlmRequest, refused: ReadonlySet<string>, caps: ThinkingCaps | undefined): BuiltParams {
  const tools: Tool[] = request.tools.map((t) => ({
    name: t.name,
    description: t.description,
    input_schema: t.inputSchema as Tool['input_schema'],
  }));
  const system: MessageCreateParamsNonStreaming['system'] = [{ type: 'text', text: request.system, cache_control: CACHE }];
  const sentThinking: { index: number; prefix: string }[] = [];
  const base: PrefixBase = { model, system, tools: tools.length ? tools : undefined };
  const systemMessages = modelInfo(model)?.systemMessages === true;
  const messages = toMessages(request.messages, { base, refused, systemMessages, sent: (index, prefix) => sentThinking.push({ index, prefix }) });
  const first = messages[0]?.content;
  const usesCompaction = Array.isArray(first) && first[0]?.type === ('compaction' as string);
  // Breakpoint on the latest turn: the next request reads everything up to here.
  const last = messages.at(-1);
  if (last && Array.isArray(last.content) && last.content.length) {
    const block = last.content[last.content.length - 1]!;
    if (block.type !== 'thinking' && block.type !== 'redacted_thinking') last.content[last.content.length - 1] = { ...block, cache_control: CACHE } as ContentBlockParam;
  }
  const options = anthropicThinking(caps, request.effort);
  const params = {
    model,
    max_tokens: request.maxOutputTokens,
    system,
    messages,
    ...(tools.length && { tools }),
    ...options,
  } as MessageCreateParamsNonStreaming;
  return { params, sentThinking, usesCompaction };
}

interface ThinkingContext {
  base: PrefixBase;
  /** The model takes mid-conversation `role: "system"` messages. */
  systemMessages?: boolean;
  /** Prefix fingerprints whose thinking the API refused before. */
  refused: ReadonlySet<string>;
  sent(index: number, prefix: string): void;
}

/** Tool ids must match ^[a-zA-Z0-9_-]+$; ids from another provider (after a model switch) are made to fit. */
function toolId(id: string | undefined): string {
  return (id ?? 'missing').replace(/[^a-zA-Z0-9_-]/g, '_');
}

/**
 * Consecutive messages of one role become one message (tool results and a
 * queued user text share a user turn). A mid-conversation `system` message
 * (an instruction that changed during the session) goes as its own
 * `role: "system"` message where it stands: the top-level `system` never
 * changes, so every earlier turn's thinking keeps its prefix.
 */
export function toMessages(view: ViewMessage[], thinking?: ThinkingContext): MessageParam[] {
  const out: { role: 'user' | 'assistant' | 'system'; content: ContentBlockParam[] }[] = [];
  const push = (role: 'user' | 'assistant', blocks: ContentBlockParam[]) => {
    const previous = out.at(-1);
    if (previous?.role === role) previous.content.push(...blocks);
    else out.push({ role, content: blocks });
  };
  for (const [i, m] of view.entries()) {
    // This model's own compaction block opens the conversation in place of the turns it summarises.
    const block = thinking && out.length === 0 ? ownCompaction(m.compacted, thinking.base.model) : undefined;
    if (block) {
      out.push({ role: 'assistant', content: block as unknown as ContentBlockParam[] });
      continue;
    }
    if (m.role === 'system') {
      const text = m.content.trim() ? m.content : '(empty message)';
      // The API's placement rule: right after a user turn, and last or followed by the model's answer.
      // Elsewhere (or on a model without them) the update is a user-turn text block; either way nothing earlier changes.
      const next = view[i + 1]?.role;
      const fits = thinking?.systemMessages === true && out.at(-1)?.role === 'user' && (next === undefined || next === 'assistant');
      if (fits) out.push({ role: 'system', content: [{ type: 'text', text }] });
      else push('user', [{ type: 'text', text: `<system-update>\n${text}\n</system-update>` }]);
    } else if (m.role === 'user') {
      // Images first, then the words about them (Anthropic's advice for image prompts).
      const { images, missing } = messageImages(m);
      const text = userText(m, missing, images.length > 0);
      push('user', [
        ...images.map((image): ContentBlockParam => ({ type: 'image', source: { type: 'base64', media_type: image.mediaType, data: image.data } })),
        ...(text ? [{ type: 'text' as const, text }] : []),
      ]);
    } else if (m.role === 'assistant') {
      const own = thinking && ownReasoning(m, 'anthropic', thinking.base.model);
      if (own && thinking) {
        // Sent as returned while nothing before it changed; a turn merged into the previous one never keeps its thinking.
        const prefix = prefixOf(thinking.base, out);
        const keep = out.at(-1)?.role !== 'assistant' && own.prefix === prefix && !thinking.refused.has(prefix);
        if (keep && own.output.some((b) => b.type === 'thinking' || b.type === 'redacted_thinking')) thinking.sent(out.length, prefix);
        push('assistant', assistantBlocks(own, keep));
        continue;
      }
      const blocks: ContentBlockParam[] = m.content.trim() ? [{ type: 'text', text: m.content }] : [];
      for (const call of m.toolCalls ?? []) blocks.push({ type: 'tool_use', id: toolId(call.id), name: call.name, input: call.input });
      push('assistant', blocks.length ? blocks : [{ type: 'text', text: '(no answer)' }]);
    } else {
      push('user', [{ type: 'tool_result', tool_use_id: toolId(m.toolCallId), content: m.content || '(no output)' }]);
    }
  }
  return out as MessageParam[];
}
