// Anthropic thinking blocks, sent back as returned. Models with preserved
// thinking check each returned block against its prefix (system, tools and
// every earlier message as sent when it was produced): skein records a
// fingerprint of that prefix with the answer, and a later request sends a
// turn's thinking only while the prefix it builds before that turn is the
// same. After a compaction or anything else that changed an earlier message
// the thinking of that turn (and so of every later one) is left out, so the
// request passes the check by construction. Thinking from another model is
// never sent.
import { createHash } from 'node:crypto';
import type { ContentBlockParam, Message } from '@anthropic-ai/sdk/resources/messages';
import type { Reasoning } from '../../shared/protocol.js';

const THINKING = new Set(['thinking', 'redacted_thinking']);

/** The parts of a request a thinking block's prefix covers, as sent (without cache markers, which move each request). */
export interface PrefixBase {
  model: string;
  system: unknown;
  tools: unknown;
}

export function prefixOf(base: PrefixBase, messages: readonly unknown[]): string {
  const material = canonical(withoutCacheControl({ model: base.model, system: base.system ?? null, tools: base.tools ?? null, messages }));
  return createHash('sha256').update(material).digest('hex').slice(0, 32);
}

/** The answer's reasoning, when it thought (undefined otherwise: the text and tool calls say it all). */
export function readReasoning(message: Message, model: string, prefix: string): Reasoning | undefined {
  const blocks = message.content as unknown as Record<string, unknown>[];
  if (!blocks.some((b) => THINKING.has(String(b.type)))) return undefined;
  const text = blocks
    .filter((b) => b.type === 'thinking' && typeof b.thinking === 'string' && b.thinking)
    .map((b) => b.thinking as string)
    .join('\n\n');
  const redacted = blocks.some((b) => b.type === 'redacted_thinking');
  return { provider: 'anthropic', model, output: blocks.map((b) => ({ ...b })), prefix, ...(text && { text }), ...(redacted && { redacted }) };
}

/** An assistant turn's blocks: exactly as returned while its thinking holds, else the same answer without thinking. */
export function assistantBlocks(reasoning: Reasoning, keepThinking: boolean): ContentBlockParam[] {
  const blocks = keepThinking ? reasoning.output : reasoning.output.filter((b) => !THINKING.has(String(b.type)));
  const out = blocks.map((b) => ({ ...b }) as unknown as ContentBlockParam);
  return out.length ? out : [{ type: 'text', text: '(no answer)' }];
}

/** Anthropic's refusal of a thinking block whose prefix or order changed; `messages.N` names the first refused turn. */
export function prefixRefusal(message: string): { message: number } | undefined {
  const invalid = /messages\.(\d+)\.content\.\d+: (Invalid `signature` in `thinking` block|`thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified)/.exec(message);
  return invalid ? { message: Number(invalid[1]) } : undefined;
}

function withoutCacheControl(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutCacheControl);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (k !== 'cache_control' && v !== undefined) out[k] = withoutCacheControl(v);
    return out;
  }
  return value;
}

/** JSON with sorted keys: the same content always gives the same text. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    // Default sort: by UTF-16 code units, never by locale.
    const record = value as Record<string, unknown>;
    return `{${Object.keys(record).sort().map((k) => `${JSON.stringify(k)}:${canonical(record[k])}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}
