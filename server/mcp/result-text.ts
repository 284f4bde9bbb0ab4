// An MCP tool result as the text a tool result carries: text parts as they
// are, other parts named (an image or audio as its type and size, a resource
// by its URI), structured content as JSON when there is nothing else.
export function toolResultText(result: Record<string, unknown>): string {
  const content = Array.isArray(result.content) ? (result.content as Record<string, unknown>[]) : [];
  const parts = content.map(partText).filter((p) => p !== '');
  if (!parts.length && result.structuredContent !== undefined) return JSON.stringify(result.structuredContent, null, 2);
  // Old servers answer {toolResult: ...}.
  if (!parts.length && result.toolResult !== undefined) return typeof result.toolResult === 'string' ? result.toolResult : JSON.stringify(result.toolResult);
  return parts.join('\n');
}

function partText(part: Record<string, unknown>): string {
  switch (part.type) {
    case 'text':
      return String(part.text ?? '');
    case 'image':
    case 'audio':
      return `[${part.type} ${String(part.mimeType ?? '')}, ${Math.floor((String(part.data ?? '').length * 3) / 4)} bytes, not shown]`;
    case 'resource': {
      const resource = (part.resource ?? {}) as Record<string, unknown>;
      return typeof resource.text === 'string' ? resource.text : `[resource ${String(resource.uri ?? '')}${resource.mimeType ? ` (${String(resource.mimeType)})` : ''}]`;
    }
    case 'resource_link':
      return `[resource ${String(part.uri ?? '')}${part.name ? ` "${String(part.name)}"` : ''}]`;
    default:
      return JSON.stringify(part);
  }
}
