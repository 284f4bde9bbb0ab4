// An image's base64 as a client sends it (shared/wire/image-data.ts): its
// decoded size from the text (each padding), the limit at exactly
// MAX_IMAGE_BYTES, and what is not base64 at all; and the same through the
// wire's schema, which gives the words a client sees.
import { describe, expect, it } from 'vitest';
import { base64Bytes, imageSizeError, isBase64Text } from '../../shared/wire/image-data.js';
import { MAX_IMAGE_BYTES } from '../../shared/wire/constants.js';
import { ImageInputSchema } from '../../shared/wire/parts.js';

const b64 = (bytes: number) => Buffer.alloc(bytes, 7).toString('base64');

describe('base64Bytes', () => {
  it('counts the decoded bytes with no, one or two padding characters', () => {
    for (const n of [0, 1, 2, 3, 4, 5, 6, 100, 101, 102]) expect(base64Bytes(b64(n)), `${n} bytes`).toBe(n);
    expect(base64Bytes('AAAA')).toBe(3);
    expect(base64Bytes('AAA=')).toBe(2);
    expect(base64Bytes('AA==')).toBe(1);
  });
});

describe('isBase64Text', () => {
  it('takes whole groups of four, padding only at the end', () => {
    for (const ok of ['', 'AAAA', 'AA==', 'AAA=', 'ab+/', 'Zz09']) expect(isBase64Text(ok), ok).toBe(true);
    for (const bad of ['A', 'AA', 'AAA', 'AAAAA', 'A===', '=AAA', 'AA=A', 'AA AA', 'AA-_', 'data:image/png;base64,AAAA', 'AAAA\nAAAA', ' AAA', 'AAA ']) expect(isBase64Text(bad), bad).toBe(false);
  });
});

describe('imageSizeError', () => {
  it('passes an image of exactly MAX_IMAGE_BYTES and names the size of one byte more', () => {
    expect(imageSizeError(b64(MAX_IMAGE_BYTES))).toBeUndefined();
    expect(imageSizeError(b64(MAX_IMAGE_BYTES - 1))).toBeUndefined();
    expect(imageSizeError(b64(MAX_IMAGE_BYTES + 1))).toBe(`the image is ${MAX_IMAGE_BYTES + 1} bytes; an image may be at most ${MAX_IMAGE_BYTES} bytes`);
    expect(MAX_IMAGE_BYTES).toBe(720 * 1024);
  });
});

describe('ImageInputSchema', () => {
  const check = (data: unknown) => {
    const r = ImageInputSchema.safeParse({ mediaType: 'image/png', data });
    return r.success ? 'ok' : r.error.issues.map((i) => i.message).join('; ');
  };

  it('gives each refusal its own words, and takes an image at the limit', () => {
    expect(check(b64(MAX_IMAGE_BYTES))).toBe('ok');
    expect(check(b64(MAX_IMAGE_BYTES + 2))).toBe(`the image is ${MAX_IMAGE_BYTES + 2} bytes; an image may be at most ${MAX_IMAGE_BYTES} bytes`);
    expect(check('data:image/png;base64,AAAA')).toBe('"data" must be the image\'s bytes in base64 (no "data:" prefix)');
    expect(check('')).toContain('"data" must be the image\'s bytes in base64');
    expect(check(3)).toBe('"data" must be the image\'s bytes in base64');
  });
});
