// A request as a provider saw it, reduced to what the checks need: whether it
// was a summary, and the user texts it carried (each text block or message
// apart, so two user messages merged into one turn still count as two).
import type { LlmRequest } from '../../server/llm/types.js';

export interface SeenRequest {
  provider: 'predictable' | 'anthropic' | 'openai' | 'gemini' | 'responses';
  summary: boolean;
  /** The user's own texts, in order (not the compacted-history summaries). */
  userTexts: string[];
  /** Every user-side text, summaries included: where a folded message still lives. */
  allText: string;
}

const COMPACTED = '<compacted-history>';

export function seenRequest(provider: SeenRequest['provider'], body: any): SeenRequest {
  const texts: string[] = [];
  let summary: boolean;
  if (provider === 'predictable') {
    const request = body as LlmRequest;
    summary = request.purpose === 'summary';
    for (const m of request.messages) if (m.role === 'user') texts.push(m.content);
  } else if (provider === 'responses') {
    summary = !(body.tools ?? []).length;
    const text = (c: unknown): string => (typeof c === 'string' ? c : Array.isArray(c) ? c.map((p: any) => p.text ?? '').join('') : '');
    for (const item of Array.isArray(body.input) ? body.input : []) if (item.role === 'user') texts.push(text(item.content));
  } else if (provider === 'gemini') {
    summary = !(body.tools ?? []).length;
    for (const c of body.contents ?? []) if (c.role === 'user') for (const p of c.parts ?? []) if (typeof p.text === 'string') texts.push(p.text);
  } else {
    summary = !(body.tools ?? []).length;
    for (const m of body.messages ?? []) {
      if (m.role !== 'user') continue;
      if (typeof m.content === 'string') texts.push(m.content);
      else for (const b of m.content ?? []) if (b.type === 'text') texts.push(b.text);
    }
  }
  return { provider, summary, userTexts: texts.filter((t) => !t.startsWith(COMPACTED)), allText: texts.join('\n') };
}
