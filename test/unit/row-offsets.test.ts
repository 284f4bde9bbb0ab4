// The timeline's row geometry: where rows start and which row holds a height.
import { describe, expect, it } from 'vitest';
import { rowAt, rowOffsets } from '../../webui/row-offsets.js';

describe('row offsets', () => {
  const offsets = rowOffsets([10, 20, 30], (h) => h);

  it('start each row where the previous ends, the last entry the total', () => {
    expect([...offsets]).toEqual([0, 10, 30, 60]);
  });

  it('find the first row that ends below a height, past the end the row count', () => {
    expect([-5, 0, 9.5, 10, 29, 30, 59, 60, 1000].map((y) => rowAt(offsets, y))).toEqual([0, 0, 0, 1, 1, 2, 2, 3, 3]);
    expect(rowAt(rowOffsets([], () => 1), 0)).toBe(0);
  });
});
