// What an image's bytes say it is: its type and its size in pixels, read from
// the header (PNG IHDR, GIF screen descriptor, JPEG start-of-frame, WebP VP8 /
// VP8L / VP8X). A client may name the wrong type; the bytes decide, and bytes
// that are none of the four types are refused.
import type { ImageMediaType } from '../../shared/protocol.js';

export interface ImageInfo {
  mediaType: ImageMediaType;
  width: number;
  height: number;
}

/** The image's type and size, or undefined when the bytes are not a PNG, JPEG, GIF or WebP image skein can read. */
export function imageInfo(bytes: Buffer): ImageInfo | undefined {
  const info = png(bytes) ?? gif(bytes) ?? jpeg(bytes) ?? webp(bytes);
  return info && info.width > 0 && info.height > 0 ? info : undefined;
}

function png(b: Buffer): ImageInfo | undefined {
  if (b.length < 24 || b.readUInt32BE(0) !== 0x89504e47 || b.readUInt32BE(4) !== 0x0d0a1a0a || b.toString('latin1', 12, 16) !== 'IHDR') return undefined;
  return { mediaType: 'image/png', width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
}

function gif(b: Buffer): ImageInfo | undefined {
  if (b.length < 10 || !/^GIF8[79]a$/.test(b.toString('latin1', 0, 6))) return undefined;
  return { mediaType: 'image/gif', width: b.readUInt16LE(6), height: b.readUInt16LE(8) };
}

/** Start-of-frame markers (baseline, progressive, lossless…): not DHT (C4), JPG (C8) or DAC (CC). */
const SOF = new Set([0xc0, 0xc1, 0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf]);

function jpeg(b: Buffer): ImageInfo | undefined {
  if (b.length < 4 || b[0] !== 0xff || b[1] !== 0xd8) return undefined;
  let at = 2;
  while (at + 9 < b.length) {
    if (b[at] !== 0xff) return undefined;
    const marker = b[at + 1]!;
    if (marker === 0xff) {
      at++;
      continue;
    }
    if (marker === 0xd9 || marker === 0xda) return undefined; // end of image, or the scan, before any frame header
    const length = b.readUInt16BE(at + 2);
    if (SOF.has(marker)) return { mediaType: 'image/jpeg', height: b.readUInt16BE(at + 5), width: b.readUInt16BE(at + 7) };
    at += 2 + length;
  }
  return undefined;
}

function webp(b: Buffer): ImageInfo | undefined {
  if (b.length < 30 || b.toString('latin1', 0, 4) !== 'RIFF' || b.toString('latin1', 8, 12) !== 'WEBP') return undefined;
  const chunk = b.toString('latin1', 12, 16);
  if (chunk === 'VP8 ' && b[23] === 0x9d && b[24] === 0x01 && b[25] === 0x2a) return { mediaType: 'image/webp', width: b.readUInt16LE(26) & 0x3fff, height: b.readUInt16LE(28) & 0x3fff };
  if (chunk === 'VP8L' && b[20] === 0x2f) {
    const bits = b.readUInt32LE(21);
    return { mediaType: 'image/webp', width: (bits & 0x3fff) + 1, height: ((bits >> 14) & 0x3fff) + 1 };
  }
  if (chunk === 'VP8X') return { mediaType: 'image/webp', width: b.readUIntLE(24, 3) + 1, height: b.readUIntLE(27, 3) + 1 };
  return undefined;
}
