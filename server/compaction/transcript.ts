// Renders folded messages as plain text for the summariser. Long tool output
// is clipped here: the summary needs what happened, not every byte.
import type { ViewMessage } from '../../shared/protocol.js';
import { isSummaryMessage, summaryBody } from './view.js';

const TOOL_OUTPUT_CHARS = 2000;

export function renderTranscript(messages: readonly ViewMessage[]): string {
  const lines: string[] = [];
  for (const m of messages) {
    if (isSummaryMessage(m)) {
      lines.push('<previous-summary>', summaryBody(m), '</previous-summary>');
    } else if (m.role === 'user') {
      lines.push(`[user] ${m.content}`);
    } else if (m.role === 'assistant') {
      if (m.content.trim()) lines.push(`[assistant] ${m.content}`);
      for (const c of m.toolCalls ?? []) lines.push(`[assistant -> ${c.name} ${JSON.stringify(c.input)}]`);
    } else if (m.role === 'tool') {
      const clipped =
        m.content.length > TOOL_OUTPUT_CHARS
          ? `${m.content.slice(0, TOOL_OUTPUT_CHARS / 2)}\n[... ${m.content.length - TOOL_OUTPUT_CHARS} characters clipped ...]\n${m.content.slice(-TOOL_OUTPUT_CHARS / 2)}`
          : m.content;
      lines.push(`[tool result] ${clipped}`);
      const firstLine = m.content.split('\n', 1)[0] ?? '';
      if (/^(exit code: [1-9]|killed:|\w+ failed:)/.test(firstLine)) lines.push(`[tool error] ${firstLine}`);
    }
  }
  return lines.join('\n');
}
