// Each peer rule the issue 41 audit questioned, checked against the value in
// the peer's current source (the quoted line and its file in a comment).
import { describe, expect, it } from 'vitest';
import type { LlmRequest, LlmResponse, Provider } from '../../../server/llm/types.js';
import type { CompactionContext } from '../../../server/compaction/pipeline.js';
import type { SourcedMessage } from '../../../server/compaction/view.js';
import { MAX_OUTPUT, MIDDLE_OUT_SHARES, summariseSpan, withoutToolOutputs } from '../../bench/policies/common.js';
import { openCodeUsable } from '../../bench/policies/opencode.js';
import { overMaxInput } from '../../bench/policies/openhands.js';
import { sketch, SKETCH_WINDOW } from '../../bench/policies/sketch.js';
import { goals, summarise } from '../../bench/shootout-report.js';
import { emptyMeterStats } from '../../bench/recall/meter.js';
import type { SetRun } from '../../bench/shootout.js';

describe('OpenCode: the trigger', () => {
  it('is window - max output - min(20,000, max output), as sst/opencode has it', () => {
    // sst/opencode packages/opencode/src/session/overflow.ts (commit 31e22f65):
    //   const COMPACTION_BUFFER = 20_000
    //   const reserved = input.cfg.compaction?.reserved ?? Math.min(COMPACTION_BUFFER, ProviderTransform.maxOutputTokens(input.model, input.outputTokenMax))
    //   : Math.max(0, context - ProviderTransform.maxOutputTokens(input.model, input.outputTokenMax) - reserved)
    // With the replay model's 8,192-token output: window - 16,384 (not window - 8,192 as the audit read it).
    const COMPACTION_BUFFER = 20_000;
    const quoted = (context: number, maxOutput: number) => Math.max(0, context - maxOutput - Math.min(COMPACTION_BUFFER, maxOutput));
    for (const w of [32_000, 128_000, 200_000]) expect(openCodeUsable(w)).toBe(quoted(w, MAX_OUTPUT));
    expect(openCodeUsable(32_000)).toBe(32_000 - 16_384);
  });
});

describe('OpenHands: the token count includes the system prompt and the tools', () => {
  it('a view whose messages fit but whose request (with system prompt and tools) does not is over the max input', () => {
    // OpenHands/software-agent-sdk openhands-sdk/openhands/sdk/context/condenser/utils.py, get_total_token_count:
    //   tools = next((event.tools for event in events if isinstance(event, SystemPromptEvent)), None)
    //   return llm.get_token_count(messages, tools=tools or None, ...)
    const view: SourcedMessage[] = [{ role: 'user', content: 'word '.repeat(800), seq: 1 }];
    const small = { system: 'short', tools: [] };
    const big = { system: 'instruction '.repeat(1500), tools: [] };
    expect(overMaxInput(view, small, 2_000)).toBe(false);
    expect(overMaxInput(view, big, 2_000)).toBe(true);
  });
});

describe('peer summarisers read tool outputs whole', () => {
  it('a 6,000-character output reaches the summary request whole, not cut to 2,000 characters', async () => {
    const seen: LlmRequest[] = [];
    const summariser: Provider = {
      model: 'fake',
      limits: { contextWindow: 200_000, maxOutputTokens: 8192 },
      complete: async (request: LlmRequest): Promise<LlmResponse> => {
        seen.push(request);
        return { text: 'summary', toolCalls: [], stopReason: 'end', usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 } } as unknown as LlmResponse;
      },
    } as unknown as Provider;
    const output = Array.from({ length: 200 }, (_, i) => `line_${i} of the output`).join('\n');
    expect(output.length).toBeGreaterThan(4_000);
    const folded: SourcedMessage[] = [
      { role: 'assistant', content: 'run', toolCalls: [{ id: 'c1', name: 'bash', input: { command: 'x' } }], seq: 2 },
      { role: 'tool', content: output, toolCallId: 'c1', seq: 3 },
    ];
    await summariseSpan(folded, { summariser, signal: new AbortController().signal } as unknown as CompactionContext, 1000);
    expect(seen[0]!.messages[0]!.content).toContain('line_100 of the output');
    expect(seen[0]!.messages[0]!.content).not.toContain('characters clipped');
  });
});

describe("Goose's middle-out retry of a summary that does not fit (do_compact)", () => {
  const tool = (i: number): SourcedMessage => ({ role: 'tool', content: `output ${i} `.repeat(400), toolCallId: `c${i}`, seq: 2 * i + 1 });
  const call = (i: number): SourcedMessage => ({ role: 'assistant', content: 'run', toolCalls: [{ id: `c${i}`, name: 'bash', input: { command: 'x' } }], seq: 2 * i });
  const folded = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].flatMap((i) => [call(i), tool(i)]);

  it('removes 10, 20, 50 then 100% of the tool responses, the middle ones first', () => {
    expect(MIDDLE_OUT_SHARES).toEqual([0.1, 0.2, 0.5, 1]);
    const removed = (share: number) => withoutToolOutputs(folded, share).flatMap((m, i) => (m.role === 'tool' && m.content !== folded[i]!.content ? [m.toolCallId] : []));
    expect(removed(0.1)).toHaveLength(1);
    expect(removed(0.2)).toEqual(['c5', 'c6']);
    expect(removed(0.5)).toHaveLength(5);
    expect(removed(0.5)).not.toContain('c1');
    expect(removed(0.5)).not.toContain('c10');
    expect(removed(1)).toHaveLength(10);
  });

  it('a request that does not fit the summariser is sent with outputs removed, not refused', async () => {
    const seen: LlmRequest[] = [];
    const summariser = {
      model: 'fake',
      limits: { contextWindow: 12_000, maxOutputTokens: 2_000 },
      complete: async (request: LlmRequest): Promise<LlmResponse> => {
        seen.push(request);
        return { text: 'summary', toolCalls: [], stopReason: 'end', usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 } } as unknown as LlmResponse;
      },
    } as unknown as Provider;
    await summariseSpan(folded, { summariser, signal: new AbortController().signal } as unknown as CompactionContext, 2_000);
    const sent = seen[0]!.messages[0]!.content as string;
    expect(sent).toContain('[tool response removed]');
    expect(sent).toContain('output 1 '); // the oldest and newest outputs are the last to go
    expect(sent).toContain('output 10 ');
  });
});

describe("sketch's 0.94 at windows below 200k", () => {
  it('is an extrapolation, marked and kept out of the goals', () => {
    // boldsoftware/sketch loop/agent.go: the 0.94 share ("default to 0.94 (94%)"), set for the 200k window of its models.
    expect(sketch(32_000).extrapolated).toBe(true);
    expect(sketch(32_000).name).toBe('sketch (extrapolated)');
    expect(sketch(SKETCH_WINDOW).extrapolated).toBeFalsy();
    const run = (policy: string, costUsd: number): SetRun =>
      ({ file: 'a.jsonl', window: 32_000, policy, finished: true, overflows: 0, stalls: 0, compactions: 1, costUsd, meter: emptyMeterStats(), set: 'shared', extrapolated: policy !== 'skein' } as unknown as SetRun);
    const skein = [run('skein', 2)];
    const results = [summarise('shared', 32_000, 'skein', false, skein, skein), summarise('shared', 32_000, 'sketch (extrapolated)', true, [run('sketch (extrapolated)', 1)], skein)];
    // The only (cheaper) peer is extrapolated: no clean peer to compare with, so the cost goal holds.
    expect(goals('shared', 32_000, results).find((r) => r.measure.includes('strict'))!.value).toContain('no peer had 0 overflows');
  });
});
