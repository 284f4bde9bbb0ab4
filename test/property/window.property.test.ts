// For random real windows (2k..1M) and random mismatches between what skein is
// told and what the server has (told more, told less, told the truth; refusing
// servers of every wording, or one that cuts the prompt), replaying each of the
// recorded trajectories never ends a turn in an overflow error and never keeps
// an answer read from a prompt that lost the first user message, unless even
// the system prompt, the tools, the first user message and the answer's floor
// cannot fit the real window (then the error names the window). One random
// case per trajectory (each a whole replay), so every trajectory is covered.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { replayMismatch } from '../bench/mismatch.js';
import type { CompatFlavour } from '../fakes/window.js';
import { trajectoryFiles } from '../helpers/trajectories.js';

const FLAVOURS: CompatFlavour[] = ['openai', 'vllm', 'llamacpp', 'lmstudio', 'openrouter', 'nonumber', 'ollama'];
const SEED = Number(process.env.SKEIN_PROPERTY_SEED ?? 11);

describe('mismatched windows', () => {
  const files = trajectoryFiles();
  it('covers every recorded trajectory', () => {
    expect(files).toHaveLength(18);
  });

  for (const [i, file] of files.entries()) {
    it(`${file.replace(/\.jsonl$/, '')}: no turn ends in an overflow error when the first message fits the real window`, async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 2_000, max: 1_000_000 }),
          // told / real: from a quarter of the truth to 100 times it
          fc.double({ min: 0.25, max: 100, noNaN: true }),
          fc.constantFrom(...FLAVOURS),
          async (real, mismatch, flavour) => {
            const told = Math.min(10_000_000, Math.max(1000, Math.round(real * mismatch)));
            const run = await replayMismatch(file, real, told, flavour);
            const what = JSON.stringify(run);
            if (run.fits) {
              expect(run.userOverflows, what).toBe(0);
              expect(run.stalls, what).toBe(0);
              expect(run.finished, what).toBe(true);
              expect(run.lostFirstUser, what).toBe(0);
            } else expect(run.stalls, what).toBeLessThanOrEqual(10);
          },
        ),
        { numRuns: 1, seed: SEED + i, endOnFailure: true },
      );
    }, 300_000);
  }
});
