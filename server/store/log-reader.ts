// Reads a JSONL session log without holding the event loop: the file a chunk
// at a time (fs.promises), its lines parsed in slices of about SLICE_MS, the
// loop free between them. A 150 MB log read in one readFileSync + JSON.parse
// per line held the loop for about a second; here no slice is longer than one
// line's parse. The result is what EventLog.open would have read (same
// events, same report); EventLog.fromRead makes it the session's log.
import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { SkeinEvent } from '../../shared/protocol.js';
import { EventLines, parseHeader } from './log-lines.js';
import type { LoadReport, LogHeader } from './types.js';
import type { KindIndex } from './kind-index.js';

/** Bytes read per chunk (one chunk decoded at a time). */
const CHUNK_BYTES = 1024 * 1024;
/** Work done back to back before the event loop gets a turn. */
export const SLICE_MS = 8;

export interface ReadLog {
  header: LogHeader;
  events: SkeinEvent[];
  report: LoadReport;
  /** Bytes of the file up to its last complete line (a torn tail starts here). */
  size: number;
  /** Where each kind of event sits, when it was taken after the read (in slices, see LogReads). */
  kinds?: KindIndex;
}

/** Calls back between slices: the loop had a turn (tests count them). */
export interface ReadOptions {
  sliceMs?: number;
  chunkBytes?: number;
}

export const yieldToLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Reads and parses a whole log in slices; throws as EventLog.open does (unreadable header, unknown format). */
export async function readLog(file: string, options: ReadOptions = {}): Promise<ReadLog> {
  const sliceMs = options.sliceMs ?? SLICE_MS;
  const handle = await fs.promises.open(file, 'r');
  try {
    const buf = Buffer.allocUnsafe(options.chunkBytes ?? CHUNK_BYTES);
    /** Bytes of a line not finished yet (a line may span chunks). */
    let carry: Buffer[] = [];
    let pos = 0;
    let complete = 0;
    let index = 0;
    let header: LogHeader | undefined;
    let lines: EventLines | undefined;
    let slice = performance.now();
    for (;;) {
      const { bytesRead } = await handle.read(buf, 0, buf.length, pos);
      if (bytesRead === 0) break;
      pos += bytesRead;
      const chunk = buf.subarray(0, bytesRead);
      const end = chunk.lastIndexOf(10);
      if (end < 0) {
        carry.push(Buffer.from(chunk));
        continue;
      }
      const whole = carry.length ? Buffer.concat([...carry, chunk.subarray(0, end + 1)]) : chunk.subarray(0, end + 1);
      carry = end + 1 < bytesRead ? [Buffer.from(chunk.subarray(end + 1))] : [];
      complete += whole.length;
      const text = whole.toString('utf8');
      for (let start = 0; start < text.length; ) {
        const stop = text.indexOf('\n', start);
        const line = text.slice(start, stop);
        start = stop + 1;
        if (index === 0) {
          header = parseHeader(file, line);
          lines = new EventLines(header.createdAt);
        } else lines!.add(line, index);
        index++;
        if (performance.now() - slice > sliceMs) {
          await yieldToLoop();
          slice = performance.now();
        }
      }
    }
    // No complete line at all: the same error as a synchronous open of it.
    if (!header || !lines) parseHeader(file, '');
    const report = lines!.report;
    const tail = Buffer.concat(carry);
    if (tail.length) report.tornTail = tail.toString('utf8');
    return { header: header!, events: lines!.events, report, size: complete };
  } finally {
    await handle.close();
  }
}
