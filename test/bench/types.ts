// What every benchmark section returns to the runner (test/bench/run.ts).

export interface BenchRow {
  /** Section, e.g. "fan-out". */
  bench: string;
  /** What is measured, e.g. "delivery latency p99, skein / bare ws". */
  measure: string;
  /** The figure as printed, e.g. "1.8 ms / 1.2 ms (1.5x)". */
  value: string;
  /** The goal from the issue, if any, e.g. "p99 within 2x of bare ws". */
  goal?: string;
  /** Whether the goal is met; undefined when there is no goal. */
  met?: boolean;
}

export interface SectionResult {
  rows: BenchRow[];
  /** Everything measured, for test/bench/results/*.json. */
  details: unknown;
}

export interface BenchSection {
  name: string;
  run(): Promise<SectionResult>;
}

export function median(values: readonly number[]): number {
  return percentile(values, 50);
}

/** Nearest-rank percentile (p in 0..100). */
export function percentile(values: readonly number[], p: number): number {
  if (!values.length) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

export function fmt(n: number, digits = 2): string {
  if (Number.isNaN(n)) return 'n/a';
  if (!Number.isFinite(n)) return String(n);
  return Math.abs(n) >= 100 ? Math.round(n).toLocaleString('en-US') : n.toFixed(digits);
}
