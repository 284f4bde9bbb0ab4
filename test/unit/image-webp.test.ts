// WebP's three header variants (server/images/image-info.ts): lossy (VP8),
// lossless (VP8L, in image-rules.test.ts) and extended (VP8X), each read with
// its own layout, and every corrupt variant refused rather than guessed at.
import { describe, expect, it } from 'vitest';
import { imageInfo } from '../../server/images/image-info.js';
import { webpExtended, webpLossy } from '../helpers/images.js';

const webp = (width: number, height: number) => ({ mediaType: 'image/webp', width, height });

describe('WebP headers', () => {
  it('lossy (VP8): the 14-bit sizes, without the scale bits above them', () => {
    expect(imageInfo(webpLossy(320, 200))).toEqual(webp(320, 200));
    expect(imageInfo(webpLossy(0x3fff, 1))).toEqual(webp(0x3fff, 1));
    expect(imageInfo(webpLossy(64, 48, 3))).toEqual(webp(64, 48));
  });

  it('extended (VP8X): 24-bit sizes, each stored minus one', () => {
    expect(imageInfo(webpExtended(1, 1))).toEqual(webp(1, 1));
    expect(imageInfo(webpExtended(640, 480))).toEqual(webp(640, 480));
    // Beyond 16 bits: the third byte counts.
    expect(imageInfo(webpExtended(70_000, 0x1000000))).toEqual(webp(70_000, 0x1000000));
  });

  const corrupt: [string, Buffer][] = [
    ['VP8 without the key frame start code', (() => { const b = webpLossy(10, 10); b[23] = 0; return b; })()],
    ['VP8 with a start code one byte off', (() => { const b = webpLossy(10, 10); b[25] = 0x2b; return b; })()],
    ['VP8 of width 0', webpLossy(0, 10)],
    ['VP8 of height 0 (only scale bits)', webpLossy(10, 0, 2)],
    ['cut short (29 bytes)', webpLossy(10, 10).subarray(0, 29)],
    ['an unknown chunk (VP8Y)', (() => { const b = webpExtended(10, 10); b.write('VP8Y', 12, 'latin1'); return b; })()],
    ['not RIFF', (() => { const b = webpExtended(10, 10); b.write('RIFX', 0, 'latin1'); return b; })()],
    ['RIFF of another form (AVI )', (() => { const b = webpLossy(10, 10); b.write('AVI ', 8, 'latin1'); return b; })()],
  ];
  it.each(corrupt)('refused: %s', (_, bytes) => {
    expect(imageInfo(bytes)).toBeUndefined();
  });
});
