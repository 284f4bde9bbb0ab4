// An ACP prompt's content blocks as the one text message skein takes: text as
// is, an embedded resource (a file the editor attached) quoted with its URI, a
// resource link named. skein's models read text only: an image or audio block
// is refused with a reason rather than silently dropped.
import { RequestError, type ContentBlock } from '@agentclientprotocol/sdk';

export function promptText(blocks: readonly ContentBlock[]): string {
  const parts: string[] = [];
  for (const block of blocks) {
    switch (block.type) {
      case 'text':
        parts.push(block.text);
        break;
      case 'resource': {
        const resource = block.resource;
        if ('text' in resource) {
          const fence = resource.text.includes('```') ? '````' : '```';
          parts.push(`\n${resource.uri}:\n${fence}\n${resource.text}\n${fence}\n`);
        } else parts.push(`\n(${resource.uri}: binary content${resource.mimeType ? ` of type ${resource.mimeType}` : ''}, not included: skein's models read text)\n`);
        break;
      }
      case 'resource_link':
        parts.push(`[${block.title ?? block.name}](${block.uri})`);
        break;
      default:
        throw RequestError.invalidParams({ type: block.type }, `skein sends text to its models: a prompt with ${block.type} content is not accepted (the agent did not advertise it)`);
    }
  }
  return parts.join('').trim();
}
