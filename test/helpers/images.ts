// Real, decodable images made in the test (no fixture files): a PNG of any
// size (zlib-compressed rows of one colour) and a one-pixel GIF.
import zlib from 'node:zlib';

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Buffer): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/** An RGB PNG of `width` x `height` pixels of one colour; `noise` adds random pixels (a larger file). */
export function png(width: number, height: number, rgb: [number, number, number] = [200, 40, 40], noise = false): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const rows = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const at = y * (width * 3 + 1) + 1 + x * 3;
      if (noise) rows.set([Math.random() * 256, Math.random() * 256, Math.random() * 256], at);
      else rows.set(rgb, at);
    }
  }
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', zlib.deflateSync(rows)), chunk('IEND', Buffer.alloc(0))]);
}

/** A 1x1 GIF. */
export function gif(): Buffer {
  return Buffer.from('R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==', 'base64');
}

/** A RIFF/WEBP file's first 30 bytes with one chunk header (`fourcc`), to fill in by `fill`. */
function webpHeader(fourcc: string, fill: (b: Buffer) => void): Buffer {
  const b = Buffer.alloc(30);
  b.write('RIFF', 0, 'latin1');
  b.writeUInt32LE(22, 4);
  b.write('WEBP', 8, 'latin1');
  b.write(fourcc, 12, 'latin1');
  b.writeUInt32LE(10, 16);
  fill(b);
  return b;
}

/** A lossy WebP (VP8) header: the key frame's start code, then 14-bit width and height (the top 2 bits: a scale, not size). */
export function webpLossy(width: number, height: number, scale = 0): Buffer {
  return webpHeader('VP8 ', (b) => {
    b.set([0x9d, 0x01, 0x2a], 23);
    b.writeUInt16LE(width | (scale << 14), 26);
    b.writeUInt16LE(height | (scale << 14), 28);
  });
}

/** An extended WebP (VP8X) header: flags, then width - 1 and height - 1 in 24 bits each. */
export function webpExtended(width: number, height: number): Buffer {
  return webpHeader('VP8X', (b) => {
    b[20] = 0x10; // the alpha flag
    b.writeUIntLE(width - 1, 24, 3);
    b.writeUIntLE(height - 1, 27, 3);
  });
}
