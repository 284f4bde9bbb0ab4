// Strict recall (test/bench/recall/evidence.ts, meter.ts): a re-read is waived
// only when the lines a later step needs are in view. A name listed in a
// cleared result's placeholder or in a ledger, without its lines, is a hint:
// charged as a targeted re-read (cheaper than reading the whole output). The
// lenient rule (a name in view is enough) is still measured beside it.
import { describe, expect, it } from 'vitest';
import type { ViewMessage } from '../../../shared/protocol.js';
import { ReplayProvider } from '../../../server/llm/replay.js';
import type { LlmRequest } from '../../../server/llm/types.js';
import { linesOf, strictWaiver, targetedTokens } from '../../bench/recall/evidence.js';
import { normalise } from '../../bench/recall/identifiers.js';
import { MeteredProvider } from '../../bench/recall/meter.js';

const NOISE = Array.from({ length: 40 }, (_, i) => `  frame ${i}: lib/site/runner_${i}.py in dispatch_step_${i}`).join('\n');
const TRACEBACK = `Traceback (most recent call last):\n${NOISE}\n  File "src/alpha_module.py", line 41, in parse_header\nValueError: zeta_flag_missing`;

function recording(): ViewMessage[] {
  return [
    { role: 'system', content: 'recorded agent prompt' },
    { role: 'user', content: 'Fix the crash.' },
    { role: 'assistant', content: 'List files.', toolCalls: [{ id: 'c1', name: 'bash', input: { command: 'ls' } }] },
    { role: 'tool', content: 'README.md', toolCallId: 'c1' },
    { role: 'assistant', content: 'Run it.', toolCalls: [{ id: 'c2', name: 'bash', input: { command: 'python run.py' } }] },
    { role: 'tool', content: TRACEBACK, toolCallId: 'c2' },
    // The step that needs the traceback: it uses the error code and the function.
    { role: 'assistant', content: 'The error is zeta_flag_missing in parse_header.', toolCalls: [{ id: 'c3', name: 'bash', input: { command: 'echo fix' } }] },
    { role: 'tool', content: 'ok', toolCallId: 'c3' },
  ];
}

const price = (u: { input: number; cacheRead: number; cacheWrite: number; output: number }) => (3 * u.input + 0.3 * u.cacheRead + 3.75 * u.cacheWrite + 15 * u.output) / 1e6;
const request = (messages: ViewMessage[]): LlmRequest => ({ system: 'skein', messages, tools: [], maxOutputTokens: 1000, purpose: 'turn' });
const signal = new AbortController().signal;

async function play(view3: (rec: ViewMessage[]) => ViewMessage[]): Promise<MeteredProvider> {
  const rec = recording();
  const m = new MeteredProvider(new ReplayProvider({ contextWindow: 200_000, maxOutputTokens: 8192 }, rec), rec, { price, window: 200_000 });
  await m.complete(request(rec.slice(1, 2)), signal);
  await m.complete(request(rec.slice(1, 4)), signal);
  await m.complete(request(view3(rec)), signal);
  return m;
}

/** skein's placeholder shape: the output cleared, its names listed. */
const namesPlaceholder = (): ViewMessage => ({
  role: 'tool',
  toolCallId: 'c2',
  content: '[tool result cleared to save context (event 6): bash returned 2,000 characters. Names in it: src/alpha_module.py, parse_header, ValueError, zeta_flag_missing.]',
});

describe('strict recall: a name is a hint, the lines are the evidence', () => {
  it('a name in a placeholder without its lines is not waived: a targeted re-read, cheaper than a whole one (lenient waives it)', async () => {
    const m = await play((rec) => [...rec.slice(1, 5), namesPlaceholder()]);
    // Lenient: the names are in view, nothing to pay.
    expect(m.stats.rereads).toBe(0);
    expect(m.stats.rereadUsd).toBe(0);
    // Strict: one extra request, a targeted one, for the names only.
    expect(m.stats.strict.rereads).toBe(1);
    expect(m.stats.strict.targeted).toBe(1);
    expect(m.stats.strict.targetedNames).toBe(2);
    expect(m.stats.strict.rereadMessages).toBe(0);
    expect(m.stats.strict.rereadUsd).toBeGreaterThan(0);
    const whole = await play((rec) => [...rec.slice(1, 5), { role: 'tool', toolCallId: 'c2', content: '[tool result cleared]' }]);
    expect(whole.stats.strict.rereadMessages).toBe(1);
    expect(m.stats.strict.rereadTokens).toBeLessThan(whole.stats.strict.rereadTokens);
    expect(m.stats.strict.rereadUsd).toBeLessThan(whole.stats.strict.rereadUsd);
  });

  it('a name in a ledger (a summary listing names) without its lines is a targeted re-read', async () => {
    const m = await play((rec) => [rec[1]!, { role: 'user', content: 'Summary of the work so far.\n\nNames: parse_header, zeta_flag_missing, src/alpha_module.py' }]);
    expect(m.stats.rereads).toBe(0);
    expect(m.stats.strict.rereads).toBe(1);
    expect(m.stats.strict.targeted).toBe(1);
  });

  it('the lines in view waive the re-read, under both rules', async () => {
    const kept = await play((rec) => rec.slice(1, 6));
    expect(kept.stats.strict.rereads).toBe(0);
    expect(kept.stats.rereads).toBe(0);
    // Only the evidence lines kept (the error and its frame), the noise cleared: still waived.
    const lines = await play((rec) => [...rec.slice(1, 5), { role: 'tool', toolCallId: 'c2', content: '[cleared; the lines that matter:]\n  File "src/alpha_module.py", line 41, in parse_header\nValueError: zeta_flag_missing' }]);
    expect(lines.stats.strict.rereads).toBe(0);
  });

  it('strictWaiver and targetedTokens on one message', () => {
    const lines = linesOf(TRACEBACK);
    expect(strictWaiver(normalise('ValueError: zeta_flag_missing'), lines, 'zeta_flag_missing')).toBe('in view');
    expect(strictWaiver(normalise('names: zeta_flag_missing'), lines, 'zeta_flag_missing')).toBe('hint');
    expect(strictWaiver(normalise('nothing here'), lines, 'zeta_flag_missing')).toBe('absent');
    expect(targetedTokens(lines, 'zeta_flag_missing')).toBeLessThan(targetedTokens(lines, 'nowhere_at_all'));
  });
});
