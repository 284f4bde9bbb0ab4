// Shares that say n/a when there is nothing to measure, and the paired
// bootstrap that decides whether one policy is cheaper than another, corrected
// for the number of comparisons a table makes (Holm).

/** kept / total as a share; undefined (n/a) when nothing was measured, never 100%. */
export function shareOf(kept: number, total: number): number | undefined {
  return total > 0 ? kept / total : undefined;
}

export function shareText(kept: number, total: number): string {
  const s = shareOf(kept, total);
  return s === undefined ? 'n/a' : `${(100 * s).toFixed(1)}% (${kept}/${total})`;
}

/** A small seeded generator: the interval is the same from run to run. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Interval {
  /** Sum over sessions of a - b. */
  diff: number;
  lo: number;
  hi: number;
  /** The confidence of [lo, hi] (0.95 uncorrected; Holm's step level once corrected). */
  level: number;
  /** Two-sided bootstrap p-value of "no difference": twice the share of resampled sums on the far side of 0. */
  p: number;
  /** Sessions paired (what is resampled). */
  n: number;
  /** Set by holmCorrect: the family's size, the adjusted p, and whether the difference holds across the family. */
  holm?: { m: number; adjustedP: number; rejected: boolean };
}

/** Resamples per interval: enough for a p-value below Holm's smallest step in a table of a few hundred comparisons. */
export const BOOTSTRAP_ITERATIONS = 20_000;
export const ALPHA = 0.05;

/**
 * Paired bootstrap of sum(a) - sum(b) over sessions (a[i] and b[i] are the
 * same session): sessions drawn with replacement, the percentiles of the
 * resampled sums at `level` (0.95: the 2.5th and 97.5th), and the two-sided
 * p-value the same resamples give. Seeded: the same lists give the same interval.
 */
export function bootstrapDiff(a: readonly number[], b: readonly number[], { level = 1 - ALPHA, iterations = BOOTSTRAP_ITERATIONS, seed = 24 } = {}): Interval {
  if (a.length !== b.length || a.length === 0) throw new Error('bootstrapDiff needs two paired, non-empty lists');
  const d = a.map((x, i) => x - b[i]!);
  const random = mulberry32(seed);
  const sums = new Float64Array(iterations);
  let atOrBelow = 0;
  let atOrAbove = 0;
  for (let k = 0; k < iterations; k++) {
    let s = 0;
    for (let i = 0; i < d.length; i++) s += d[Math.floor(random() * d.length)]!;
    // Rounded: sums of equal costs drawn in another order must still be exactly 0.
    s = Math.round(s * 1e9) / 1e9;
    sums[k] = s;
    if (s <= 0) atOrBelow++;
    if (s >= 0) atOrAbove++;
  }
  sums.sort();
  const at = (q: number) => sums[Math.min(sums.length - 1, Math.max(0, Math.round(q * (sums.length - 1))))]!;
  const tail = (1 - level) / 2;
  const p = Math.min(1, (2 * (Math.min(atOrBelow, atOrAbove) + 1)) / (iterations + 1));
  return { diff: d.reduce((s, x) => s + x, 0), lo: at(tail), hi: at(1 - tail), level, p, n: d.length };
}

/**
 * Holm's step-down correction (Holm 1979): p-values sorted ascending, the k-th
 * (from 1) multiplied by m - k + 1, each adjusted value at least the one before,
 * capped at 1. Returned in the order given.
 */
export function holm(p: readonly number[]): number[] {
  const m = p.length;
  const order = p.map((v, i) => [v, i] as const).sort((x, y) => x[0] - y[0]);
  const out = new Array<number>(m);
  let running = 0;
  order.forEach(([v, i], k) => {
    running = Math.max(running, Math.min(1, (m - k) * v));
    out[i] = running;
  });
  return out;
}

/**
 * Corrects a family of paired comparisons for their number (Holm): each gets
 * its adjusted p, whether it holds across the family (adjusted p <= alpha),
 * and its interval again at the level of its Holm step (1 - alpha / (m - rank + 1)).
 */
export function holmCorrect(family: readonly { a: readonly number[]; b: readonly number[] }[], alpha = ALPHA): Interval[] {
  const raw = family.map((f) => bootstrapDiff(f.a, f.b));
  const adjusted = holm(raw.map((i) => i.p));
  const rank = raw.map((_, i) => i).sort((x, y) => raw[x]!.p - raw[y]!.p);
  const out = new Array<Interval>(family.length);
  rank.forEach((i, k) => {
    const step = 1 - alpha / (family.length - k);
    out[i] = { ...bootstrapDiff(family[i]!.a, family[i]!.b, { level: step }), holm: { m: family.length, adjustedP: adjusted[i]!, rejected: adjusted[i]! <= alpha } };
  });
  return out;
}

/** "cheaper" / "dearer" only where the difference holds (Holm's adjusted p once corrected; the interval excluding 0 before); otherwise a tie. */
export function verdict(i: Interval): 'cheaper' | 'dearer' | 'tie' {
  if (i.holm) return !i.holm.rejected || i.diff === 0 ? 'tie' : i.diff < 0 ? 'cheaper' : 'dearer';
  return i.hi < 0 ? 'cheaper' : i.lo > 0 ? 'dearer' : 'tie';
}
