// The images of user messages, kept as files of the session (under its
// folder, `images/<hash>.<ext>`) rather than inline in its log: a log is read
// whole at every load and replayed to every client that connects, and base64
// makes a picture a third larger again. The event keeps a reference (type,
// size in pixels and bytes, the file); the model's request reads the bytes back.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { ImageInput, ImageRef } from '../../shared/protocol.js';
import { imageInfo } from './image-info.js';

/** An image the server cannot take (HTTP 400; an error frame on the socket). */
export class ImageError extends Error {
  override readonly name = 'ImageError';
}

const EXTENSIONS: Record<ImageRef['mediaType'], string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/gif': 'gif', 'image/webp': 'webp' };

/** Throws ImageError when an image's bytes are not one of the four types. */
export function checkImages(images: readonly ImageInput[]): void {
  readImages(images);
}

/** Checks every image first (nothing is written when one is refused), then saves each in `dir`. */
export function saveImages(images: readonly ImageInput[], dir: string): ImageRef[] {
  const checked = readImages(images);
  if (checked.length) fs.mkdirSync(dir, { recursive: true });
  return checked.map(({ bytes, info }) => {
    const file = path.join(dir, `${createHash('sha256').update(bytes).digest('hex').slice(0, 20)}.${EXTENSIONS[info.mediaType]}`);
    if (!fs.existsSync(file)) fs.writeFileSync(file, bytes);
    return { file, mediaType: info.mediaType, bytes: bytes.length, width: info.width, height: info.height };
  });
}

function readImages(images: readonly ImageInput[]) {
  return images.map((image, i) => {
    const bytes = Buffer.from(image.data, 'base64');
    const info = imageInfo(bytes);
    const which = images.length > 1 ? `image ${i + 1}` : 'the image';
    if (!info) throw new ImageError(`${which} is not a PNG, JPEG, GIF or WebP file skein can read (sent as ${image.mediaType}, ${bytes.length} bytes)`);
    return { bytes, info };
  });
}

/** The image's bytes in base64, or undefined when its file is gone (a hand-pruned data folder). */
export function imageBase64(image: ImageRef): string | undefined {
  try {
    return fs.readFileSync(image.file).toString('base64');
  } catch {
    return undefined;
  }
}

/** Copies a message's images into a fork's folder (one gone since stays named). */
export function copyImages(images: readonly ImageRef[], targetDir: string): ImageRef[] {
  return images.map((image) => {
    const file = path.join(targetDir, path.basename(image.file));
    try {
      fs.mkdirSync(targetDir, { recursive: true });
      if (!fs.existsSync(file)) fs.copyFileSync(image.file, file);
      return { ...image, file };
    } catch {
      return image;
    }
  });
}

/** How an image reads where its pixels cannot go (a text-only view, a placeholder, the export). */
export function imageLabel(image: ImageRef): string {
  return `${image.mediaType.slice('image/'.length).toUpperCase()} image, ${image.width}x${image.height}, ${kilobytes(image.bytes)}`;
}

function kilobytes(bytes: number): string {
  return bytes < 1024 ? `${bytes} bytes` : `${(bytes / 1024).toFixed(bytes < 10 * 1024 ? 1 : 0)} KB`;
}
