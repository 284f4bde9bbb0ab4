// A summary asked for in place: the session's own model gets the conversation
// it last read, up to the end of the folded span, plus one request message, so
// the provider's prompt cache serves the folded history at the cached price.
import { describe, expect, it } from 'vitest';
import { runPipeline } from '../../server/compaction/pipeline.js';
import { defaultStrategies } from '../../server/compaction/strategies/index.js';
import { IN_PLACE_OPEN } from '../../server/compaction/summarizer.js';
import { deriveView, plain } from '../../server/compaction/view.js';
import { PredictableProvider } from '../../server/llm/predictable.js';
import type { LlmRequest, LlmResponse, Provider } from '../../server/llm/types.js';
import { LogBuilder } from '../helpers/events.js';
import { BASE, context } from '../helpers/compaction.js';

function session(steps = 12): LogBuilder {
  const log = new LogBuilder();
  log.user('the task: make the build green');
  for (let i = 0; i < steps; i++) {
    log.user(`step ${i}: please check src/module${i}.ts`);
    log.tools([`c${i}`], true, `output of step ${i} `.repeat(40), () => `cat src/module${i}.ts`);
    log.agent(`finished step ${i}`);
  }
  log.user('and now the docs');
  return log;
}

/** The predictable model (simulated prompt cache, deterministic summary), recording every request. */
function recording(): Provider & { calls: LlmRequest[] } {
  const model = new PredictableProvider({ contextWindow: 100_000, maxOutputTokens: 4096 });
  const calls: LlmRequest[] = [];
  return {
    model: model.model,
    limits: model.limits,
    calls,
    complete(request: LlmRequest, signal: AbortSignal): Promise<LlmResponse> {
      calls.push(request);
      return model.complete(request, signal);
    },
  };
}

describe('in-place summary', () => {
  it("sends the conversation's own prefix and reads it from the cache instead of paying for a transcript", async () => {
    const view = deriveView(session().events);
    const model = recording();
    // The turn the model last answered: its prefix is what the cache holds.
    await model.complete({ ...BASE, messages: plain(view), maxOutputTokens: 1000, purpose: 'turn' }, new AbortController().signal);
    const result = await runPipeline(defaultStrategies(), view, context({ summariser: model, targetTokens: 1500, inPlace: { view, ratio: 1 } }));
    expect(result.strategies).toContain('summarize');
    const ask = model.calls[1]!;
    // Same system prompt and tools, the same messages in the same order, then the request.
    expect(ask.system).toBe(BASE.system);
    expect(ask.tools).toBe(BASE.tools);
    const folded = ask.messages.slice(0, -1);
    expect(folded).toEqual(plain(view).slice(0, folded.length));
    expect(folded.length).toBeLessThan(view.length); // the recent groups kept verbatim are not sent
    expect(ask.messages.at(-1)!.content.startsWith(IN_PLACE_OPEN)).toBe(true);
    // The prefix is a cache read; only the request message is new input.
    const usage = result.summariserUsage!;
    expect(usage.cacheRead).toBeGreaterThan(5 * usage.input);
    expect(usage.cacheWrite).toBe(0);
    // The deterministic summary read the folded span from the conversation: user messages, calls.
    expect(result.summary).toContain('- user: step 0: please check src/module0.ts');
    expect(result.summary).toContain('cat src/module0.ts');
    expect(result.summary).not.toContain('the task: make the build green');
  });

  it('without inPlace (another model summarises) the folded span goes as a transcript', async () => {
    const view = deriveView(session().events);
    const model = recording();
    await runPipeline(defaultStrategies(), view, context({ summariser: model, targetTokens: 1500 }));
    expect(model.calls[0]!.messages).toHaveLength(1);
    expect(model.calls[0]!.messages[0]!.content).toContain('<transcript>');
    expect(model.calls[0]!.tools).toEqual([]);
  });

  it('falls back to a transcript when the conversation would not fit the summariser with room for the answer', async () => {
    const view = deriveView(session().events);
    const model = recording();
    const small: Provider & { calls: LlmRequest[] } = { ...model, limits: { contextWindow: 2000, maxOutputTokens: 512 } };
    await runPipeline(defaultStrategies(), view, context({ summariser: small, targetTokens: 1500, inPlace: { view, ratio: 1 } }));
    expect(model.calls.length).toBeGreaterThan(0);
    expect(model.calls.every((c) => !c.messages.at(-1)!.content.startsWith(IN_PLACE_OPEN))).toBe(true);
  });
});
