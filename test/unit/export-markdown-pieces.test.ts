// The Markdown transcript built a piece at a time (the export route's way):
// joined, the pieces are exactly the transcript built whole, wherever the
// pieces are cut (runs of blank lines and trailing whitespace across cuts).
import { describe, expect, it } from 'vitest';
import type { SkeinEvent } from '../../shared/protocol.js';
import { markdownPieces, markdownTranscript } from '../../server/manage/export-markdown.js';

const header = { skein: 1 as const, session: 's', createdAt: '2025-01-01T00:00:00.000Z', model: 'predictable', forkOf: { session: 'o', seq: 3 } };

function events(): SkeinEvent[] {
  const list: Record<string, unknown>[] = [
    { kind: 'user', text: 'first\n\n\n\nwith blank lines   \n\n' },
    { kind: 'state', from: 'WaitingForUserInput', to: 'SendingToLLM', reason: 'x' },
    { kind: 'agent', text: '   ', model: 'm' },
    { kind: 'tool_call', callId: 'a', name: 'bash', input: { command: 'ls' } },
    { kind: 'agent', text: 'answer\n\n\n', model: 'm' },
    { kind: 'tool_result', callId: 'a', name: 'bash', output: 'line\n'.repeat(50), isError: true, durationMs: 1 },
    { kind: 'tool_call', callId: 'b', name: 'read', input: { path: 'x`y' } },
    { kind: 'error', message: 'boom\n\n  again', code: 'provider_error' },
    { kind: 'compaction', phase: 'finished', trigger: 'manual', strategy: 'summarize', tokensBefore: 10, tokensAfter: 2, coversSeq: [1, 4], summary: 'sum\n\n\nmary\n' },
    { kind: 'mode', from: 'ask', to: 'auto' },
    { kind: 'user', text: 'last   \n\n\t\n' },
  ];
  return list.map((e, i) => ({ seq: i + 1, ts: '2025-01-01T00:00:00.000Z', ...e }) as SkeinEvent);
}

async function joined(pieces: AsyncGenerator<string>): Promise<{ text: string; count: number }> {
  let text = '';
  let count = 0;
  for await (const piece of pieces) {
    text += piece;
    count++;
  }
  return { text, count };
}

describe('Markdown transcript in pieces', () => {
  it('joins to exactly the whole transcript, cut after every event or never', async () => {
    const all = events();
    const whole = markdownTranscript(header, 'A title', all);
    for (let n = 0; n <= all.length; n++) {
      const some = all.slice(0, n);
      const expected = markdownTranscript(header, 'A title', some);
      // sliceMs -1: a piece after every event (every cut tried); Infinity: one piece.
      const cut = await joined(markdownPieces(header, 'A title', some, -1));
      expect(cut.text).toBe(expected);
      expect((await joined(markdownPieces(header, 'A title', some, Infinity))).text).toBe(expected);
      if (n === all.length) expect(cut.count).toBeGreaterThan(5);
    }
    expect(whole).toContain('**Tool `bash`**');
    expect(whole).not.toMatch(/\n{3,}/);
  });
});
