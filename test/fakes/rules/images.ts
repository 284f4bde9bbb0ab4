// Images in a request, as each provider checks and bills them (the fakes'
// own reading of the bytes: no code shared with skein). The refusals carry
// the texts the APIs give (seen in client issue threads: anthropics/claude-code
// #8184 and #15746, BerriAI/litellm #24900, OpenAI's "Invalid image URL …
// Expected a base64-encoded data URL", Gemini's "Unsupported MIME type").
import type { Rejection } from './rejection.js';
import { anthropicRejection } from './anthropic.js';
import { openaiRejection } from './openai.js';
import { geminiRejection } from './gemini.js';

export interface SeenImage {
  type: 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';
  width: number;
  height: number;
  bytes: number;
}

const ANTHROPIC_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'];
/** Anthropic refuses an image over 5 MB (base64-decoded) in the API. */
const ANTHROPIC_MAX_BYTES = 5 * 1024 * 1024;

/** The image's type and size as its first bytes say (PNG, GIF, JPEG, WebP), or undefined. */
export function sniff(base64: string): SeenImage | undefined {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(base64) || base64.length % 4 !== 0) return undefined;
  const b = Buffer.from(base64, 'base64');
  const bytes = b.length;
  if (b.length >= 24 && b.subarray(1, 4).toString('latin1') === 'PNG') return { type: 'image/png', width: b.readUInt32BE(16), height: b.readUInt32BE(20), bytes };
  if (b.length >= 10 && b.subarray(0, 3).toString('latin1') === 'GIF') return { type: 'image/gif', width: b.readUInt16LE(6), height: b.readUInt16LE(8), bytes };
  if (b.length >= 30 && b.subarray(8, 12).toString('latin1') === 'WEBP') {
    const kind = b.subarray(12, 16).toString('latin1');
    if (kind === 'VP8X') return { type: 'image/webp', width: 1 + b.readUIntLE(24, 3), height: 1 + b.readUIntLE(27, 3), bytes };
    if (kind === 'VP8L') {
      const v = b.readUInt32LE(21);
      return { type: 'image/webp', width: 1 + (v & 0x3fff), height: 1 + ((v >>> 14) & 0x3fff), bytes };
    }
    return { type: 'image/webp', width: b.readUInt16LE(26) & 0x3fff, height: b.readUInt16LE(28) & 0x3fff, bytes };
  }
  if (b[0] === 0xff && b[1] === 0xd8) {
    for (let i = 2; i + 8 < b.length; ) {
      const marker = b[i + 1]!;
      if (marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker)) return { type: 'image/jpeg', height: b.readUInt16BE(i + 5), width: b.readUInt16BE(i + 7), bytes };
      i += 2 + b.readUInt16BE(i + 2);
    }
    return undefined;
  }
  return undefined;
}

/** Anthropic: width x height / 750, after scaling to 1568 px on the long edge and 1.15 megapixels. */
export function anthropicImageTokens(image: SeenImage): number {
  const scale = Math.min(1, 1568 / Math.max(image.width, image.height), Math.sqrt(1_150_000 / (image.width * image.height)));
  return Math.ceil((Math.round(image.width * scale) * Math.round(image.height * scale)) / 750);
}

/** OpenAI (GPT-4o family, detail high/auto): fit in 2048 square, shortest side to 768, 170 a 512 px tile plus 85. */
export function openaiImageTokens(image: SeenImage, detail = 'auto'): number {
  if (detail === 'low') return 85;
  let { width: w, height: h } = image;
  const fit = Math.min(1, 2048 / Math.max(w, h));
  w *= fit;
  h *= fit;
  const short = Math.min(1, 768 / Math.min(w, h));
  w *= short;
  h *= short;
  return 85 + 170 * Math.ceil(w / 512) * Math.ceil(h / 512);
}

/** Gemini: 258 for an image with both sides at most 384 px, else 258 a 768 px tile. */
export function geminiImageTokens(image: SeenImage): number {
  if (image.width <= 384 && image.height <= 384) return 258;
  return 258 * Math.ceil(image.width / 768) * Math.ceil(image.height / 768);
}

