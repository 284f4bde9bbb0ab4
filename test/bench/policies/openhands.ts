// OpenHands' default condenser (OpenHands/software-agent-sdk), emulated on skein's strategy interface:
// - the default agent's condenser is LLMSummarizingCondenser(max_size=80,
//   keep_first=4) (openhands-sdk/openhands/sdk/context/condenser/llm_summarizing_condenser.py,
//   _DEFAULT_MAX_SIZE / _DEFAULT_KEEP_FIRST and default_condenser, used by
//   openhands-tools/openhands/tools/preset/default.py, get_default_condenser);
// - reasons (get_condensation_reasons): more than max_size events (the system
//   prompt plus one per message, call or observation: skein's view + 1), or
//   total tokens above the agent LLM's effective max input (_effective_max_tokens),
//   or a refusal (a condensation request);
// - the strictest suffix among the reasons stays (get_condensation): events:
//   max_size // 2 - keep_first - 1; request: len // 2 - keep_first - 1; tokens:
//   the newest events within half the max input; the first keep_first events
//   stay; the events between, with the previous summary, become one summary;
// - the token count includes the system prompt and the tools
//   (openhands-sdk/openhands/sdk/context/condenser/utils.py, get_total_token_count:
//   "tools = next((event.tools for event in events if isinstance(event, SystemPromptEvent)), None)"
//   and llm.get_token_count(messages, tools=tools or None, ...));
// - an event's content is cut at max_message_chars = 30,000 (openhands-sdk/openhands/sdk/llm/llm.py).
import { firstFoldable, recentGroupsWithin } from '../../../server/compaction/plan.js';
import { groupMessages } from '../../../server/compaction/groups.js';
import type { CompactionContext, CompactionStrategy } from '../../../server/compaction/pipeline.js';
import { plain, type SourcedMessage } from '../../../server/compaction/view.js';
import { messageTokens, requestTokens } from '../../../server/llm/tokens.js';
import { boundaryAtOrBefore, headTailCut, MAX_OUTPUT, replaceSpan, summariseSpan, type PolicyFor } from './common.js';

export const MAX_SIZE = 80;
export const KEEP_FIRST = 4;
const MAX_MESSAGE_CHARS = 30_000;

function events(view: readonly SourcedMessage[]): number {
  return view.length + 1;
}

function viewTokens(view: readonly SourcedMessage[]): number {
  return view.reduce((n, m) => n + messageTokens(m), 0);
}

/** Whether the request (system prompt, tools and messages: utils.py, get_total_token_count) is above the max input. */
export function overMaxInput(view: readonly SourcedMessage[], base: CompactionContext['base'], maxInput: number): boolean {
  return requestTokens({ ...base, messages: plain(view) }) > maxInput;
}

function condenser(maxInput: number): CompactionStrategy {
  return {
    name: 'openhands_condenser',
    // `threshold`: the window (OpenHands' ratio is 1) minus the system prompt and tools, in counted tokens.
    due: (view, threshold) => events(view) > MAX_SIZE || viewTokens(view) > threshold,
    shouldRun: (draft, ctx) => events(draft.messages) > MAX_SIZE || overMaxInput(draft.messages, ctx.base, maxInput) || ctx.force,
    async run(draft, ctx) {
      const n = events(draft.messages);
      const groups = groupMessages(draft.messages, firstFoldable(draft.messages));
      const from = groups.find((g) => g.start >= KEEP_FIRST - 1)?.start ?? draft.messages.length;
      const tails: number[] = [];
      if (ctx.force) tails.push(Math.floor(n / 2) - KEEP_FIRST - 1);
      if (n > MAX_SIZE) tails.push(Math.floor(MAX_SIZE / 2) - KEEP_FIRST - 1);
      if (overMaxInput(draft.messages, ctx.base, maxInput)) {
        const keep = recentGroupsWithin(draft.messages, from, Math.floor(maxInput / 2) - viewTokens(draft.messages.slice(0, from)));
        tails.push(groups.slice(groups.length - keep).reduce((k, g) => k + g.messages.length, 0));
      }
      const tail = Math.max(0, Math.min(...(tails.length ? tails : [Math.floor(n / 2) - KEEP_FIRST - 1])));
      const end = boundaryAtOrBefore(draft.messages, from, draft.messages.length - tail);
      if (end <= from || (end - from === 1 && draft.messages[from]!.summaryOf)) return draft;
      const { text, usage } = await summariseSpan(draft.messages.slice(from, end), ctx, MAX_OUTPUT);
      return replaceSpan(draft, ctx, from, end, text, usage);
    },
  };
}

export const openHands: PolicyFor = (window) => ({
  name: 'OpenHands',
  // Only its own reasons trigger it (besides a refusal): no skein threshold, no pre-flight.
  env: { SKEIN_COMPACT_THRESHOLD_RATIO: '1', SKEIN_COMPACT_PREFLIGHT: 'off' },
  strategies: [condenser(window)],
  resultCap: false,
  cut: headTailCut(MAX_MESSAGE_CHARS),
});
