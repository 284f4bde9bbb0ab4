// A peer with skein's placeholder and ledger: the peer's own trigger and fold
// policy, unchanged, but a result it clears lists the names its output held
// (skein's clearedPlaceholder with the index) and a span it folds carries
// skein's ledger beside the summary. Extra rows of the shootout, kept out of
// the goals: they separate what the trigger and fold policy is worth from
// what the placeholder and ledger are worth.
import { buildLedger, ledgerBudget } from '../../../server/compaction/ledger.js';
import type { CompactionStrategy, Draft } from '../../../server/compaction/pipeline.js';
import type { PolicyFor } from './common.js';
import { WITH_SKEIN_NAMES } from '../shootout-report.js';

function withNames(inner: CompactionStrategy): CompactionStrategy {
  return {
    ...inner,
    async run(draft, ctx): Promise<Draft> {
      const out = await inner.run(draft, ctx);
      let next = out;
      // The view is rebuilt from the compaction event: its clearedIndex renders the names, its ledger sits beside the summary.
      if (out.clearedThroughSeq !== undefined && out.clearedThroughSeq !== draft.clearedThroughSeq) next = { ...next, clearedIndex: true };
      if (out.fold && out.fold !== draft.fold) {
        const [first, last] = out.fold.coversSeq;
        const folded = draft.messages.filter((m) => m.seq !== undefined && m.seq >= first && m.seq <= last && !(out.fold!.keptSeqs ?? []).includes(m.seq));
        next = { ...next, fold: { ...out.fold, ledger: buildLedger(folded, ledgerBudget(ctx.targetTokens)) } };
      }
      return next;
    },
  };
}

export function withSkeinNames(make: PolicyFor): PolicyFor {
  return (window) => {
    const p = make(window);
    const base = p.name.replace(/ \(extrapolated\)$/, '');
    return { ...p, name: `${base}${WITH_SKEIN_NAMES}${p.extrapolated ? ' (extrapolated)' : ''}`, ...(p.strategies && { strategies: p.strategies.map(withNames) }) };
  };
}
