// The "+ skein's names" rows of the shootout: a peer wrapped by
// withSkeinNames keeps its own trigger and fold, but what it clears shows
// skein's placeholder (the names the output held) and what it folds carries
// skein's ledger; the same peer unwrapped shows neither.
import { describe, expect, it } from 'vitest';
import type { LlmRequest, LlmResponse, Provider } from '../../../server/llm/types.js';
import type { CompactionContext, CompactionStrategy, Draft } from '../../../server/compaction/pipeline.js';
import { applyCompaction, summaryMessage, type SourcedMessage } from '../../../server/compaction/view.js';
import { goose } from '../../bench/policies/goose.js';
import { observationMasking } from '../../bench/policies/masking.js';
import { withSkeinNames } from '../../bench/policies/with-skein-names.js';
import type { PolicyFor } from '../../bench/policies/common.js';

const WINDOW = 32_000;
const NAME = 'parse_config_section';

const summariser = {
  model: 'fake',
  limits: { contextWindow: 200_000, maxOutputTokens: 8192 },
  complete: async (_request: LlmRequest): Promise<LlmResponse> => ({ text: 'The agent looked at a few files.', toolCalls: [], stopReason: 'end', usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 } }) as unknown as LlmResponse,
} as unknown as Provider;

const ctx = { base: { system: 'sys', tools: [] }, contextWindow: WINDOW, targetTokens: WINDOW / 2, summariser, signal: new AbortController().signal, force: false, skipSummariser: false } as unknown as CompactionContext;

/** A task, then 12 calls, the first of which printed a long output naming NAME. */
function session(): SourcedMessage[] {
  const out: SourcedMessage[] = [{ role: 'user', content: 'Fix the bug.', seq: 1 }];
  for (let i = 0; i < 12; i++) {
    const seq = 2 + 2 * i;
    const output = i === 0 ? `def ${NAME}(text):\n${'    pass  # filler line of the module\n'.repeat(40)}` : `plain output ${i} `.repeat(40);
    out.push({ role: 'assistant', content: `step ${i}`, toolCalls: [{ id: `c${i}`, name: 'bash', input: { command: `cat file${i}` } }], seq });
    out.push({ role: 'tool', content: output, toolCallId: `c${i}`, seq: seq + 1 });
  }
  return out;
}

/** The view the server derives from the compaction the strategy drafted (its event: clearedThroughSeq, clearedIndex, fold). */
async function viewAfter(policy: PolicyFor, name: string): Promise<string> {
  const strategy: CompactionStrategy = policy(WINDOW).strategies!.find((s) => s.name === name)!;
  const messages = session();
  const draft: Draft = { messages, tokens: 0, strategies: [] };
  expect(strategy.shouldRun(draft, ctx)).toBe(true);
  const out = await strategy.run(draft, ctx);
  const view = session();
  const calls = new Map(view.flatMap((m) => m.toolCalls ?? []).map((c) => [c.id, c]));
  applyCompaction(view, { clearedThroughSeq: out.clearedThroughSeq, clearedIndex: out.clearedIndex, ...(out.fold && { coversSeq: out.fold.coversSeq, summary: out.fold.summary, ledger: out.fold.ledger }) }, calls);
  return view.map((m) => m.content).join('\n');
}

describe("a peer with skein's names (policies/with-skein-names.ts)", () => {
  it("observation masking wrapped: the cleared output's placeholder lists its names; unwrapped it does not", async () => {
    const wrapped = await viewAfter(withSkeinNames(observationMasking), 'observation_mask');
    const plain = await viewAfter(observationMasking, 'observation_mask');
    for (const view of [wrapped, plain]) expect(view).toContain('[tool result cleared to save context (event 3)');
    expect(wrapped).toContain(NAME);
    expect(plain).not.toContain(NAME);
  });

  it("Goose wrapped: its summary carries skein's ledger with the folded span's names; unwrapped it does not", async () => {
    const wrapped = await viewAfter(withSkeinNames(goose), 'goose_compact');
    const plain = await viewAfter(goose, 'goose_compact');
    for (const view of [wrapped, plain]) expect(view).toContain('The agent looked at a few files.');
    expect(wrapped).toContain(NAME);
    expect(plain).not.toContain(NAME);
    // The ledger is skein's own rendering beside the summary, not a copy of the output.
    expect(summaryMessage('x', undefined, [2, 3]).content).not.toContain(NAME);
  });

  it('keeps the peer apart by name', () => {
    expect(withSkeinNames(goose)(WINDOW).name).toBe("Goose + skein's names");
    expect(withSkeinNames(goose)(WINDOW).env).toEqual(goose(WINDOW).env);
  });
});
