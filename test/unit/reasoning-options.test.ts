// The reasoning options a request carries, from a model's capabilities and
// the effort asked for: never an option the model refuses, the nearest effort
// it has (the lower on a tie, never "off" when thinking was asked for), and a
// turn's reasoning sent back only to the model that produced it.
import { describe, expect, it } from 'vitest';
import type { ThinkingCaps } from '../../server/llm/models.js';
import { anthropicThinking, effectiveEffort, effortsOf, geminiThinking, openaiEffort, ownReasoning } from '../../server/llm/reasoning.js';
import type { ReasoningEffort, ViewMessage } from '../../shared/protocol.js';

const caps = (mode: ThinkingCaps['mode'], ...efforts: ReasoningEffort[]): ThinkingCaps => ({ mode, efforts });
const ALL: ReasoningEffort[] = ['none', 'low', 'medium', 'high', 'max'];

describe('effectiveEffort', () => {
  it('sends nothing without capabilities, without a choice, or for `default`', () => {
    expect(effectiveEffort(undefined, 'high')).toBeUndefined();
    expect(effectiveEffort(caps('adaptive', ...ALL), undefined)).toBeUndefined();
    expect(effectiveEffort(caps('adaptive', ...ALL), 'default')).toBeUndefined();
  });

  it('sends an effort the model has as asked', () => {
    for (const e of ALL) expect(effectiveEffort(caps('adaptive', ...ALL), e)).toBe(e);
  });

  it('`none` on a model that cannot turn thinking off leaves the option out', () => {
    expect(effectiveEffort(caps('responses', 'low', 'medium', 'high'), 'none')).toBeUndefined();
  });

  it('an effort the model lacks becomes the nearest it has, the lower on a tie, whatever order the table lists them in', () => {
    expect(effectiveEffort(caps('responses', 'low', 'medium', 'high'), 'max')).toBe('high');
    expect(effectiveEffort(caps('responses', 'medium', 'high', 'max'), 'low')).toBe('medium');
    expect(effectiveEffort(caps('level', 'low', 'high'), 'medium')).toBe('low');
    expect(effectiveEffort(caps('level', 'high', 'low'), 'medium')).toBe('low');
    expect(effectiveEffort(caps('level', 'max', 'low'), 'high')).toBe('max');
    expect(effectiveEffort(caps('level', 'low', 'max'), 'medium')).toBe('low');
  });

  it('never turns thinking off in place of an effort, however near `none` is', () => {
    expect(effectiveEffort(caps('budget', 'none', 'high'), 'low')).toBe('high');
    expect(effectiveEffort(caps('budget', 'none'), 'low')).toBeUndefined();
  });
});

describe('effortsOf', () => {
  it('lists a model’s efforts from least to most (the picker’s order), nothing for a model without capabilities', () => {
    expect(effortsOf(caps('level', 'high', 'none', 'low'))).toEqual(['none', 'low', 'high']);
    expect(effortsOf(caps('adaptive', ...ALL))).toEqual(ALL);
    expect(effortsOf(undefined)).toBeUndefined();
  });
});

describe('anthropicThinking', () => {
  const adaptive = caps('adaptive', ...ALL);
  it('sends nothing for a model without Anthropic thinking', () => {
    expect(anthropicThinking(undefined, 'high')).toStrictEqual({});
    expect(anthropicThinking(caps('responses', ...ALL), 'high')).toStrictEqual({});
    expect(anthropicThinking(caps('level', ...ALL), 'high')).toStrictEqual({});
  });

  it('adaptive thinking with summaries and the effort; `none` disables it where that is allowed, never on an always-on model', () => {
    expect(anthropicThinking(adaptive, 'low')).toStrictEqual({ thinking: { type: 'adaptive', display: 'summarized' }, output_config: { effort: 'low' } });
    expect(anthropicThinking(adaptive, undefined)).toStrictEqual({ thinking: { type: 'adaptive', display: 'summarized' } });
    expect(anthropicThinking(adaptive, 'none')).toStrictEqual({ thinking: { type: 'disabled' } });
    expect(anthropicThinking(caps('always', ...ALL), 'none')).toStrictEqual({});
    expect(anthropicThinking(caps('always', 'low', 'high'), 'none')).toStrictEqual({ thinking: { type: 'adaptive', display: 'summarized' } });
    expect(anthropicThinking(caps('always', 'low', 'high'), 'medium')).toStrictEqual({ thinking: { type: 'adaptive', display: 'summarized' }, output_config: { effort: 'low' } });
  });
});

