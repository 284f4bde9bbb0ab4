// Both Markdown transcripts (skein export --markdown, and the export route)
// say where an answer was cut and where the window changed, and name a
// compaction that folded nothing as such (red team, issue 38: the cut read as
// a whole answer, and "(threshold, )").
import { describe, expect, it } from 'vitest';
import type { SkeinEvent } from '../../shared/protocol.js';
import { markdownTranscript as cliTranscript } from '../../server/cli/export-markdown.js';
import { markdownTranscript as routeTranscript } from '../../server/manage/export-markdown.js';

const header = { skein: 1 as const, session: 's', createdAt: '2025-01-01T00:00:00.000Z', model: 'm' };
const CUT = 'The answer was cut: prompt and answer filled the 2,048-token context window (2,004 prompt + 44 answer tokens).';
const LIMITS = 'The server now says its window: 1,024 tokens (GET /props (n_ctx)); skein uses it instead of 2,048.';

function events(): SkeinEvent[] {
  const list: Record<string, unknown>[] = [
    { kind: 'user', text: 'tell me a story' },
    { kind: 'agent', text: 'Once upon a', model: 'm', endOfTurn: false },
    { kind: 'answer_cut', reason: 'context', input: 2004, output: 44, maxTokens: 512, contextWindow: 2048, message: CUT, text: '<skein-cut>go on</skein-cut>' },
    { kind: 'answer_cut', reason: 'context', input: 2004, output: 44, maxTokens: 512, contextWindow: 2048, message: CUT, text: '<skein-cut>go on</skein-cut>', again: true },
    { kind: 'limits', model: 'm', contextWindow: 1024, maxOutputTokens: 256, source: 'provider', via: 'GET /props (n_ctx)', message: LIMITS },
    { kind: 'limits', model: 'm', contextWindow: 1024, maxOutputTokens: 256, source: 'provider', via: 'GET /props (n_ctx)' },
    { kind: 'compaction', phase: 'finished', trigger: 'threshold', strategy: 'none', strategies: [], tokensBefore: 798, tokensAfter: 798, summary: 'Nothing to fold yet' },
  ];
  return list.map((e, i) => ({ seq: i + 1, ts: '2025-01-01T00:00:00.000Z', ...e }) as SkeinEvent);
}

describe('Markdown transcripts of cuts, windows and empty compactions', () => {
  for (const [name, text] of [
    ['skein export --markdown', () => cliTranscript('s', 'A title', events())],
    ['the export route', () => routeTranscript(header, 'A title', events())],
  ] as const) {
    it(`${name}: the cut once (not its repeat), the window change, "nothing folded"`, () => {
      const md = text();
      expect(md.split(CUT).length - 1).toBe(1);
      expect(md).toContain('Answer cut');
      expect(md).toContain(LIMITS);
      expect(md.match(/Context window/g)).toHaveLength(1);
      expect(md).toMatch(/### Compaction \(threshold, nothing folded[,)]/);
    });
  }
});
