// The windowed list's geometry: where each row starts, from measured or
// estimated heights, and which row holds a given height (a binary search, so
// a session of thousands of rows finds its viewport in a few steps).

/** offsets[i] is where row i starts; offsets[rows.length] is the total height. */
export function rowOffsets<R>(rows: readonly R[], heightOf: (row: R) => number): Float64Array<ArrayBuffer> {
  const offsets = new Float64Array(rows.length + 1);
  for (let i = 0; i < rows.length; i++) offsets[i + 1] = offsets[i]! + heightOf(rows[i]!);
  return offsets;
}

/** The first row that ends below y (rows.length when y is past the end). */
export function rowAt(offsets: Float64Array, y: number): number {
  let lo = 0;
  let hi = offsets.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (offsets[mid + 1]! <= y) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
