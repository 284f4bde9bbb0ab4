// The fakes refuse malformed images with each provider's own error, and bill
// images by each provider's rule; skein reads every type's size from its
// header and counts an image by its pixels, not its base64.
import { describe, expect, it } from 'vitest';
import { imageInfo } from '../../server/images/image-info.js';
import { imageTokens, messageTokens } from '../../server/llm/tokens.js';
import { applyCompaction, type SourcedMessage } from '../../server/compaction/view.js';
import { anthropicImageTokens, checkAnthropicImages, checkGeminiImages, checkOpenAIImages, geminiImageTokens, openaiImageTokens, openaiDataUrl } from '../fakes/rules/images.js';
import { gif, png } from '../helpers/images.js';

const b64 = (b: Buffer) => b.toString('base64');
/** A baseline JPEG's start: SOI, an APP0 segment, then SOF0 with height 30 and width 40. */
const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x04, 0x00, 0x00, 0xff, 0xc0, 0x00, 0x11, 0x08, 0x00, 0x1e, 0x00, 0x28, 0x03, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xd9]);
/** A lossless WebP header (VP8L) of 5x7. */
const webp = (() => {
  const b = Buffer.alloc(30);
  b.write('RIFF', 0, 'latin1');
  b.write('WEBP', 8, 'latin1');
  b.write('VP8L', 12, 'latin1');
  b[20] = 0x2f;
  b.writeUInt32LE((5 - 1) | ((7 - 1) << 14), 21);
  return b;
})();

describe('image headers (skein)', () => {
  it('reads the type and size of PNG, GIF, JPEG and WebP, and nothing else', () => {
    expect(imageInfo(png(64, 48))).toEqual({ mediaType: 'image/png', width: 64, height: 48 });
    expect(imageInfo(gif())).toEqual({ mediaType: 'image/gif', width: 1, height: 1 });
    expect(imageInfo(jpeg)).toEqual({ mediaType: 'image/jpeg', width: 40, height: 30 });
    expect(imageInfo(webp)).toEqual({ mediaType: 'image/webp', width: 5, height: 7 });
    expect(imageInfo(Buffer.from('%PDF-1.7 not an image at all, really'))).toBeUndefined();
  });

  it("counts an image by its pixels (Anthropic's rule, scaled to 1568 px), never by its base64", () => {
    expect(imageTokens(300, 200)).toBe(80);
    expect(imageTokens(4000, 3000)).toBeLessThanOrEqual(1600);
    const picture = png(300, 200, [1, 2, 3], true);
    const withImage = messageTokens({ role: 'user', content: 'look', images: [{ file: '/x.png', mediaType: 'image/png', bytes: picture.length, width: 300, height: 200 }] });
    expect(withImage - messageTokens({ role: 'user', content: 'look' })).toBe(80);
  });
});

describe('image rules (fakes)', () => {
  const image = (media_type: string, data: string) => ({ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type, data } }, { type: 'text', text: 'x' }] });
  it('Anthropic: the media type, bytes that match it, a user turn', () => {
    expect(checkAnthropicImages([image('image/png', b64(png(2, 2)))])).toBeUndefined();
    expect(checkAnthropicImages([image('image/bmp', b64(png(2, 2)))])?.message).toBe("messages.0.content.0.image.source.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'");
    expect(checkAnthropicImages([image('image/jpeg', b64(png(2, 2)))])?.message).toBe('messages.0.content.0.image.source.base64: The image was specified using the image/jpeg media type, but the image appears to be a image/png image');
    expect(checkAnthropicImages([image('image/png', b64(Buffer.from('nope')))])?.message).toBe('messages.0.content.0.image.source.base64.data: Image does not match the provided media type image/png');
    expect(checkAnthropicImages([{ ...image('image/png', b64(png(2, 2))), role: 'assistant' }])?.message).toContain('only allowed in user messages');
  });

  it('OpenAI: a data URL of a real image, as an object', () => {
    const part = (image_url: unknown) => [{ role: 'user', content: [{ type: 'image_url', image_url }] }];
    expect(checkOpenAIImages(part({ url: `data:image/png;base64,${b64(png(2, 2))}` }))).toBeUndefined();
    expect(checkOpenAIImages(part(`data:image/png;base64,${b64(png(2, 2))}`))?.message).toBe("Invalid type for 'messages[0].content[0].image_url': expected an object, but got a string instead.");
    expect(checkOpenAIImages(part({ url: b64(png(2, 2)) }))?.message).toContain("but got a value without the 'data:' prefix.");
    expect(openaiDataUrl('data:image/png;base64,', 'input[0].content[1].image_url')?.message).toContain('but got empty base64-encoded bytes.');
    expect(openaiDataUrl('data:image/bmp;base64,AAAA', 'x')?.message).toContain('unsupported image');
  });

  it('Gemini: a MIME type it reads, bytes that are an image', () => {
    expect(checkGeminiImages([{ role: 'user', parts: [{ inlineData: { mimeType: 'image/png', data: b64(png(2, 2)) } }] }])).toBeUndefined();
    expect(checkGeminiImages([{ role: 'user', parts: [{ inlineData: { mimeType: 'image/jpg', data: b64(jpeg) } }] }])?.message).toBe('Unsupported MIME type: image/jpg');
    expect(checkGeminiImages([{ role: 'user', parts: [{ inlineData: { mimeType: 'image/png', data: 'AAAA' } }] }])?.message).toBe('Provided image is not valid');
  });

  it("bills by each provider's own rule", () => {
    const seen = { type: 'image/png' as const, width: 1024, height: 1024, bytes: 1 };
    expect(anthropicImageTokens(seen)).toBe(1399);
    expect(openaiImageTokens(seen)).toBe(765);
    expect(openaiImageTokens(seen, 'low')).toBe(85);
    expect(geminiImageTokens(seen)).toBe(1032);
    expect(geminiImageTokens({ ...seen, width: 300, height: 300 })).toBe(258);
  });
});

describe('compaction and images', () => {
  it('a clearing compaction replaces old images by a line in the model view (later ones stay)', () => {
    const ref = { file: '/d/s/images/a.png', mediaType: 'image/png' as const, bytes: 2048, width: 64, height: 48 };
    const view: SourcedMessage[] = [
      { role: 'user', content: 'first', seq: 2, images: [ref] },
      { role: 'assistant', content: 'ok', seq: 3 },
      { role: 'user', content: 'second', seq: 9, images: [ref] },
    ];
    applyCompaction(view, { clearedThroughSeq: 5 }, new Map());
    expect(view[0]).toEqual({ role: 'user', content: "first\n[image cleared to save context (event 2): PNG image, 64x48, 2.0 KB; the session's log keeps it]", seq: 2 });
    expect(view[2]!.images).toEqual([ref]);
  });
});
