// Reasoning options per model, what returned reasoning costs, and the
// Anthropic rule that a turn keeps its thinking only while its prefix holds.
import { describe, expect, it } from 'vitest';
import { anthropicParams } from '../../server/llm/anthropic-params.js';
import { prefixOf, prefixRefusal } from '../../server/llm/anthropic-thinking.js';
import { MODELS } from '../../server/llm/models.js';
import { anthropicThinking, effectiveEffort, geminiThinking, openaiEffort } from '../../server/llm/reasoning.js';
import { messageTokens } from '../../server/llm/tokens.js';
import type { LlmRequest } from '../../server/llm/types.js';
import type { Reasoning, ViewMessage } from '../../shared/protocol.js';
import { applyCompaction, deriveView, type SourcedMessage } from '../../server/compaction/view.js';
import type { SkeinEvent } from '../../shared/protocol.js';

const caps = (name: string) => MODELS[name]!.thinking;

describe('reasoning options', () => {
  it('never sets an option the model refuses: no disabled thinking on always-on models, the nearest effort it has', () => {
    expect(anthropicThinking(caps('claude-fable-5-1'), 'none')).toEqual({ thinking: { type: 'adaptive', display: 'summarized' } });
    expect(anthropicThinking(caps('claude-sonnet-5-5'), 'none')).toEqual({ thinking: { type: 'disabled' } });
    expect(anthropicThinking(caps('claude-fable-5-1'), 'max')).toEqual({ thinking: { type: 'adaptive', display: 'summarized' }, output_config: { effort: 'max' } });
    expect(anthropicThinking(caps('claude-sonnet-5-5'), 'default')).toEqual({ thinking: { type: 'adaptive', display: 'summarized' } });
    expect(anthropicThinking(caps('claude-sonnet-4-5'), 'high')).toEqual({});
    expect(effectiveEffort(caps('o3'), 'max')).toBe('high');
    expect(effectiveEffort(caps('o3'), 'none')).toBeUndefined();
    expect(effectiveEffort(caps('gemini-3-pro-preview'), 'medium')).toBe('low');
    expect(openaiEffort('gpt-5', caps('gpt-5'), 'none')).toBe('minimal');
    expect(openaiEffort('gpt-5.6-terra', caps('gpt-5.6-terra'), 'max')).toBe('xhigh');
    expect(geminiThinking(caps('gemini-2.5-pro'), 'none')).toEqual({ includeThoughts: true });
    expect(geminiThinking(caps('gemini-2.5-flash'), 'none')).toEqual({ thinkingBudget: 0 });
    expect(geminiThinking(caps('gemini-3-pro-preview'), 'high')).toEqual({ includeThoughts: true, thinkingLevel: 'high' });
  });

  it('returned reasoning costs context in the estimate (readable text and opaque data)', () => {
    const plain: ViewMessage = { role: 'assistant', content: 'done' };
    const reasoning: Reasoning = { provider: 'openai', model: 'gpt-5', output: [{ type: 'reasoning', encrypted_content: 'x'.repeat(400) }], text: 'a long plan '.repeat(20) };
    expect(messageTokens({ ...plain, reasoning }) - messageTokens(plain)).toBeGreaterThan(100 + 20);
    // The first count loads the tokenizer's tables: seconds on a busy machine, past the mutation config's 4 s limit.
  }, 30_000);

  it("recognises Anthropic's prefix refusals (and nothing else)", () => {
    expect(prefixRefusal('invalid_request_error: messages.5.content.0: Invalid `signature` in `thinking` block. The block is bound to a different conversation.')).toEqual({ message: 5 });
    expect(prefixRefusal('messages.3.content.2: `thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified. These blocks must remain as they were in the original response.')).toEqual({ message: 3 });
    expect(prefixRefusal('prompt is too long: 300000 tokens > 200000 maximum')).toBeUndefined();
  });
});

