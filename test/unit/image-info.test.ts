// What an image's header says (server/images/image-info.ts), walked over every
// variant that picks a branch: PNG, GIF 87a/89a, JPEG with fill bytes, skipped
// segments and each start-of-frame, WebP lossy (`VP8 `), lossless (`VP8L`) and
// extended (`VP8X`); each one a byte short, with a wrong signature byte or a
// zero size, is refused.
import { describe, expect, it } from 'vitest';
import { imageInfo } from '../../server/images/image-info.js';

function pngHeader(width: number, height: number, length = 24): Buffer {
  const b = Buffer.alloc(24);
  b.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
  b.write('IHDR', 12, 'latin1');
  b.writeUInt32BE(width, 16);
  b.writeUInt32BE(height, 20);
  return b.subarray(0, length);
}

function gifHeader(version: string, width: number, height: number, length = 10): Buffer {
  const b = Buffer.alloc(Math.max(length, 10));
  b.write(version, 0, 'latin1');
  b.writeUInt16LE(width, 6);
  b.writeUInt16LE(height, 8);
  return b.subarray(0, length);
}

/** SOI, then the segments given, then an end of image. */
function jpegOf(...segments: number[][]): Buffer {
  return Buffer.from([0xff, 0xd8, ...segments.flat(), 0xff, 0xd9]);
}
/** A start-of-frame segment (marker `sof`) of `height` x `width`. */
const frame = (sof: number, height: number, width: number) => [0xff, sof, 0x00, 0x11, 0x08, height >> 8, height & 0xff, width >> 8, width & 0xff, 0x03];
/** An APP0 segment of `length` (its two length bytes included). */
const app0 = (length: number) => [0xff, 0xe0, length >> 8, length & 0xff, ...Array<number>(length - 2).fill(0)];

function webpOf(chunk: string, fill: (b: Buffer) => void, length = 30): Buffer {
  const b = Buffer.alloc(Math.max(length, 30));
  b.write('RIFF', 0, 'latin1');
  b.write('WEBP', 8, 'latin1');
  b.write(chunk, 12, 'latin1');
  fill(b);
  return b.subarray(0, length);
}
/** Lossy: the key frame's start code 9d 01 2a, then 14-bit sizes with 2 scaling bits on top. */
const lossy = (width: number, height: number, code = [0x9d, 0x01, 0x2a]) =>
  webpOf('VP8 ', (b) => {
    b.set(code, 23);
    b.writeUInt16LE(width, 26);
    b.writeUInt16LE(height, 28);
  });
/** Lossless: signature 0x2f, then width-1 and height-1 in 14 bits each. */
const lossless = (width: number, height: number, signature = 0x2f) =>
  webpOf('VP8L', (b) => {
    b[20] = signature;
    b.writeUInt32LE(((width - 1) | ((height - 1) << 14)) >>> 0, 21);
  });
/** Extended: canvas width-1 and height-1 in 24 bits each. */
const extended = (width: number, height: number) =>
  webpOf('VP8X', (b) => {
    b.writeUIntLE(width - 1, 24, 3);
    b.writeUIntLE(height - 1, 27, 3);
  });

describe('imageInfo: PNG', () => {
  it('reads the size from IHDR, from exactly 24 bytes on', () => {
    expect(imageInfo(pngHeader(640, 480))).toEqual({ mediaType: 'image/png', width: 640, height: 480 });
    expect(imageInfo(pngHeader(70_000, 3))).toEqual({ mediaType: 'image/png', width: 70_000, height: 3 });
    expect(imageInfo(pngHeader(640, 480, 23))).toBeUndefined();
  });

  it('refuses a wrong byte in either half of the signature, or another first chunk', () => {
    for (const at of [0, 3, 4, 7]) {
      const b = Buffer.from(pngHeader(10, 10));
      b[at] = b[at]! ^ 0x01;
      expect(imageInfo(b), `byte ${at}`).toBeUndefined();
    }
    const b = Buffer.from(pngHeader(10, 10));
    b.write('IDAT', 12, 'latin1');
    expect(imageInfo(b)).toBeUndefined();
  });

  it('refuses a zero width or height', () => {
    expect(imageInfo(pngHeader(0, 10))).toBeUndefined();
    expect(imageInfo(pngHeader(10, 0))).toBeUndefined();
    expect(imageInfo(pngHeader(1, 1))).toEqual({ mediaType: 'image/png', width: 1, height: 1 });
  });
});

