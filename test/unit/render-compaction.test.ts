// skein run's text mode says a compaction that folded nothing as such, with
// its reason, not as "compacted: 1,498 → 1,498 tokens" (red team, issue 38).
import { describe, expect, it } from 'vitest';
import type { SkeinEvent } from '../../shared/protocol.js';
import { TextRenderer } from '../../server/cli/render.js';

const finished = (e: Record<string, unknown>) => ({ seq: 9, ts: '2025-01-01T00:00:00.000Z', kind: 'compaction', phase: 'finished', trigger: 'preflight', tokensBefore: 1498, ...e }) as SkeinEvent;

describe('the compaction line', () => {
  it('a fold names its strategies and the tokens; nothing folded says so and why', () => {
    const r = new TextRenderer();
    expect(r.lines(finished({ strategy: 'summarize', strategies: ['summarize'], tokensAfter: 700, durationMs: 1200 }))).toEqual(['⟳ compacted (preflight, summarize): 1,498 → 700 tokens in 1.2 s']);
    expect(r.lines(finished({ strategy: 'none', strategies: [], tokensAfter: 1498, summary: 'Nothing to fold yet: all that is left is what the model reads now.' }))).toEqual([
      '⟳ compaction (preflight): Nothing to fold yet: all that is left is what the model reads now.',
    ]);
  });
});
