// skein's own check before sending: a request that leaves the answer less
// than its floor in the known window is compacted harder first (each level
// deeper), never sent to be cut or refused; when even the system prompt, the
// tools and the first message leave no room, it goes out as it is once (the
// known window may be too low: the server decides), and a real refusal after
// that ends the turn with an error that says what to do.
import { describe, expect, it } from 'vitest';
import { MAX_ATTEMPTS, MAX_REFUSALS, OverflowRecovery, WouldOverflowError, type RecoveryHost } from '../../server/agent/overflow-recovery.js';
import { outputFloor, windowMargin, type SessionWindow } from '../../server/agent/window.js';
import { ContextOverflowError } from '../../server/llm/types.js';

const W = 4000;

/** A host whose view shrinks by `shrink` tokens per compaction level, down to the head. */
function host(start: number, head: number, shrink = 400, provenPrompt = 0) {
  let size = start;
  const levels: number[] = [];
  const window = {
    contextWindow: W,
    source: 'provider',
    provenPrompt,
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

/**
 * The agent's loop around one request, with an iteration counter instead of
 * a timeout: recovery resolves in microtasks, so an unbounded loop would
 * starve every timer (vitest's timeout included) and spin for ever. Returns
 * how the request ended and after how many recoveries.
 */
async function agentLoop(recovery: OverflowRecovery, estimate: () => number, send: (n: number) => ContextOverflowError | undefined): Promise<{ end: 'sent' | 'gave up'; recoveries: number; error?: string }> {
  for (let recoveries = 0; recoveries < 1000; recoveries++) {
    try {
      recovery.check(estimate(), 512);
      const refused = send(estimate());
      if (!refused) return { end: 'sent', recoveries };
      throw refused;
    } catch (err) {
      if (!(err instanceof ContextOverflowError)) throw err;
      try {
        await recovery.recover(err, { input: estimate(), maxTokens: 512 });
      } catch (giveUp) {
        return { end: 'gave up', recoveries, error: (giveUp as Error).message };
      }
    }
  }
  throw new Error('the recovery loop did not end within 1000 rounds: it would spin for ever');
}

describe('overflow recovery is bounded on every path', () => {
  /**
   * A host whose every guard is satisfied but that never gets anywhere: each
   * compaction shrinks the estimate by half a token, the check before sending
   * always finds it too long, the check after compacting always finds it fits.
   * Only the bound ends this.
   */
  function creeping() {
    let size = 3000;
    let calls = 0;
    const window = {
      contextWindow: W,
      source: 'provider',
      provenPrompt: 0,
      tooLong: () => ++calls % 2 === 1,
      learn: () => false,
      capOutput: () => {},
    } as unknown as SessionWindow;
    const h: RecoveryHost = { window, model: () => 'local-model', enterCompacting: () => {}, compact: async () => void (size -= 0.5), estimate: () => size, headEstimate: () => 1000 };
    return { h, size: () => size };
  }

  it("skein's own check (WouldOverflowError), where recover() returns before counting refusals: the request goes out within MAX_ATTEMPTS", async () => {
    const { h, size } = creeping();
    const run = await agentLoop(new OverflowRecovery(h), size, () => undefined);
    expect(run.end).toBe('sent');
    expect(run.recoveries).toBeLessThanOrEqual(MAX_ATTEMPTS + 1);
  });

  it('the same creeping recovery against a server that refuses: ends in an error within MAX_ATTEMPTS', async () => {
    const { h, size } = creeping();
    const run = await agentLoop(new OverflowRecovery(h), size, () => new ContextOverflowError('the request exceeds the available context size, try increasing it'));
    expect(run.end).toBe('gave up');
    // The round whose recovery gave up is the last one.
    expect(run.recoveries).toBeLessThanOrEqual(MAX_ATTEMPTS + 1);
  });

  it('a compaction that leaves the request exactly as large as the one refused is not a retry: it ends, with the refused size named', async () => {
    // Nothing can be folded; the server counted exactly what skein estimates, and it still said no.
    const { h } = host(3000, 1000, 0);
    const refusal = new ContextOverflowError('request (3000 tokens) exceeds the available context size (3000 tokens), try increasing it');
    const end = await new OverflowRecovery(h).recover(refusal, { input: 3000, maxTokens: 512 }).catch((e: Error) => e);
    expect(end).toBeInstanceOf(ContextOverflowError);
    expect((end as Error).message).toMatch(/cannot make it smaller than the 3,000 tokens the server refused/);
  });

  it('a server that refuses every request, whatever skein sends: at most MAX_REFUSALS refusals, then an error whose numbers agree', async () => {
    let sent = 0;
    const { h } = host(3000, 1000, 0);
    const refuse = () => (sent++, new ContextOverflowError('the request exceeds the available context size, try increasing it'));
    const run = await agentLoop(new OverflowRecovery(h), () => 3000, refuse);
    expect(run.end).toBe('gave up');
    expect(sent).toBeLessThanOrEqual(MAX_REFUSALS + 1);
    expect(run.recoveries).toBeLessThanOrEqual(MAX_ATTEMPTS);
  });

  it('a recovery that never gets strictly smaller than what the server counted ends with an error whose numbers agree', async () => {
    // The view cannot shrink (the head is all there is); the refusal names the server's count, and the estimate learns it.
    const { h } = host(2500, 2500, 0);
    let scale = 1;
    const recovery = new OverflowRecovery({ ...h, estimate: () => 2500 * scale, headEstimate: () => 1000, calibrate: (raw, prompt) => (scale = prompt / raw) });
    const refusal = new ContextOverflowError("This model's maximum context length is 4000 tokens. However, you requested 4100 tokens (3588 in the messages, 512 in the completion).");
    const end = await recovery.recover(refusal, { input: 2500, maxTokens: 512, raw: 2500 }).catch((e: Error) => e);
    expect(end).toBeInstanceOf(ContextOverflowError);
    // 3,588 + 500 for the answer passes 4,000: the sum the message names does pass the window.
    expect((end as Error).message).toMatch(/window of 4,000 tokens.*still leaves about 3,588 tokens, and the answer needs at least 500 more/);
  });
});

describe('a give-up names numbers that add up', () => {
  /** Every "about N tokens", "at least N more", "keeps N free" in a give-up, and the window it names. */
  function arithmetic(message: string): { window: number; parts: number[] } {
    const n = (s: string) => Number(s.replace(/,/g, ''));
    const window = n(/context window of ([\d,]+) tokens/.exec(message)![1]!);
    const parts = [...message.matchAll(/(?:about|at least|keeps) ([\d,]+)/g)].map((m) => n(m[1]!));
    return { window, parts };
  }

  it('when the head fits beside the answer but not beside the margin too: the margin is named, and the sum passes the window', async () => {
    // 3,460 + 500 = 3,960 fits 4,000; with the 56 kept for the estimate's error it does not.
    const head = W - outputFloor(W) - windowMargin(W) + 16;
    expect(head + outputFloor(W)).toBeLessThanOrEqual(W);
    const { h } = host(head, head, 0);
    const refusal = new ContextOverflowError('request (4100 tokens) exceeds the available context size (4000 tokens), try increasing it', { window: W, prompt: 4100 });
    const end = (await new OverflowRecovery(h).recover(refusal, { input: head, maxTokens: 512 }).catch((e: Error) => e)) as Error;
    expect(end).toBeInstanceOf(ContextOverflowError);
    const { window, parts } = arithmetic(end.message);
    expect(window).toBe(W);
    expect(parts).toEqual([head, outputFloor(W), windowMargin(W)]);
    expect(parts.reduce((a, b) => a + b, 0)).toBeGreaterThan(window);
    expect(end.message).toContain(`${(head + outputFloor(W) + windowMargin(W)).toLocaleString('en-US')} in all`);
  });

  it('when what is left after compacting passes the window with the answer alone: no margin needed to make the sum pass', async () => {
    const { h } = host(3700, 1000, 0);
    const refusal = new ContextOverflowError('request (4100 tokens) exceeds the available context size (4000 tokens), try increasing it', { window: W, prompt: 4100 });
    const end = (await new OverflowRecovery(h).recover(refusal, { input: 3700, maxTokens: 512 }).catch((e: Error) => e)) as Error;
    const { window, parts } = arithmetic(end.message);
    expect(parts).toEqual([3700, outputFloor(W)]);
    expect(parts.reduce((a, b) => a + b, 0)).toBeGreaterThan(window);
  });

  it('no give-up while compacting can still make it fit: a refusal of a view that folds below the window is retried, not ended', async () => {
    const { h } = host(3900, 1000, 800);
    const refusal = new ContextOverflowError('request (4100 tokens) exceeds the available context size (4000 tokens), try increasing it', { window: W, prompt: 4100 });
    await expect(new OverflowRecovery(h).recover(refusal, { input: 3900, maxTokens: 512 })).resolves.toBe('compacted');
  });
});

describe('a window assumed from a refusal that named no number', () => {
  it('is no reason to give up on a request no larger than a prompt the server already read in full: it is sent as it is', async () => {
    // The server read 3,650 tokens in full; skein assumes a 4,000-token window, in which 3,600 leaves no room for the answer's floor.
    const { h } = host(3700, 3600, 400, 3650);
    const recovery = new OverflowRecovery(h);
    const refusal = new ContextOverflowError('the request exceeds the available context size, try increasing it');
    await expect(recovery.recover(refusal, { input: 3700, maxTokens: 512 })).resolves.toBe('compacted');
    // Sent as it is: skein's own check does not stop it.
    expect(() => recovery.check(3600, 512)).not.toThrow();
  });

  it('while a request larger than anything read in full still ends in the error that says so', async () => {
    const { h } = host(3700, 3600, 400, 2000);
    const refusal = new ContextOverflowError('the request exceeds the available context size, try increasing it');
    await expect(new OverflowRecovery(h).recover(refusal, { input: 3700, maxTokens: 512 })).rejects.toThrow(/cannot fit/);
  });
});
