// A user message's images, read back from the session's files for a provider
// request. An image whose file is gone (a hand-pruned data folder) becomes a
// line of text, so the request still goes out and says what is missing.
import type { ImageMediaType, ViewMessage } from '../../shared/protocol.js';
import { imageBase64, imageLabel } from '../images/image-files.js';

export interface LoadedImage {
  mediaType: ImageMediaType;
  /** base64, no prefix. */
  data: string;
}

/** The message's images with their bytes, and a note for each that could not be read. */
export function messageImages(message: ViewMessage): { images: LoadedImage[]; missing: string } {
  const images: LoadedImage[] = [];
  const missing: string[] = [];
  for (const image of message.images ?? []) {
    const data = imageBase64(image);
    if (data) images.push({ mediaType: image.mediaType, data });
    else missing.push(`[an image the user sent is no longer available: ${imageLabel(image)}]`);
  }
  return { images, missing: missing.join('\n') };
}

/** The message's text, with the notes of missing images after it; '(empty message)' when there is neither text nor image. */
export function userText(message: ViewMessage, missing: string, hasImages: boolean): string {
  const text = [message.content, missing].filter((t) => t.trim()).join('\n');
  return text || (hasImages ? '' : '(empty message)');
}
