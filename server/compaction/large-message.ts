// A user message too large for the window is never cut: the log keeps it
// whole, a file in the session's folder keeps it whole, and the model's view
// holds its head, its size and where the rest is (read_file and
// search_history read it). So nothing the user typed is summarised away
// the moment it arrives.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { LARGE_MESSAGE_SHARE, SAVED_HEAD_SHARE, type SavedMessage } from '../../shared/protocol.js';
import { tokensOf } from '../llm/tokens.js';

/** Characters per token assumed when sizing the head (a head a little short of its share is fine). */
const CHARS_PER_TOKEN = 3;

/** Saves `text` in `dir` when it is more than its share of `contextWindow`; undefined when it fits as it is. */
export function saveIfLarge(text: string, contextWindow: number, dir: string): SavedMessage | undefined {
  if (text.length <= Math.floor(contextWindow * LARGE_MESSAGE_SHARE)) return undefined; // fewer characters than tokens allowed
  const tokens = tokensOf(text);
  if (tokens <= Math.floor(contextWindow * LARGE_MESSAGE_SHARE)) return undefined;
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `message-${createHash('sha256').update(text).digest('hex').slice(0, 16)}.txt`);
  fs.writeFileSync(file, text);
  let headChars = Math.min(text.length, Math.floor(contextWindow * SAVED_HEAD_SHARE * CHARS_PER_TOKEN));
  // End the head at a line break when there is one in its last quarter: the model reads whole lines.
  const lineEnd = text.lastIndexOf('\n', headChars);
  if (lineEnd > headChars * 0.75) headChars = lineEnd + 1;
  return { file, chars: text.length, tokens, headChars };
}

/** What the model reads for a saved message (event `seq`): its head, its size and how to read the rest. */
export function savedMessageView(text: string, saved: SavedMessage, seq: number): string {
  const lines = text.split('\n').length;
  const headLines = text.slice(0, saved.headChars).split('\n').length;
  return (
    `${VIEW_OPEN}${seq}) is ${thousands(saved.chars)} characters in ${thousands(lines)} line${lines === 1 ? '' : 's'}, about ${thousands(saved.tokens)} tokens: ` +
    `more than this conversation's window holds at once, so it is kept whole in the file ${saved.file}. ` +
    `Its start follows. read_file {"path": ${JSON.stringify(saved.file)}, "offset": ${headLines}} reads on; ` +
    `search_history {"fromSeq": ${seq}, "toSeq": ${seq}, "query": "..."} finds any line of it.]\n` +
    `${text.slice(0, saved.headChars)}\n` +
    `[… ${thousands(saved.chars - saved.headChars)} more characters in ${saved.file}]`
  );
}

const VIEW_OPEN = "[The user's message (event ";

/** The first line of a saved message's view (its size and where it is), or undefined for any other text. */
export function savedMessagePointer(content: string): string | undefined {
  return content.startsWith(VIEW_OPEN) ? content.slice(0, content.indexOf('\n')) : undefined;
}

function thousands(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}
