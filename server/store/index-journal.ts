// Reading the sessions index's journal (see session-index.ts): one JSON line
// per changed entry. A torn last line (a crash mid-append) is skipped and, when
// asked, cut from the file so the next append starts on a clean line.
import fs from 'node:fs';
import type { JournalLine } from './types.js';

export function readJournal(file: string, repair = false): { lines: JournalLine[] } {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return { lines: [] };
  }
  const lines: JournalLine[] = [];
  const end = text.lastIndexOf('\n') + 1;
  if (repair && end < text.length) {
    try {
      fs.truncateSync(file, Buffer.byteLength(text.slice(0, end)));
    } catch {
      /* the next line then joins the torn one: both are skipped, their entries rebuilt */
    }
  }
  for (const raw of text.slice(0, end).split('\n')) {
    if (!raw) continue;
    try {
      const line = JSON.parse(raw) as JournalLine;
      if (Number.isSafeInteger(line.n) && typeof line.id === 'string') lines.push(line);
    } catch {
      // A damaged line: its session's entry is stale and rebuilt from its log.
    }
  }
  return { lines };
}
