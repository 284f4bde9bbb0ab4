// Shares that say n/a when there is nothing to measure, and the paired
// bootstrap that decides whether one policy is cheaper than another.

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
}

/**
 * Paired bootstrap of sum(a) - sum(b) over sessions (a[i] and b[i] are the
 * same session): sessions drawn with replacement, the 2.5th and 97.5th
 * percentiles of the resampled sums.
 */
export function bootstrapDiff(a: readonly number[], b: readonly number[], iterations = 2000, seed = 24): Interval {
  if (a.length !== b.length || a.length === 0) throw new Error('bootstrapDiff needs two paired, non-empty lists');
  const d = a.map((x, i) => x - b[i]!);
  const random = mulberry32(seed);
  const sums: number[] = [];
  for (let k = 0; k < iterations; k++) {
    let s = 0;
    for (let i = 0; i < d.length; i++) s += d[Math.floor(random() * d.length)]!;
    sums.push(s);
  }
  sums.sort((x, y) => x - y);
  const at = (p: number) => sums[Math.min(sums.length - 1, Math.max(0, Math.round(p * (sums.length - 1))))]!;
  return { diff: d.reduce((s, x) => s + x, 0), lo: at(0.025), hi: at(0.975) };
}

/** "cheaper" / "dearer" only where the interval excludes 0; otherwise a tie. */
export function verdict(i: Interval): 'cheaper' | 'dearer' | 'tie' {
  return i.hi < 0 ? 'cheaper' : i.lo > 0 ? 'dearer' : 'tie';
}
