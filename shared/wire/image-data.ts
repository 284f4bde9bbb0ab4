// The checks on an image's base64 as a client sends it (ImageInput.data):
// base64 text only (no `data:` prefix, no line breaks), and at most
// MAX_IMAGE_BYTES once decoded. Counted from the text, never decoded first: a
// refused image costs nothing.
import { MAX_IMAGE_BYTES } from './constants.js';

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Bytes a base64 text decodes to. */
export function base64Bytes(data: string): number {
  return Math.floor((data.length * 3) / 4) - (data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0);
}

/** Whole groups of four base64 characters, padding only at the end. */
export function isBase64Text(data: string): boolean {
  return data.length % 4 === 0 && BASE64.test(data);
}

/** Why the image is too large, or undefined when it fits. */
export function imageSizeError(data: string): string | undefined {
  const bytes = base64Bytes(data);
  return bytes > MAX_IMAGE_BYTES ? `the image is ${bytes} bytes; an image may be at most ${MAX_IMAGE_BYTES} bytes` : undefined;
}