describe('imageInfo: GIF', () => {
  it('reads 87a and 89a, little-endian, from exactly 10 bytes on', () => {
    expect(imageInfo(gifHeader('GIF87a', 300, 2))).toEqual({ mediaType: 'image/gif', width: 300, height: 2 });
    expect(imageInfo(gifHeader('GIF89a', 2, 300))).toEqual({ mediaType: 'image/gif', width: 2, height: 300 });
    expect(imageInfo(gifHeader('GIF89a', 2, 300, 9))).toBeUndefined();
  });

  it('refuses another version or signature', () => {
    for (const version of ['GIF88a', 'GIF89b', 'GIF80a', 'gif89a', 'JIF89a']) expect(imageInfo(gifHeader(version, 5, 5)), version).toBeUndefined();
  });
});

describe('imageInfo: JPEG', () => {
  it('reads the start-of-frame right after the start of image (height first, then width)', () => {
    expect(imageInfo(jpegOf(frame(0xc0, 30, 40)))).toEqual({ mediaType: 'image/jpeg', width: 40, height: 30 });
    expect(imageInfo(jpegOf(frame(0xc2, 0x0102, 0x0304)))).toEqual({ mediaType: 'image/jpeg', width: 0x0304, height: 0x0102 });
  });

  it('skips segments by their length and fill bytes before a marker', () => {
    expect(imageInfo(jpegOf(app0(16), frame(0xc0, 30, 40)))).toEqual({ mediaType: 'image/jpeg', width: 40, height: 30 });
    expect(imageInfo(jpegOf(app0(2), [0xff], app0(5), frame(0xc1, 7, 9)))).toEqual({ mediaType: 'image/jpeg', width: 9, height: 7 });
    // A segment whose length runs past the end: nothing more to read.
    expect(imageInfo(jpegOf(app0(16)).subarray(0, 14))).toBeUndefined();
  });

  it('reads every start-of-frame marker, and not DHT, JPG or DAC as one', () => {
    for (const sof of [0xc0, 0xc1, 0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf]) {
      expect(imageInfo(jpegOf(frame(sof, 5, 6))), sof.toString(16)).toEqual({ mediaType: 'image/jpeg', width: 6, height: 5 });
    }
    for (const other of [0xc4, 0xc8, 0xcc]) {
      const segment = [0xff, other, 0x00, 0x07, 0x08, 0, 5, 0, 6];
      expect(imageInfo(jpegOf(segment, app0(4))), other.toString(16)).toBeUndefined();
      expect(imageInfo(jpegOf(segment, frame(0xc0, 8, 9))), `${other.toString(16)} then a frame`).toEqual({ mediaType: 'image/jpeg', width: 9, height: 8 });
    }
  });

  it('stops at the end of image or the scan before any frame, and at a byte that is no marker', () => {
    expect(imageInfo(jpegOf([0xff, 0xd9], frame(0xc0, 5, 6)))).toBeUndefined();
    // An end of image followed by bytes that would read as a short segment: still the end.
    expect(imageInfo(jpegOf([0xff, 0xd9, 0x00, 0x02], frame(0xc0, 5, 6)))).toBeUndefined();
    expect(imageInfo(jpegOf([0xff, 0xda, 0x00, 0x02], frame(0xc0, 5, 6)))).toBeUndefined();
    expect(imageInfo(jpegOf([0x00], frame(0xc0, 5, 6)))).toBeUndefined();
  });

  it('needs the start of image and a whole frame header', () => {
    expect(imageInfo(Buffer.from([0xfe, 0xd8, ...frame(0xc0, 5, 6), 0, 0]))).toBeUndefined();
    expect(imageInfo(Buffer.from([0xff, 0xd9, ...frame(0xc0, 5, 6), 0, 0]))).toBeUndefined();
    expect(imageInfo(Buffer.from([0xff, 0xd8, 0xff]))).toBeUndefined();
    // The loop reads a marker only with 10 bytes after it: 12 bytes here, 11 are not enough.
    const whole = Buffer.from([0xff, 0xd8, ...frame(0xc0, 5, 6)]).subarray(0, 12);
    expect(imageInfo(whole)).toEqual({ mediaType: 'image/jpeg', width: 6, height: 5 });
    expect(imageInfo(whole.subarray(0, 11))).toBeUndefined();
    expect(imageInfo(jpegOf(frame(0xc0, 0, 6)))).toBeUndefined();
  });
});

