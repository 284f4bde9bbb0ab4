// Small lookups the timeline model shares with the timeline element.
import { WINDOW_SOURCES, type WindowSource } from '../shared/wire/constants.js';

/** Binary search in rows sorted by seq: the row with this seq, or the first after it. */
export function rowIndex(rows: readonly { seq: number }[], seq: number): number {
  let lo = 0;
  let hi = rows.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (rows[mid]!.seq < seq) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** A limits event's source, read loosely (older servers may send others). */
export function isWindowSource(v: unknown): v is WindowSource {
  return (WINDOW_SOURCES as readonly unknown[]).includes(v);
}