describe('Anthropic turns sent back', () => {
  const model = 'claude-sonnet-5-5';
  const base = (messages: ViewMessage[]): LlmRequest => ({ system: 'sys', tools: [], messages, maxOutputTokens: 1000, purpose: 'turn' });
  /** An answer as the provider returned it, with the prefix fingerprint of the request it answered. */
  function answered(messages: ViewMessage[], text: string, producer = model): ViewMessage {
    // The fingerprint skein records with an answer: the request it answered (model, system, tools, messages).
    const params = anthropicParams(model, base(messages));
    const prefix = prefixOf({ model: params.model, system: params.system, tools: params.tools }, params.messages);
    const output = [{ type: 'thinking', thinking: `why ${text}`, signature: `sig-${text}` }, { type: 'text', text }];
    return { role: 'assistant', content: text, reasoning: { provider: 'anthropic', model: producer, output, prefix, text: `why ${text}` } };
  }
  const thinkingOf = (params: ReturnType<typeof anthropicParams>) => params.messages.map((m) => (Array.isArray(m.content) ? m.content.filter((b) => b.type === 'thinking').length : 0));

  it('keeps each turn exactly as returned while its prefix holds, drops thinking from the changed turn on, and never sends another model\'s', () => {
    const u1: ViewMessage = { role: 'user', content: 'one' };
    const a1 = answered([u1], 'first');
    const u2: ViewMessage = { role: 'user', content: 'two' };
    const a2 = answered([u1, a1, u2], 'second');
    const u3: ViewMessage = { role: 'user', content: 'three' };
    const whole = anthropicParams(model, base([u1, a1, u2, a2, u3]));
    expect(thinkingOf(whole)).toEqual([0, 1, 0, 1, 0]);
    expect(whole.messages[1]!.content).toEqual(a1.reasoning!.output);
    // A compaction rewrote the first user message: both turns after it lose their thinking, their text stays.
    const compacted = anthropicParams(model, base([{ role: 'user', content: '<compacted-history>…</compacted-history>' }, a1, u2, a2, u3]));
    expect(thinkingOf(compacted)).toEqual([0, 0, 0, 0, 0]);
    expect(compacted.messages[3]!.content).toEqual([{ type: 'text', text: 'second' }]);
    // A changed message between the turns: the first keeps its thinking, the second loses it.
    const middle = anthropicParams(model, base([u1, a1, { role: 'user', content: 'two, edited' }, a2, u3]));
    expect(thinkingOf(middle)).toEqual([0, 1, 0, 0, 0]);
    // Another model's thinking is never sent.
    const other = anthropicParams('claude-fable-5-1', base([u1, a1, u2, a2, u3]));
    expect(thinkingOf(other)).toEqual([0, 0, 0, 0, 0]);
  });
});


describe('the view after a compaction', () => {
  it("drops Anthropic thinking from kept turns after the first changed message, keeps OpenAI's and Gemini's reasoning", () => {
    const r = (provider: Reasoning['provider']): Reasoning => ({ provider, model: 'm', output: [{ type: 'x' }], text: 't' });
    const messages: SourcedMessage[] = [
      { role: 'user', content: 'one', seq: 1 },
      { role: 'assistant', content: 'a', seq: 2, reasoning: r('anthropic') },
      { role: 'user', content: 'two', seq: 3 },
      { role: 'assistant', content: 'b', seq: 4, reasoning: r('anthropic') },
      { role: 'user', content: 'three', seq: 5 },
      { role: 'assistant', content: 'c', seq: 6, reasoning: r('openai') },
    ];
    const folded = [...messages];
    applyCompaction(folded, { coversSeq: [1, 2], summary: 'the start' }, new Map());
    expect(folded.map((m) => m.reasoning?.provider)).toEqual([undefined, undefined, undefined, undefined, 'openai']);
    const untouched = [...messages];
    applyCompaction(untouched, {}, new Map());
    expect(untouched.map((m) => m.reasoning?.provider)).toEqual([undefined, 'anthropic', undefined, 'anthropic', undefined, 'openai']);
  });

  it('drops Anthropic thinking from every turn before a change of system prompt and tools (a toolset event), keeps it after', () => {
    const r = (provider: Reasoning['provider']): Reasoning => ({ provider, model: 'm', output: [{ type: 'x' }], text: 't' });
    let seq = 0;
    const e = (event: Record<string, unknown>) => ({ seq: ++seq, ts: '', ...event }) as SkeinEvent;
    const events = [
      e({ kind: 'user', text: 'one' }),
      e({ kind: 'agent', text: 'a', model: 'm', endOfTurn: true, reasoning: r('anthropic') }),
      e({ kind: 'user', text: 'two' }),
      e({ kind: 'agent', text: 'b', model: 'm', endOfTurn: true, reasoning: r('gemini') }),
      e({ kind: 'toolset', lean: true, tools: ['bash'], tokens: 400, contextWindow: 4096, message: 'lean' }),
      e({ kind: 'user', text: 'three' }),
      e({ kind: 'agent', text: 'c', model: 'm', endOfTurn: true, reasoning: r('anthropic') }),
    ];
    expect(deriveView(events).map((m) => m.reasoning?.provider)).toEqual([undefined, undefined, undefined, 'gemini', undefined, 'anthropic']);
    expect(deriveView(events.filter((x) => x.kind !== 'toolset')).map((m) => m.reasoning?.provider)).toEqual([undefined, 'anthropic', undefined, 'gemini', undefined, 'anthropic']);
  });
});
