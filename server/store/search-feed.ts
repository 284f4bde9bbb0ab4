// Reads the user messages a session's log gained after a byte offset (the
// search index's mark), for the search index. Lines are matched in place; only
// user messages are parsed. Small tails are read in one synchronous read, big
// ones a chunk at a time with the event loop free between chunks.
import fs from 'node:fs';
import { parseCompactCommand } from '../../shared/protocol.js';

const CHUNK_BYTES = 1024 * 1024;
const SMALL_BYTES = 256 * 1024;
const USER = /\{"seq":(\d{1,15}),"ts":"[^"\n]*","kind":"user"/y;

export interface FeedResult {
  /** Bytes of the file read (up to its last whole line). */
  offset: number;
  lastSeq: number;
}

/** Calls `add(seq, text)` for each user message after `offset`; the header line (offset 0) is skipped. */
export async function feedUserMessages(file: string, offset: number, add: (seq: number, text: string) => void): Promise<FeedResult> {
  const handle = await fs.promises.open(file, 'r');
  try {
    const { size } = await handle.stat();
    let pos = offset > size ? 0 : offset;
    let lastSeq = 0;
    let header = pos === 0;
    let carry = Buffer.alloc(0);
    const buf = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, Math.max(1, size - pos)));
    while (pos + carry.length < size) {
      const want = Math.min(buf.length, size - pos - carry.length);
      const { bytesRead } = size - pos <= SMALL_BYTES ? { bytesRead: fs.readSync(handle.fd, buf, 0, want, pos + carry.length) } : await handle.read(buf, 0, want, pos + carry.length);
      if (bytesRead === 0) break;
      const data = carry.length ? Buffer.concat([carry, buf.subarray(0, bytesRead)]) : buf.subarray(0, bytesRead);
      const end = data.lastIndexOf(10);
      if (end < 0) {
        carry = Buffer.from(data);
        continue;
      }
      const text = data.toString('utf8', 0, end + 1);
      for (let start = 0; start < text.length; ) {
        const stop = text.indexOf('\n', start);
        if (header) header = false;
        else lastSeq = Math.max(lastSeq, userLine(text, start, stop, add));
        start = stop + 1;
      }
      pos += end + 1;
      carry = Buffer.from(data.subarray(end + 1));
    }
    return { offset: pos, lastSeq };
  } finally {
    await handle.close();
  }
}

function userLine(text: string, start: number, stop: number, add: (seq: number, text: string) => void): number {
  USER.lastIndex = start;
  const m = USER.exec(text);
  if (!m || USER.lastIndex > stop) return 0;
  try {
    const e = JSON.parse(text.slice(start, stop)) as { seq?: unknown; text?: unknown };
    if (typeof e.seq === 'number' && typeof e.text === 'string' && !parseCompactCommand(e.text)) add(e.seq, e.text);
    return Number(m[1]);
  } catch {
    return 0;
  }
}
