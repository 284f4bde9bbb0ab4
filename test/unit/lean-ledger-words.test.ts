// Issue 23: a user's words are never cut, not even by the emergency lean
// ledger (a fold under pressure, overflow recovery in a small window). A long
// multi-line message stays whole, byte for byte; when the bound leaves no
// room for it whole it becomes a pointer to its event, never a start that
// reads as the whole message.
import { describe, expect, it } from 'vitest';
import { buildLedger, leanerLedger, renderLedger } from '../../server/compaction/ledger.js';
import { deriveView } from '../../server/compaction/view.js';
import { LogBuilder } from '../helpers/events.js';

const LONG = Array.from({ length: 40 }, (_, i) => `line ${i}: keep the ${i % 2 ? 'tabs\tand' : 'spaces  and'} every word of this requirement, number ${i}`).join('\n');

function ledgerOf(...texts: string[]) {
  const log = new LogBuilder();
  log.user('the task');
  for (const t of texts) log.user(t);
  return buildLedger(deriveView(log.events).slice(1), 100_000);
}

describe('the lean ledger keeps user messages whole', () => {
  it('without a bound: a 3,000-character multi-line message is whole in the ledger and its text, line breaks and all', () => {
    expect(LONG.length).toBeGreaterThan(2500);
    const lean = leanerLedger(ledgerOf(LONG, 'short one'), 300);
    expect(lean.userMessages.map((u) => u.text)).toEqual([LONG, 'short one']);
    expect(lean.userMessages.some((u) => u.truncated || u.pointer)).toBe(false);
    const text = renderLedger(lean);
    for (const line of LONG.split('\n')) expect(text).toContain(line);
  });

  it('bound to a small window: what fits stays whole, a message too long for the room becomes a pointer to its event, none is cut', () => {
    const full = ledgerOf(LONG, 'the newest, short');
    const lean = leanerLedger(full, 400, true);
    expect(lean.userMessages.at(-1)).toEqual(full.userMessages.at(-1));
    const pointer = lean.userMessages.find((u) => u.seq === full.userMessages[0]!.seq)!;
    expect(pointer.pointer).toBe(true);
    expect(pointer.text).toBe(`[event ${pointer.seq}, long message of ${LONG.length.toLocaleString('en-US')} characters in 40 lines, not repeated here for room: search_history {"fromSeq": ${pointer.seq}, "toSeq": ${pointer.seq}, "query": "…"} finds any line of it]`);
    // No part of the message passes for the whole of it.
    const text = renderLedger(lean);
    expect(text).not.toContain('line 0: keep');
    expect(text).toContain(`- ${pointer.text}`);
    expect(lean.userMessages.some((u) => u.truncated)).toBe(false);
    // Folded again: the pointer is carried as it is.
    const again = leanerLedger(buildLedger([{ role: 'user', content: 'x', seq: 1, summaryOf: { summary: 's', ledger: lean, covers: [1, 2] } } as never], 100_000), 400, true);
    expect(again.userMessages.find((u) => u.seq === pointer.seq)).toEqual(pointer);
  });
});
