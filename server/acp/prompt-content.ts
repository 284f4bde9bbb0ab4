// An ACP prompt's content blocks as the message skein takes: text as is, an
// embedded resource (a file the editor attached) quoted with its URI, a
// resource link named, an image as an image of the message (PNG, JPEG, GIF
// or WebP; the server checks its bytes and size). Audio is refused with a
// reason rather than silently dropped.
import { RequestError, type ContentBlock } from '@agentclientprotocol/sdk';
import { IMAGE_MEDIA_TYPES, type ImageInput } from '../../shared/protocol.js';

export interface PromptContent {
  text: string;
  images: ImageInput[];
}

export function promptContent(blocks: readonly ContentBlock[]): PromptContent {
  const parts: string[] = [];
  const images: ImageInput[] = [];
  for (const block of blocks) {
    switch (block.type) {
      case 'text':
        parts.push(block.text);
        break;
      case 'image': {
        const mediaType = IMAGE_MEDIA_TYPES.find((t) => t === block.mimeType);
        if (!mediaType) throw RequestError.invalidParams({ mimeType: block.mimeType }, `skein takes ${IMAGE_MEDIA_TYPES.join(', ')} images; this one is ${block.mimeType}`);
        if (!block.data) throw RequestError.invalidParams(undefined, 'an image block needs its bytes in "data" (skein does not fetch a "uri")');
        images.push({ mediaType, data: block.data });
        break;
      }
      case 'resource': {
        const resource = block.resource;
        if ('text' in resource) {
          const fence = resource.text.includes('```') ? '````' : '```';
          parts.push(`\n${resource.uri}:\n${fence}\n${resource.text}\n${fence}\n`);
        } else parts.push(`\n(${resource.uri}: binary content${resource.mimeType ? ` of type ${resource.mimeType}` : ''}, not included: attach an image as an image block)\n`);
        break;
      }
      case 'resource_link':
        parts.push(`[${block.title ?? block.name}](${block.uri})`);
        break;
      default:
        throw RequestError.invalidParams({ type: block.type }, `skein does not take ${block.type} content in a prompt (the agent did not advertise it)`);
    }
  }
  return { text: parts.join('').trim(), images };
}