describe('imageInfo: WebP', () => {
  it('lossy (VP8 ): the 14-bit sizes after the start code, the scaling bits dropped', () => {
    expect(imageInfo(lossy(320, 240))).toEqual({ mediaType: 'image/webp', width: 320, height: 240 });
    expect(imageInfo(lossy(0xc000 | 320, 0x4000 | 240))).toEqual({ mediaType: 'image/webp', width: 320, height: 240 });
    expect(imageInfo(lossy(0x3fff, 1))).toEqual({ mediaType: 'image/webp', width: 0x3fff, height: 1 });
  });

  it('lossy: a wrong byte of the start code is refused', () => {
    expect(imageInfo(lossy(320, 240, [0x9c, 0x01, 0x2a]))).toBeUndefined();
    expect(imageInfo(lossy(320, 240, [0x9d, 0x00, 0x2a]))).toBeUndefined();
    expect(imageInfo(lossy(320, 240, [0x9d, 0x01, 0x2b]))).toBeUndefined();
  });

  it('lossless (VP8L): sizes one more than stored, 14 bits each', () => {
    expect(imageInfo(lossless(5, 7))).toEqual({ mediaType: 'image/webp', width: 5, height: 7 });
    expect(imageInfo(lossless(16_384, 16_384))).toEqual({ mediaType: 'image/webp', width: 16_384, height: 16_384 });
    expect(imageInfo(lossless(1, 2))).toEqual({ mediaType: 'image/webp', width: 1, height: 2 });
    expect(imageInfo(lossless(5, 7, 0x2e))).toBeUndefined();
  });

  it('extended (VP8X): the canvas, 24 bits each, one more than stored', () => {
    expect(imageInfo(extended(1, 1))).toEqual({ mediaType: 'image/webp', width: 1, height: 1 });
    expect(imageInfo(extended(70_000, 0x100_0000))).toEqual({ mediaType: 'image/webp', width: 70_000, height: 0x100_0000 });
  });

  it("reads each chunk by its own layout, whatever bytes another chunk's layout would look at", () => {
    // A VP8X whose bytes 23-25 are the lossy start code (its width's low bytes 01 2a), and whose byte 20 is the lossless signature.
    const x = webpOf('VP8X', (b) => {
      b[20] = 0x2f;
      b.set([0x9d, 0x01, 0x2a], 23);
      b.writeUIntLE(99, 27, 3);
    });
    expect(imageInfo(x)).toEqual({ mediaType: 'image/webp', width: 0x2a01 + 1, height: 100 });
    // A lossless image whose bytes 23-25 are the lossy start code.
    const l = lossless(5, 7);
    l.set([0x9d, 0x01, 0x2a], 23);
    expect(imageInfo(l)?.width).toBe(5);
  });

  it('needs 30 bytes, RIFF, WEBP and a chunk it knows', () => {
    expect(imageInfo(extended(9, 9).subarray(0, 29))).toBeUndefined();
    expect(imageInfo(webpOf('VP8X', (b) => b.write('RIFX', 0, 'latin1')))).toBeUndefined();
    expect(imageInfo(webpOf('VP8X', (b) => b.write('WEBQ', 8, 'latin1')))).toBeUndefined();
    expect(imageInfo(webpOf('VP8Z', (b) => b.writeUIntLE(5, 24, 3)))).toBeUndefined();
    expect(imageInfo(webpOf('ALPH', (b) => b.set([0x9d, 0x01, 0x2a], 23)))).toBeUndefined();
  });
});

describe('imageInfo: anything else', () => {
  it('is refused', () => {
    expect(imageInfo(Buffer.alloc(0))).toBeUndefined();
    expect(imageInfo(Buffer.from('%PDF-1.7 not an image at all, really'))).toBeUndefined();
    expect(imageInfo(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>'))).toBeUndefined();
  });
});
