// Observation masking, the simplest baseline of "The Complexity Trap: Simple
// Observation Masking Is as Efficient as LLM Summarization for Agent Context
// Management" (Lindenbauer et al., JetBrains Research / TUM, 2025,
// arXiv:2508.21433): every observation older than the last M = 10 turns is
// replaced by a placeholder at every turn; the agent's reasoning and actions
// stay; no summary, no token trigger. skein's placeholder names the call.
import { groupMessages } from '../../../server/compaction/groups.js';
import { measure, type CompactionStrategy } from '../../../server/compaction/pipeline.js';
import { firstFoldable } from '../../../server/compaction/plan.js';
import { applyCompaction, CLEARABLE_CHARS, type SourcedMessage } from '../../../server/compaction/view.js';
import type { PolicyFor } from './common.js';

/** The paper's window of observations kept (M = 10, its best setting for SWE-agent). */
export const MASK_KEEP = 10;

/** The seq through which observations are masked, or undefined when none is due. */
function maskThrough(view: readonly SourcedMessage[], keep: number): number | undefined {
  const groups = groupMessages(view, firstFoldable(view)).filter((g) => g.messages.some((m) => m.role === 'tool'));
  const old = groups.slice(0, Math.max(0, groups.length - keep)).flatMap((g) => g.messages);
  const open = old.filter((m) => m.role === 'tool' && m.clearedChars === undefined && m.content.length > CLEARABLE_CHARS);
  return open.length ? Math.max(...open.map((m) => m.seq)) : undefined;
}

export function observationMask(keep = MASK_KEEP): CompactionStrategy {
  return {
    name: 'observation_mask',
    due: (view) => maskThrough(view, keep) !== undefined,
    // In overflow recovery (level 2 and up) every old observation goes, as clear_tool_results does.
    shouldRun: (draft, ctx) => maskThrough(draft.messages, (ctx.level ?? 0) >= 2 ? 0 : keep) !== undefined,
    async run(draft, ctx) {
      const through = maskThrough(draft.messages, (ctx.level ?? 0) >= 2 ? 0 : keep)!;
      const calls = new Map(draft.messages.flatMap((m) => m.toolCalls ?? []).map((c) => [c.id, c]));
      const messages = [...draft.messages];
      applyCompaction(messages, { clearedThroughSeq: through }, calls);
      return { ...draft, messages, tokens: measure(messages, ctx), clearedThroughSeq: through };
    },
  };
}

export const observationMasking: PolicyFor = () => ({
  name: 'observation masking',
  env: { SKEIN_COMPACT_THRESHOLD_RATIO: '1', SKEIN_COMPACT_PREFLIGHT: 'off' },
  strategies: [observationMask()],
  resultCap: false,
});
