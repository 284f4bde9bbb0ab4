// Every byte of an event reaches the file even when the kernel takes a write
// in pieces, and a write that makes no progress is an error (the log stays
// whole, the seq is not used) instead of a loop that spins for ever.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EventLog } from '../../server/store/event-log.js';
import { tempDir } from '../helpers/temp-dir.js';

const header = (id: string) => ({ skein: 1 as const, session: id, createdAt: new Date(0).toISOString(), model: 'predictable' });

afterEach(() => {
  vi.restoreAllMocks();
});

/** From now on, writes to `fd` take at most `most` bytes at a time (0: none at all). */
function shortWrites(fd: () => number, most: number) {
  const real = fs.writeSync.bind(fs) as (fd: number, buffer: Buffer, offset?: number, length?: number) => number;
  return vi.spyOn(fs, 'writeSync').mockImplementation(((target: number, buffer: Buffer, offset?: number, length?: number) => {
    if (target !== fd()) return real(target, buffer, offset, length);
    const start = offset ?? 0;
    const len = Math.min(length ?? buffer.length - start, most);
    return len > 0 ? real(target, buffer, start, len) : 0;
  }) as typeof fs.writeSync);
}

/** The log's file descriptor: the one open on its file. */
function fdOf(file: string): number {
  for (const fd of fs.readdirSync('/proc/self/fd').map(Number)) {
    try {
      if (fs.readlinkSync(`/proc/self/fd/${fd}`) === file) return fd;
    } catch {
      /* closed meanwhile */
    }
  }
  throw new Error(`no descriptor open on ${file}`);
}

describe('event log writes', () => {
  it('a write taken in small pieces still lands whole', () => {
    const file = path.join(tempDir('log-writes'), 'a.jsonl');
    const log = EventLog.create(file, header('a'));
    const fd = fdOf(file);
    const spy = shortWrites(() => fd, 3);
    const text = 'pieces '.repeat(50);
    expect(log.append({ kind: 'user', text }).seq).toBe(1);
    expect(spy.mock.calls.length).toBeGreaterThan(50);
    spy.mockRestore();
    log.close();
    const { log: again, report } = EventLog.open(file);
    expect(again.all()).toEqual([expect.objectContaining({ seq: 1, kind: 'user', text })]);
    expect(report.tornTail).toBeUndefined();
  });

  it('a write that makes no progress fails at once with EIO; the file keeps only whole events and the seq is reused by the next', () => {
    const file = path.join(tempDir('log-writes'), 'b.jsonl');
    const log = EventLog.create(file, header('b'));
    log.append({ kind: 'user', text: 'before' });
    const fd = fdOf(file);
    // Some bytes go through, then the disk takes nothing more: the loop must not spin.
    let budget = 10;
    const real = fs.writeSync.bind(fs) as (fd: number, buffer: Buffer, offset?: number, length?: number) => number;
    const spy = vi.spyOn(fs, 'writeSync').mockImplementation(((target: number, buffer: Buffer, offset?: number, length?: number) => {
      if (target !== fd) return real(target, buffer, offset, length);
      const n = Math.min(budget, length ?? buffer.length - (offset ?? 0));
      budget -= n;
      return n > 0 ? real(target, buffer, offset, n) : 0;
    }) as typeof fs.writeSync);
    expect(() => log.append({ kind: 'user', text: 'stuck' })).toThrow(expect.objectContaining({ code: 'EIO', message: expect.stringMatching(/made no progress at byte 10 of \d+/) }));
    // It gave up after the first write that took nothing.
    expect(spy.mock.calls.filter(([target]) => target === fd).length).toBe(2);
    spy.mockRestore();
    expect(log.append({ kind: 'user', text: 'after' }).seq).toBe(2);
    log.close();
    const { log: again, report } = EventLog.open(file);
    expect(again.all().map((e) => [e.seq, e.kind === 'user' && e.text])).toEqual([[1, 'before'], [2, 'after']]);
    expect(report.tornTail).toBeUndefined();
  });

  it('a new log whose header cannot be written fails instead of spinning', () => {
    const dir = tempDir('log-writes');
    const real = fs.writeSync.bind(fs) as (fd: number, buffer: Buffer, offset?: number, length?: number) => number;
    const spy = vi.spyOn(fs, 'writeSync').mockImplementation(((target: number, buffer: Buffer, offset?: number, length?: number) => {
      const name = fs.readlinkSync(`/proc/self/fd/${target}`);
      return name.startsWith(dir) ? 0 : real(target, buffer, offset, length);
    }) as typeof fs.writeSync);
    expect(() => EventLog.create(path.join(dir, 'c.jsonl'), header('c'))).toThrow(/EIO: the event log write made no progress at byte 0/);
    spy.mockRestore();
  });
});
