// Goose's auto-compaction (block/goose), emulated on skein's strategy interface:
// - compact when the session's last reported total reaches 80% of the window
//   (crates/goose/src/context_mgmt/mod.rs, DEFAULT_COMPACTION_THRESHOLD = 0.8;
//   the check reads the total the provider last reported: no pre-flight estimate);
// - the whole agent-visible conversation is summarised in one separate request
//   (the compaction.md prompt) sent with complete_fast, the provider's cheaper
//   fast model: priced here at claude-haiku-4-5 against the session's
//   claude-sonnet-4-5; the latest user message is put back after the summary;
// - and, before that, its tool-pair summarisation (on by default: every call
//   older than the newest cutoff, outside the current turn, summarised alone
//   by the fast model; goose-tool-pairs.ts, crates/goose/src/context_mgmt/mod.rs
//   maybe_summarize_tool_pairs, crates/goose/src/agents/agent.rs).
import { STATUS_NOTE_OPEN } from '../../../shared/protocol.js';
import { firstFoldable } from '../../../server/compaction/plan.js';
import type { CompactionStrategy } from '../../../server/compaction/pipeline.js';
import { isSummaryMessage } from '../../../server/compaction/view.js';
import { gooseToolPairs } from './goose-tool-pairs.js';
import { MAX_OUTPUT, ratioEnv, replaceSpan, summariseSpan, type PolicyFor } from './common.js';

export const GOOSE_THRESHOLD = 0.8;
export const GOOSE_FAST_MODEL = 'claude-haiku-4-5';

function gooseCompact(): CompactionStrategy {
  return {
    name: 'goose_compact',
    shouldRun: (draft) => draft.messages.length > firstFoldable(draft.messages),
    async run(draft, ctx) {
      const from = firstFoldable(draft.messages);
      const folded = draft.messages.slice(from);
      const { text, usage } = await summariseSpan(folded, ctx, MAX_OUTPUT);
      const latest = folded.findLast((m) => m.role === 'user' && !isSummaryMessage(m) && !m.content.startsWith(STATUS_NOTE_OPEN));
      return replaceSpan(draft, ctx, from, draft.messages.length, latest ? `${text}\n\n${latest.content}` : text, usage);
    },
  };
}

export const goose: PolicyFor = (window) => ({
  name: 'Goose',
  env: ratioEnv(GOOSE_THRESHOLD * window, window, false),
  strategies: [gooseToolPairs(window, GOOSE_THRESHOLD), gooseCompact()],
  resultCap: false,
  summaryModel: GOOSE_FAST_MODEL,
});
