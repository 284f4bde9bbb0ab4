// For random real windows (2k..1M), random mismatches between what skein is
// told and what the server has (told more, told less, told the truth), every
// server family's error dialect (refusing in its own shape, or cutting the
// prompt like Ollama, or answering nothing like LMDeploy) and a tokenizer
// counting 0.5x to 2x skein's estimate (leaning by kind of text), replaying
// each of the recorded trajectories: every turn ends in an answer, or, only
// when even the system prompt, the tools, the first user message and the
// answer's floor cannot fit the real window (counted by the server), in the
// error that says so; at most one refusal after the window is known; no
// false "silently cutting"; no answer kept from a prompt that lost the first
// user message; at most one "nothing to fold" compaction per turn. One random
// case per trajectory (each a whole replay), so every trajectory is covered.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { replayMismatch } from '../bench/mismatch.js';
import { FLAVOURS, TRUNCATING } from '../fakes/dialects.js';
import { trajectoryFiles } from '../helpers/trajectories.js';

const SEED = Number(process.env.SKEIN_PROPERTY_SEED ?? 11);

describe('mismatched windows, dialects and tokenizers', () => {
  const files = trajectoryFiles();
  it('covers every recorded trajectory', () => {
    expect(files).toHaveLength(18);
  });

  for (const [i, file] of files.entries()) {
    it(`${file.replace(/\.jsonl$/, '')}: every turn ends in an answer or in a true error`, async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 2_000, max: 1_000_000 }),
          // told / real: from a quarter of the truth to 100 times it
          fc.double({ min: 0.25, max: 100, noNaN: true }),
          fc.constantFrom(...FLAVOURS),
          // the server's tokens per skein token (its tokenizer leans by kind of text around this)
          fc.double({ min: 0.5, max: 2, noNaN: true }),
          async (real, mismatch, flavour, ratio) => {
            const told = Math.min(10_000_000, Math.max(1000, Math.round(real * mismatch)));
            const run = await replayMismatch(file, real, told, flavour, ratio);
            const what = JSON.stringify(run);
            expect(run.falseCuts, what).toBe(0);
            expect(run.nothingToFoldPerTurn, what).toBeLessThanOrEqual(1);
            if (run.fits) {
              expect(run.userOverflows, what).toBe(0);
              expect(run.stalls, what).toBe(0);
              expect(run.finished, what).toBe(true);
              expect(run.lostFirstUser, what).toBe(0);
              if (!TRUNCATING.has(flavour)) expect(run.refusalsAfterKnown, what).toBeLessThanOrEqual(1);
            } else expect(run.stalls, what).toBeLessThanOrEqual(10);
          },
        ),
        { numRuns: 1, seed: SEED + i, endOnFailure: true },
      );
    }, 300_000);
  }
});
