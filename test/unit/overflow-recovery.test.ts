// skein's own check before sending: a request that leaves the answer less
// than its floor in the known window is compacted harder first (each level
// deeper), never sent to be cut or refused; when even the system prompt, the
// tools and the first message leave no room, it goes out as it is once (the
// known window may be too low: the server decides), and a real refusal after
// that ends the turn with an error that says what to do.
import { describe, expect, it } from 'vitest';
import { OverflowRecovery, WouldOverflowError, type RecoveryHost } from '../../server/agent/overflow-recovery.js';
import { outputFloor, windowMargin, type SessionWindow } from '../../server/agent/window.js';
import { ContextOverflowError } from '../../server/llm/types.js';

const W = 4000;

/** A host whose view shrinks by `shrink` tokens per compaction level, down to the head. */
function host(start: number, head: number, shrink = 400) {
  let size = start;
  const levels: number[] = [];
  const window = {
    contextWindow: W,
    source: 'provider',
    tooLong: (estimate: number) => estimate + outputFloor(W) + windowMargin(W) > W,
    learn: () => false,
    capOutput: () => {},
  } as unknown as SessionWindow;
  const h: RecoveryHost = {
    window,
    model: () => 'local-model',
    enterCompacting: () => {},
    compact: async (level) => {
      levels.push(level);
      size = Math.max(head, size - shrink * (level + 1));
    },
    estimate: () => size,
    headEstimate: () => head,
  };
  return { h, levels, size: () => size };
}

/** What the agent does: check, and on a WouldOverflowError recover, until the request may go out. */
async function untilSendable(recovery: OverflowRecovery, size: () => number): Promise<number> {
  for (let rounds = 0; rounds < 10; rounds++) {
    try {
      recovery.check(size(), 512);
      return rounds;
    } catch (err) {
      expect(err).toBeInstanceOf(WouldOverflowError);
      expect(await recovery.recover(err as ContextOverflowError, { input: size(), maxTokens: 512 })).toBe('compacted');
    }
  }
  throw new Error('never sendable');
}

describe('the check before sending', () => {
  it('a request that fits goes out untouched', () => {
    const { h, levels } = host(3000, 2000);
    expect(() => new OverflowRecovery(h).check(3000, 512)).not.toThrow();
    expect(levels).toEqual([]);
  });

  it('with SKEIN_COMPACT_PREFLIGHT off the request goes out as it is', () => {
    const { h, levels } = host(3900, 2000);
    expect(() => new OverflowRecovery({ ...h, preflight: () => false }).check(3900, 512)).not.toThrow();
    expect(() => new OverflowRecovery({ ...h, preflight: () => true }).check(3900, 512)).toThrow(WouldOverflowError);
    expect(levels).toEqual([]);
  });

  it('a request too long for the known window is compacted, harder each time, until it fits', async () => {
    const { h, levels, size } = host(3900, 2000, 150);
    const recovery = new OverflowRecovery(h);
    const rounds = await untilSendable(recovery, size);
    expect(rounds).toBeGreaterThanOrEqual(1);
    expect(size() + outputFloor(W) + windowMargin(W)).toBeLessThanOrEqual(W);
    // Each round starts a level deeper than the last.
    expect(levels[0]).toBe(0);
    expect(Math.max(...levels)).toBeGreaterThan(0);
  });

  it('when even the head leaves no room it goes out as it is, once; a real refusal then ends the turn with an error that says what to do', async () => {
    const { h, size } = host(3700, 3600);
    const recovery = new OverflowRecovery(h);
    expect(await untilSendable(recovery, size)).toBe(1);
    // Sent as it is: the server refuses it.
    const refusal = new ContextOverflowError('request (3700 tokens) exceeds the available context size (4000 tokens), try increasing it');
    await expect(recovery.recover(refusal, { input: 3700, maxTokens: 512 })).rejects.toThrow(/cannot fit local-model's context window of 4,000 tokens.*first message alone take about 3,600 tokens, and the answer needs at least 500 more/);
    // An answer resets it: the next too-long request is compacted first again.
    recovery.answered();
    expect(() => recovery.check(3700, 512)).toThrow(WouldOverflowError);
  });
});
