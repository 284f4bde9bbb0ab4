// Renders folded messages as plain text for the summariser. Long tool output
// is clipped here: the summary needs what happened, not every byte.
import { CUT_NOTE_OPEN, STATUS_NOTE_OPEN, TOOLS_NOTE_OPEN } from '../../shared/protocol.js';
import type { SourcedMessage } from './view.js';
import { imageLabel } from '../images/image-files.js';

export const TOOL_OUTPUT_CHARS = 2000;

/** One line group per message; the previous summary (without its ledger) comes first as <previous-summary>. */
/** `toolOutputChars`: how much of a tool output the summariser reads (skein's 2,000; Infinity for a tool whose summariser reads outputs whole). */
export function renderTranscript(messages: readonly SourcedMessage[], toolOutputChars = TOOL_OUTPUT_CHARS): string[] {
  const parts: string[] = [];
  for (const m of messages) {
    if (m.summaryOf) {
      parts.push(`<previous-summary>\n${m.summaryOf.summary}\n</previous-summary>`);
    } else if (m.content.startsWith(STATUS_NOTE_OPEN) || m.content.startsWith(TOOLS_NOTE_OPEN) || m.content.startsWith(CUT_NOTE_OPEN)) {
      continue; // skein's own notes are not part of the story (a folded tools note is sent again after the fold)
    } else if (m.role === 'user') {
      // The summariser reads text: an image is named by what it is (its pixels stay in the log).
      parts.push(`[user] ${m.content}${(m.images ?? []).map((image) => `\n[image: ${imageLabel(image)}]`).join('')}`);
    } else if (m.role === 'system') {
      parts.push(`[instruction update] ${m.content}`);
    } else if (m.role === 'assistant') {
      const lines: string[] = [];
      if (m.content.trim()) lines.push(`[assistant] ${m.content}`);
      for (const c of m.toolCalls ?? []) lines.push(`[assistant -> ${c.name} ${JSON.stringify(c.input)}]`);
      if (lines.length) parts.push(lines.join('\n'));
    } else if (m.role === 'tool') {
      const clipped =
        m.content.length > toolOutputChars
          ? `${m.content.slice(0, toolOutputChars / 2)}\n[... ${m.content.length - toolOutputChars} characters clipped ...]\n${m.content.slice(-toolOutputChars / 2)}`
          : m.content;
      const firstLine = m.content.split('\n', 1)[0] ?? '';
      const error = /^(exit code: [1-9]|killed:|\w+ failed:)|<returncode>[1-9]/.test(firstLine) ? `\n[tool error] ${firstLine.slice(0, 300)}` : '';
      parts.push(`[tool result] ${clipped}${error}`);
    }
  }
  return parts;
}
