// Which messages the timeline collapses: more than 2,000 characters or 20
// lines (surely taller than the collapsed height at any width); nothing less.
import { describe, expect, it } from 'vitest';
import { isLong } from '../../webui/long-text.js';

describe('long messages', () => {
  it('are those over 2,000 characters or 20 lines', () => {
    expect(isLong('')).toBe(false);
    expect(isLong('x'.repeat(2000))).toBe(false);
    expect(isLong('x'.repeat(2001))).toBe(true);
    expect(isLong(Array(20).fill('a').join('\n'))).toBe(false);
    expect(isLong(Array(21).fill('a').join('\n'))).toBe(true);
    expect(isLong('\n'.repeat(30))).toBe(true);
  });
});