/** Anthropic's checks of each `image` block of the (uncombined) messages. */
export function checkAnthropicImages(messages: any[]): Rejection | undefined {
  for (const [i, m] of messages.entries()) {
    if (!Array.isArray(m.content)) continue;
    for (const [j, b] of (m.content as any[]).entries()) {
      if (b?.type !== 'image') continue;
      const at = `messages.${i}.content.${j}.image.source`;
      if (m.role !== 'user') return anthropicRejection(`messages.${i}.content.${j}: image blocks are only allowed in user messages`);
      if (b.source?.type !== 'base64') return anthropicRejection(`${at}: Input tag '${String(b.source?.type)}' found using 'type' does not match any of the expected tags: 'base64', 'url', 'file'`);
      if (!ANTHROPIC_TYPES.includes(b.source.media_type)) return anthropicRejection(`${at}.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'`);
      const seen = typeof b.source.data === 'string' ? sniff(b.source.data) : undefined;
      if (!seen) return anthropicRejection(`${at}.base64.data: Image does not match the provided media type ${b.source.media_type}`);
      if (seen.type !== b.source.media_type) return anthropicRejection(`${at}.base64: The image was specified using the ${b.source.media_type} media type, but the image appears to be a ${seen.type} image`);
      if (seen.bytes > ANTHROPIC_MAX_BYTES) return anthropicRejection(`${at}.base64: image exceeds 5 MB maximum: ${seen.bytes} bytes > ${ANTHROPIC_MAX_BYTES} bytes`);
    }
  }
  return undefined;
}

const DATA_URL = /^data:(image\/(?:png|jpeg|gif|webp));base64,(.*)$/s;

/** OpenAI chat completions: `image_url` parts of user messages, a data URL of a real image. */
export function checkOpenAIImages(messages: any[]): Rejection | undefined {
  for (const [i, m] of messages.entries()) {
    if (!Array.isArray(m.content)) continue;
    for (const [j, part] of (m.content as any[]).entries()) {
      if (part?.type !== 'image_url') continue;
      const param = `messages[${i}].content[${j}].image_url`;
      if (m.role !== 'user') return openaiRejection(`Invalid 'messages[${i}].content[${j}]': image content is only supported in user messages.`, param);
      if (typeof part.image_url !== 'object' || part.image_url === null) return openaiRejection(`Invalid type for '${param}': expected an object, but got a string instead.`, param);
      const refused = openaiDataUrl(String(part.image_url.url ?? ''), `${param}.url`);
      if (refused) return refused;
    }
  }
  return undefined;
}

/** One data URL as OpenAI checks it (chat `image_url.url`, Responses `input_image.image_url`). */
export function openaiDataUrl(url: string, param: string): Rejection | undefined {
  if (!url.startsWith('data:')) return openaiRejection(`Invalid image URL: '${param}'. Expected a base64-encoded data URL with an image MIME type (e.g. 'data:image/png;base64,aW1nIGJ5dGVzIGhlcmU='), but got a value without the 'data:' prefix.`, param);
  const match = DATA_URL.exec(url);
  if (!match) return openaiRejection("You uploaded an unsupported image. Please make sure your image has of one the following formats: ['png', 'jpeg', 'gif', 'webp'].", param);
  if (!match[2]) return openaiRejection(`Invalid '${param}'. Expected a base64-encoded data URL with an image MIME type (e.g. 'data:image/png;base64,aW1nIGJ5dGVzIGhlcmU='), but got empty base64-encoded bytes.`, param);
  if (!sniff(match[2])) return openaiRejection("You uploaded an unsupported image. Please make sure your image is valid.", param);
  return undefined;
}

const GEMINI_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/heic', 'image/heif'];

/** Gemini: `inlineData` parts with a MIME type it reads and bytes that are an image. */
export function checkGeminiImages(contents: any[]): Rejection | undefined {
  for (const c of contents) {
    for (const p of c?.parts ?? []) {
      const data = p?.inlineData;
      if (!data) continue;
      if (!GEMINI_TYPES.includes(data.mimeType) && data.mimeType !== 'image/gif') return geminiRejection(`Unsupported MIME type: ${String(data.mimeType)}`);
      if (typeof data.data !== 'string' || !sniff(data.data)) return geminiRejection('Provided image is not valid');
    }
  }
  return undefined;
}

/** The images of any JSON value (a message, a part), found by provider shape, with their parts left out of the text count. */
export function splitImages(value: unknown): { rest: unknown; images: { image: SeenImage; detail?: string }[] } {
  const images: { image: SeenImage; detail?: string }[] = [];
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (!v || typeof v !== 'object') return v;
    const o = v as Record<string, any>;
    const data: string | undefined =
      o.type === 'image' && o.source?.type === 'base64' ? o.source.data
      : o.type === 'image_url' ? DATA_URL.exec(String(o.image_url?.url ?? ''))?.[2]
      : o.type === 'input_image' ? DATA_URL.exec(String(o.image_url ?? ''))?.[2]
      : o.inlineData ? o.inlineData.data
      : undefined;
    const image = data ? sniff(data) : undefined;
    if (image) {
      images.push({ image, detail: o.image_url?.detail ?? o.detail });
      return { image: true };
    }
    return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, walk(x)]));
  };
  return { rest: walk(value), images };
}
