// Images pasted or dropped into the composer: read as base64, checked
// against the types and the size the server takes, and a picture larger than
// that scaled down first (to 1568 px on its long edge, as JPEG: Anthropic
// scales larger ones down anyway), so a screenshot of any size can go.
import { IMAGE_MEDIA_TYPES, MAX_IMAGE_BYTES, type ImageMediaType } from '../shared/wire/constants.js';

export interface DraftImage {
  mediaType: ImageMediaType;
  /** base64, no prefix. */
  data: string;
  bytes: number;
  name: string;
}

const LONG_EDGE = 1568;

/** The file as a draft image, or a sentence saying why it cannot be one. */
export async function readImage(file: File): Promise<DraftImage | string> {
  const type = IMAGE_MEDIA_TYPES.find((t) => t === file.type);
  if (!type) return `${file.name || 'That file'} is not an image skein can send (${file.type || 'unknown type'}): PNG, JPEG, GIF or WebP.`;
  let blob: Blob = file;
  let mediaType: ImageMediaType = type;
  if (file.size > MAX_IMAGE_BYTES) {
    const smaller = await scaleDown(file).catch(() => undefined);
    if (!smaller || smaller.size > MAX_IMAGE_BYTES) {
      return `${file.name || 'The image'} is ${kb(file.size)}; an image may be at most ${kb(MAX_IMAGE_BYTES)}${smaller ? ` (even scaled down it is ${kb(smaller.size)})` : ''}.`;
    }
    blob = smaller;
    mediaType = 'image/jpeg';
  }
  const bytes = new Uint8Array(await blob.arrayBuffer());
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return { mediaType, data: btoa(binary), bytes: bytes.length, name: file.name || 'pasted image' };
}

async function scaleDown(file: File): Promise<Blob> {
  const bitmap = await createImageBitmap(file);
  const scale = Math.min(1, LONG_EDGE / Math.max(bitmap.width, bitmap.height));
  const canvas = document.createElement('canvas');
  canvas.width = Math.max(1, Math.round(bitmap.width * scale));
  canvas.height = Math.max(1, Math.round(bitmap.height * scale));
  canvas.getContext('2d')!.drawImage(bitmap, 0, 0, canvas.width, canvas.height);
  return new Promise((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('not encoded'))), 'image/jpeg', 0.85));
}

export function kb(bytes: number): string {
  return bytes < 1024 * 1024 ? `${Math.ceil(bytes / 1024)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