describe('openaiEffort', () => {
  const gpt = caps('responses', ...ALL);
  it('says `minimal` for none on gpt-5 and its mini and nano, `none` on every later model', () => {
    for (const m of ['gpt-5', 'gpt-5-mini', 'gpt-5-nano']) expect(openaiEffort(m, gpt, 'none')).toBe('minimal');
    for (const m of ['gpt-5.1', 'gpt-5-codex', 'gpt-5-mini-2', 'my-gpt-5']) expect(openaiEffort(m, gpt, 'none')).toBe('none');
  });

  it('says `xhigh` for max, the rest as they are, nothing for the default', () => {
    expect(openaiEffort('gpt-5.6', gpt, 'max')).toBe('xhigh');
    expect(openaiEffort('gpt-5.6', gpt, 'medium')).toBe('medium');
    expect(openaiEffort('gpt-5.6', gpt, 'default')).toBeUndefined();
    expect(openaiEffort('o3', caps('responses', 'low', 'medium', 'high'), 'max')).toBe('high');
  });
});

describe('geminiThinking', () => {
  it('sends nothing for a model without Gemini thinking', () => {
    expect(geminiThinking(undefined, 'high')).toBeUndefined();
    expect(geminiThinking(caps('adaptive', ...ALL), 'high')).toBeUndefined();
    expect(geminiThinking(caps('responses', ...ALL), 'high')).toBeUndefined();
  });

  it('thought summaries always; a level or a budget for the effort; a zero budget for none', () => {
    const level = caps('level', 'low', 'high');
    expect(geminiThinking(level, undefined)).toStrictEqual({ includeThoughts: true });
    expect(geminiThinking(level, 'medium')).toStrictEqual({ includeThoughts: true, thinkingLevel: 'low' });
    const budget = caps('budget', ...ALL);
    expect(geminiThinking(budget, 'none')).toStrictEqual({ thinkingBudget: 0 });
    expect(geminiThinking(budget, 'default')).toStrictEqual({ includeThoughts: true });
    expect((['low', 'medium', 'high', 'max'] as const).map((e) => geminiThinking(budget, e))).toStrictEqual([
      { includeThoughts: true, thinkingBudget: 1024 },
      { includeThoughts: true, thinkingBudget: 8192 },
      { includeThoughts: true, thinkingBudget: 24_576 },
      { includeThoughts: true, thinkingBudget: 32_768 },
    ]);
  });
});

describe('ownReasoning', () => {
  const reasoning = { provider: 'gemini' as const, model: 'gemini-3-pro-preview', output: [{ thought: true, text: 'x', thoughtSignature: 'sig' }] };
  const message: ViewMessage = { role: 'assistant', content: 'done', reasoning };
  it('gives a turn’s reasoning back, unchanged, only to the provider and model that produced it', () => {
    expect(ownReasoning(message, 'gemini', 'gemini-3-pro-preview')).toBe(reasoning);
    expect(ownReasoning(message, 'gemini', 'gemini-2.5-pro')).toBeUndefined();
    expect(ownReasoning(message, 'openai', 'gemini-3-pro-preview')).toBeUndefined();
    expect(ownReasoning({ role: 'assistant', content: 'done' }, 'gemini', 'gemini-3-pro-preview')).toBeUndefined();
  });
});
