// Each peer rule the issue 41 audit questioned, checked against the value in
// the peer's current source (the quoted line and its file in a comment).
import { describe, expect, it } from 'vitest';
import type { LlmRequest, LlmResponse, Provider } from '../../../server/llm/types.js';
import type { CompactionContext } from '../../../server/compaction/pipeline.js';
import type { SourcedMessage } from '../../../server/compaction/view.js';
import { MAX_OUTPUT, MIDDLE_OUT_SHARES, summariseSpan, withoutToolOutputs } from '../../bench/policies/common.js';
import { GOOSE_THRESHOLD, goose } from '../../bench/policies/goose.js';
import { gooseBatchSize, gooseToolCallCutoff, toolPairsToSummarise } from '../../bench/policies/goose-tool-pairs.js';
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

describe("Goose's tool-pair summarisation (maybe_summarize_tool_pairs, on by default)", () => {
  it('cutoff and batch as block/goose computes them', () => {
    // block/goose crates/goose/src/context_mgmt/mod.rs:
    //   compute_tool_call_cutoff: (effective_limit / 10_000).clamp(10, 500), effective_limit = context_limit * threshold
    //   maybe_summarize_tool_pairs: let batch_size = (cutoff / 5).max(3);
    // Its own tests: compute_tool_call_cutoff(200_000, Some(0.8)) == 16, (128_000, None) == 12, (10_000_000, None) == 500.
    expect(gooseToolCallCutoff(200_000, 0.8)).toBe(16);
    expect(gooseToolCallCutoff(128_000, 1)).toBe(12);
    expect(gooseToolCallCutoff(10_000_000, 1)).toBe(500);
    expect(gooseToolCallCutoff(32_000, GOOSE_THRESHOLD)).toBe(10);
    expect(gooseBatchSize(10)).toBe(3);
    expect(gooseBatchSize(16)).toBe(3);
    expect(gooseBatchSize(50)).toBe(10);
  });

  const pair = (i: number): SourcedMessage[] => [
    { role: 'assistant', content: `step ${i}`, toolCalls: [{ id: `c${i}`, name: 'bash', input: { command: `cat f${i}` } }], seq: 10 * i },
    { role: 'tool', content: `output ${i} `.repeat(100), toolCallId: `c${i}`, seq: 10 * i + 1 },
  ];

  it('the oldest calls past the cutoff, never those of the current turn (tool_ids_to_summarize, protect_last_n)', () => {
    const task: SourcedMessage = { role: 'user', content: 'task', seq: 1 };
    const notice: SourcedMessage = { role: 'user', content: 'Please always provide EXACTLY ONE action', seq: 135 };
    // 14 calls, all in the current turn (one task): nothing is summarised.
    const oneTurn = [task, ...Array.from({ length: 14 }, (_, i) => pair(i + 1)).flat()];
    expect(toolPairsToSummarise(oneTurn, 10, 3)).toEqual([]);
    // 13 calls before a new user message and 2 after: eligible 13 > cutoff 10, the oldest 3.
    const twoTurns = [task, ...Array.from({ length: 13 }, (_, i) => pair(i + 1)).flat(), notice, ...pair(14), ...pair(15)];
    expect(toolPairsToSummarise(twoTurns, 10, 3)).toEqual(['c1', 'c2', 'c3']);
    expect(toolPairsToSummarise(twoTurns, 11, 3)).toEqual(['c1', 'c2']);
  });

  it('Goose runs it before its 80% compaction, on its own trigger', () => {
    const names = goose(32_000).strategies!.map((s) => s.name);
    expect(names).toEqual(['goose_tool_pairs', 'goose_compact']);
    expect(goose(32_000).strategies![0]!.due).toBeDefined();
  });
});
