// The shootout's recall charge (test/bench/recall/meter.ts): a recorded step
// that uses an identifier found only in original content the view no longer
// shows costs a re-read and one extra request; an identifier never used again
// costs nothing; the same step with the content still in view costs nothing.
import { describe, expect, it } from 'vitest';
import type { ViewMessage } from '../../../shared/protocol.js';
import { ReplayProvider } from '../../../server/llm/replay.js';
import type { LlmRequest } from '../../../server/llm/types.js';
import { MeteredProvider, RECALL_CALL_TOKENS } from '../../bench/recall/meter.js';

const TRACEBACK = 'Traceback (most recent call last):\n  File "src/alpha_module.py", line 41, in parse_header\nValueError: zeta_flag_missing';
const LISTING = 'README.md\nsetup.cfg\nold_unrelated_helper.py';

/** user task; ls (never used again); run (its error used by the last step); the fix naming the error. */
function recording(): ViewMessage[] {
  return [
    { role: 'system', content: 'recorded agent prompt' },
    { role: 'user', content: 'Fix the crash.' },
    { role: 'assistant', content: 'List files.', toolCalls: [{ id: 'c1', name: 'bash', input: { command: 'ls' } }] },
    { role: 'tool', content: LISTING, toolCallId: 'c1' },
    { role: 'assistant', content: 'Run it.', toolCalls: [{ id: 'c2', name: 'bash', input: { command: 'python run.py' } }] },
    { role: 'tool', content: TRACEBACK, toolCallId: 'c2' },
    { role: 'assistant', content: 'The error is zeta_flag_missing in parse_header.', toolCalls: [{ id: 'c3', name: 'bash', input: { command: "sed -i 's/x/y/' src/alpha_module.py" } }] },
    { role: 'tool', content: 'ok', toolCallId: 'c3' },
  ];
}

const price = (u: { input: number; cacheRead: number; cacheWrite: number; output: number }) => (3 * u.input + 0.3 * u.cacheRead + 3.75 * u.cacheWrite + 15 * u.output) / 1e6;

function meter(): MeteredProvider {
  const rec = recording();
  return new MeteredProvider(new ReplayProvider({ contextWindow: 200_000, maxOutputTokens: 8192 }, rec), rec, { price, window: 200_000 });
}

const request = (messages: ViewMessage[]): LlmRequest => ({ system: 'skein', messages, tools: [], maxOutputTokens: 1000, purpose: 'turn' });
const signal = new AbortController().signal;
const placeholder = (id: string): ViewMessage => ({ role: 'tool', content: '[tool result cleared]', toolCallId: id });

/** Plays the three recorded steps; `view3` is what the model is shown before the third. */
async function play(m: MeteredProvider, view3: (rec: ViewMessage[]) => ViewMessage[]): Promise<void> {
  const rec = recording();
  await m.complete(request(rec.slice(1, 2)), signal);
  await m.complete(request(rec.slice(1, 4)), signal);
  await m.complete(request(view3(rec)), signal);
}

describe('recall has a price', () => {
  it('a cleared output whose identifier a later step uses costs a re-read and one extra request', async () => {
    const m = meter();
    await play(m, (rec) => [...rec.slice(1, 5), placeholder('c2')]);
    expect(m.stats.steps).toBe(3);
    expect(m.stats.rereads).toBe(1);
    expect(m.stats.rereadMessages).toBe(1);
    expect(m.stats.rereadTokens).toBeGreaterThan(0);
    // At least the re-read written to the cache and the recall call's output.
    expect(m.stats.rereadUsd).toBeGreaterThanOrEqual(price({ input: 0, cacheRead: 0, cacheWrite: m.stats.rereadTokens + RECALL_CALL_TOKENS, output: RECALL_CALL_TOKENS }));
  });

  it('a cleared output that no later step uses costs nothing', async () => {
    const m = meter();
    await play(m, (rec) => [...rec.slice(1, 3), placeholder('c1'), ...rec.slice(4, 6)]);
    expect(m.stats.rereads).toBe(0);
    expect(m.stats.rereadUsd).toBe(0);
    // The clearing itself is still seen as a rewrite that removed identifiers.
    expect(m.stats.rewrites).toBe(1);
    expect(m.stats.idsTotal).toBeGreaterThan(0);
  });

  it('the same step with the output still in view costs nothing', async () => {
    const m = meter();
    await play(m, (rec) => rec.slice(1, 6));
    expect(m.stats.rereads).toBe(0);
    expect(m.stats.rewrites).toBe(0);
  });

  it('an identifier a summary kept (JSON-escaped, as a peer lists calls) is found after normalisation: no charge', async () => {
    const m = meter();
    // Everything that left the view, listed JSON-escaped (quotes, newlines as \n) in one summary message.
    const listed = (rec: ViewMessage[]) => rec.slice(2, 6).map((x) => JSON.stringify({ text: x.content, calls: x.toolCalls?.map((c) => c.input) }));
    await play(m, (rec) => [rec[1]!, { role: 'user', content: `summary: ${listed(rec).join(' ')}` }]);
    expect(m.stats.idsTotal).toBe(4); // README.md, setup.cfg, old_unrelated_helper(.py): what the previous request showed
    expect(m.stats.rereads).toBe(0);
    expect(m.stats.idsKept).toBe(m.stats.idsTotal);
  });

  it('the first real user message and harness notices are counted apart', async () => {
    const m = meter();
    await play(m, (rec) => rec.slice(1, 6));
    expect(m.stats.realUserTotal).toBe(3);
    expect(m.stats.realUserKept).toBe(3);
    expect(m.stats.noticeTotal).toBe(0);
  });
});
