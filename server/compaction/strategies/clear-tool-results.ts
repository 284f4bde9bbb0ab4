// Strategy 1, no LLM: tool results older than the last `keep` tool groups are
// replaced by a short placeholder naming the tool, its arguments and the size,
// and (`index`, skein's default) the identifiers the output held.
import { groupMessages } from '../groups.js';
import { measure, overTarget, type CompactionStrategy, type Draft } from '../pipeline.js';
import { firstFoldable } from '../plan.js';
import { applyCompaction, CLEARABLE_CHARS } from '../view.js';

export function clearToolResults(keep = 3, { index = true }: { index?: boolean } = {}): CompactionStrategy {
  /** The seq through which results would be cleared, or undefined when nothing worth clearing. */
  /** Overflow recovery at level 2 clears every old result. */
  function cutoff(draft: Draft, level = 0): number | undefined {
    const kept = level >= 2 ? 0 : keep;
    const toolGroups = groupMessages(draft.messages, firstFoldable(draft.messages)).filter((g) => g.messages.some((m) => m.role === 'tool'));
    const old = toolGroups.slice(0, Math.max(0, toolGroups.length - kept));
    const clearable = old.flatMap((g) => g.messages).filter((m) => m.role === 'tool' && m.clearedChars === undefined && m.content.length > CLEARABLE_CHARS);
    return clearable.length ? Math.max(...clearable.map((m) => m.seq)) : undefined;
  }
  return {
    name: 'clear_tool_results',
    shouldRun: (draft, ctx) => (overTarget(draft, ctx) || ctx.force) && cutoff(draft, ctx.level) !== undefined,
    async run(draft, ctx) {
      const through = cutoff(draft, ctx.level)!;
      const calls = new Map(draft.messages.flatMap((m) => m.toolCalls ?? []).map((c) => [c.id, c]));
      const messages = [...draft.messages];
      applyCompaction(messages, { clearedThroughSeq: through, clearedIndex: index }, calls);
      const cleared = messages.filter((m, i) => m.clearedChars !== undefined && draft.messages[i]!.clearedChars === undefined);
      return {
        ...draft,
        messages,
        tokens: measure(messages, ctx),
        clearedThroughSeq: through,
        // One compaction's placeholders are all of one kind: an earlier indexed clearing stays indexed.
        clearedIndex: index || draft.clearedIndex === true,
        clearedResults: (draft.clearedResults ?? 0) + cleared.length,
        clearedChars: (draft.clearedChars ?? 0) + cleared.reduce((n, m) => n + m.clearedChars!, 0),
      };
    },
  };
}
