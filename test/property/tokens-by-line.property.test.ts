// A long text is counted line by line, each line remembered (llm/tokens.ts):
// the sum must be exactly what the tokenizer gives for the whole text, for
// any mix of line breaks (\n, \r\n, runs of them), spaces and tabs before
// and after them, slashes, punctuation, digits, letters of other scripts and
// emoji. The whole count comes from gpt-tokenizer itself, not from skein.
import fc from 'fast-check';
import { countTokens } from 'gpt-tokenizer';
import { describe, expect, it } from 'vitest';
import { tokensOf } from '../../server/llm/tokens.js';

/** Pieces that meet at line breaks in every way the tokenizer's pre-split treats differently. */
const atoms = [
  '\n', '\n', '\n', '\r\n', '\n\n', ' \n', '\t\n', '\n ', '\n\t', '\n  ', ' ', ' ', '  ', '\t',
  '/', '//', './', '.', ',', '-', '- ', '*', '#', '`', '```', '"', "'s", "'", ':', '(', ')', '{', '}', '=',
  'a', 'word', 'Word', 'WORD', 'the', 'quick', 'fox', 'x1', '12', '123', '1234', 'é', 'naïve', 'Ζεύς', 'слово', '漢字', 'ありがとう', '😀', '👍🏽', '\u00a0', '\u2003',
];

/** A text of at least 1,024 characters (no unbroken run near 200 characters, which counting breaks up on purpose). */
const longText = (min: number) =>
  fc.array(fc.constantFrom(...atoms), { minLength: Math.ceil(min / 3), maxLength: min }).map((parts) => parts.join('')).filter((t) => t.length >= 1024 && !/\S{150}/.test(t));

describe('counting a long text line by line', () => {
  it('gives exactly the count of the whole text', () => {
    fc.assert(
      fc.property(longText(3000), (text) => {
        expect(tokensOf(text)).toBe(countTokens(text));
      }),
      { numRuns: 300 },
    );
  });

  it('stays exact when the text is rebuilt around lines counted before (a new header, lines added and removed)', () => {
    fc.assert(
      fc.property(longText(2000), fc.array(fc.constantFrom(...atoms), { maxLength: 40 }), fc.nat(), (text, inserted, at) => {
        expect(tokensOf(text)).toBe(countTokens(text));
        const cut = at % text.length;
        const rebuilt = `Events 5-${at} were folded\n${text.slice(0, cut)}${inserted.join('')}${text.slice(cut)}`;
        expect(tokensOf(rebuilt)).toBe(countTokens(rebuilt));
      }),
      { numRuns: 200 },
    );
  });
});
