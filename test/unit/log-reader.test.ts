// The log read in slices (store/log-reader.ts): the same events and load
// report as the synchronous EventLog.open, whatever the chunk size, and the
// event loop gets turns during a big read.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EventLog } from '../../server/store/event-log.js';
import { readLog } from '../../server/store/log-reader.js';
import { tempDir } from '../helpers/temp-dir.js';
import { writeBigLog } from '../helpers/big-log.js';

const header = (id: string) => ({ skein: 1 as const, session: id, createdAt: new Date(0).toISOString(), model: 'predictable' });

/** A log with multi-byte text, a damaged line, a repeated seq, a blank line and a torn tail. */
function damagedLog(): string {
  const file = path.join(tempDir('reader'), 'd.jsonl');
  const log = EventLog.create(file, header('d'));
  for (let i = 1; i <= 6; i++) log.append({ kind: 'user', text: `m${i} ünïcödé ✓ 🧵 ${'x'.repeat(i * 7)}` });
  log.close();
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  lines[3] = lines[3]!.slice(0, 20) + '\u0000garbage'; // event 3 damaged, its seq still readable
  lines[5] = lines[2]!; // event 5's line repeats event 2
  lines.splice(6, 0, ''); // a blank line
  fs.writeFileSync(file, lines.join('\n') + '{"seq":7,"ts":"2026-01-01T00:00:00.000Z","kind":"user","text":"torn ✓');
  return file;
}

describe('log read in slices', () => {
  it('gives the events and report of the synchronous open, for any chunk size (lines and characters cut across chunks)', async () => {
    const file = damagedLog();
    const bytes = fs.readFileSync(file);
    for (const chunkBytes of [1, 3, 7, 64, 1024 * 1024]) {
      const read = await readLog(file, { chunkBytes });
      // The sync open cuts the torn tail: compare on a copy.
      const copy = `${file}.${chunkBytes}`;
      fs.writeFileSync(copy, bytes);
      const { log, report } = EventLog.open(copy);
      expect(read.events).toEqual(log.all());
      expect(read.report).toEqual(report);
      expect(read.header).toEqual(log.header);
      expect(read.report.badLines).toEqual([4, 6, 7]);
      expect(read.report.tornTail).toContain('torn ✓');
      expect(read.size).toBe(bytes.length - Buffer.byteLength(read.report.tornTail!));
      log.close();
    }
  });

  it('makes a log that cuts the torn tail and appends on a clean line, as the synchronous open does', async () => {
    const file = damagedLog();
    const log = EventLog.fromRead(file, await readLog(file));
    expect(log.append({ kind: 'user', text: 'after' }).seq).toBe(7);
    log.close();
    const { log: again, report } = EventLog.open(file);
    expect(report.tornTail).toBeUndefined();
    expect(again.all().at(-1)).toMatchObject({ seq: 7, kind: 'user', text: 'after' });
    again.close();
  });

  it('refuses an unknown format or a file without a complete line, as the synchronous open does', async () => {
    const dir = tempDir('reader');
    const future = path.join(dir, 'f.jsonl');
    fs.writeFileSync(future, JSON.stringify({ ...header('f'), skein: 99 }) + '\n');
    await expect(readLog(future)).rejects.toThrow(/unsupported log format 99/);
    expect(() => EventLog.open(future)).toThrow(/unsupported log format 99/);
    const empty = path.join(dir, 'e.jsonl');
    fs.writeFileSync(empty, '{"skein":1');
    await expect(readLog(empty)).rejects.toThrow(SyntaxError);
    expect(() => EventLog.open(empty)).toThrow(SyntaxError);
  });

  it('gives the event loop turns during a big read (a tick keeps running), where the synchronous open gives none', async () => {
    const dir = tempDir('reader-big');
    const { file, events } = writeBigLog(dir, 'big', 20);
    let ticks = 0;
    const tick = () => {
      ticks++;
      timer = setImmediate(tick);
    };
    let timer = setImmediate(tick);
    try {
      EventLog.open(file).log.close();
      const duringSync = ticks;
      expect(duringSync).toBe(0);
      const read = await readLog(file);
      expect(read.events).toHaveLength(events);
      // Each slice is about 8 ms; 20 MB take far longer, so the loop had many turns.
      expect(ticks).toBeGreaterThanOrEqual(5);
    } finally {
      clearImmediate(timer);
    }
  });
});
