// What the JSONL log promises about durability and its file: a new log never
// overwrites one that exists, a fork is on disk whole before it is used, a
// failed fdatasync is surfaced, and close() flushes what is pending and lets
// go of the file exactly once, even with an fdatasync in flight.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { SkeinEvent } from '../../shared/protocol.js';
import { EventLog } from '../../server/store/event-log.js';
import { tempDirsPerTest } from '../helpers/temp-dir.js';

afterEach(() => vi.restoreAllMocks());

/** Waits on a condition, polling often: an fdatasync returns in a few ms, vi.waitFor's 50 ms default would be most of each test. */
const soon = (check: () => void) => vi.waitFor(check, { interval: 2, timeout: 3_000 });

const header = { skein: 1 as const, session: 's', createdAt: '2026-01-01T00:00:00.000Z', model: 'predictable' };
/** A folder per test, removed after it (a mutation run repeats these tests for every mutant). */
const dir = tempDirsPerTest('durable');

/** Whether this process still holds a descriptor open on `file`. */
function isOpen(file: string): boolean {
  return fs.readdirSync('/proc/self/fd').some((fd) => {
    try {
      return fs.readlinkSync(`/proc/self/fd/${fd}`) === file;
    } catch {
      return false;
    }
  });
}

/** fdatasync on `file`'s log held until release(); `fail` makes it answer with an I/O error. */
function holdSyncs(log: EventLog, fail?: NodeJS.ErrnoException) {
  const logFd = (log as unknown as { fd: number }).fd;
  const held: (() => void)[] = [];
  const real = fs.fdatasync;
  vi.spyOn(fs, 'fdatasync').mockImplementation(((fd: number, cb: (err: NodeJS.ErrnoException | null) => void) => {
    if (fd !== logFd) return real(fd, cb);
    held.push(() => (fail ? cb(fail) : real(fd, cb)));
  }) as typeof fs.fdatasync);
  return {
    held,
    release: async () => {
      await soon(() => expect(held.length).toBeGreaterThan(0));
      held.shift()!();
    },
  };
}

const eio = () => Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' });

describe('creating a log', () => {
  it('makes the folders it needs and writes the header, durable before it returns', () => {
    const file = path.join(dir(), 'a', 'b', 's.jsonl');
    const sync = vi.spyOn(fs, 'fdatasyncSync');
    const log = EventLog.create(file, header);
    expect(sync).toHaveBeenCalledTimes(1);
    expect(fs.readFileSync(file, 'utf8')).toBe(JSON.stringify(header) + '\n');
    expect(log.lastSeq).toBe(0);
    expect(log.durableSeq).toBe(0);
    log.close();
  });

  it('never overwrites a log that exists (a new session with a taken name fails, the old log stays)', () => {
    const file = path.join(dir(), 's.jsonl');
    const old = JSON.stringify(header) + '\n' + JSON.stringify({ seq: 1, ts: header.createdAt, kind: 'user', text: 'keep me' }) + '\n';
    fs.writeFileSync(file, old);
    expect(() => EventLog.create(file, header)).toThrow(expect.objectContaining({ code: 'EEXIST' }));
    expect(() => EventLog.createWith(file, header, [])).toThrow(expect.objectContaining({ code: 'EEXIST' }));
    expect(fs.readFileSync(file, 'utf8')).toBe(old);
  });
});

describe('a fork (createWith)', () => {
  const copied: SkeinEvent[] = [
    { seq: 1, ts: '2026-01-01T00:00:01.000Z', kind: 'user', text: 'one' },
    { seq: 2, ts: '2026-01-01T00:00:02.000Z', kind: 'user', text: 'two' },
  ];

  it('is on disk whole and durable before it returns, seqs and times kept; the next event follows them', () => {
    const file = path.join(dir(), 'new', 'fork.jsonl');
    const sync = vi.spyOn(fs, 'fdatasyncSync');
    const log = EventLog.createWith(file, header, copied, { sync: 'each' });
    expect(sync).toHaveBeenCalledTimes(1);
    expect(fs.readFileSync(file, 'utf8')).toBe([header, ...copied].map((l) => JSON.stringify(l) + '\n').join(''));
    expect(log.all()).toEqual(copied);
    expect(log.durableSeq).toBe(2);
    expect(log.append({ kind: 'user', text: 'three' }).seq).toBe(3);
    expect(log.durableSeq).toBe(3);
    log.close();
    expect(EventLog.open(file).log.all().map((e) => e.seq)).toEqual([1, 2, 3]);
  });

  it('keeps its own copy of the list: the source’s later events are not the fork’s', () => {
    const source = [...copied];
    const log = EventLog.createWith(path.join(dir(), 'fork.jsonl'), header, source);
    source.push({ seq: 3, ts: '2026-01-01T00:00:03.000Z', kind: 'user', text: 'source only' });
    expect(log.lastSeq).toBe(2);
    log.close();
  });
});

describe('a reopened log', () => {
  it('counts what it loaded as durable and groups its next appends (the default mode)', async () => {
    const file = path.join(dir(), 's.jsonl');
    const first = EventLog.create(file, header);
    for (let i = 0; i < 3; i++) first.append({ kind: 'user', text: `m${i}` });
    first.close();
    const { log } = EventLog.open(file);
    expect(log.durableSeq).toBe(3);
    const syncSync = vi.spyOn(fs, 'fdatasyncSync');
    log.append({ kind: 'user', text: 'grouped' });
    expect(syncSync).not.toHaveBeenCalled();
    expect(log.durableSeq).toBe(3);
    await soon(() => expect(log.durableSeq).toBe(4));
    log.close();
  });
});

describe('a failed fdatasync', () => {
  it('is surfaced with the error, on the console by default naming the log', async () => {
    const file = path.join(dir(), 's.jsonl');
    const log = EventLog.create(file, header);
    const { release } = holdSyncs(log, eio());
    const printed = vi.spyOn(console, 'error').mockImplementation(() => {});
    log.append({ kind: 'user', text: 'x' });
    await release();
    expect(printed).toHaveBeenCalledWith(`[skein] ${file}: fdatasync failed: EIO: i/o error, fdatasync`);
    log.close();
  });

  it('goes to onSyncError; the group is still announced once (written, durability unknown) and the next group syncs', async () => {
    const log = EventLog.create(path.join(dir(), 's.jsonl'), header);
    const { release } = holdSyncs(log, eio());
    const errors: Error[] = [];
    log.onSyncError = (err) => errors.push(err);
    const announced: number[] = [];
    log.onDurable((upTo) => announced.push(upTo));
    log.append({ kind: 'user', text: 'a' });
    log.append({ kind: 'user', text: 'b' });
    await release();
    expect(errors.map((e) => e.message)).toEqual(['EIO: i/o error, fdatasync']);
    expect(announced).toEqual([2]);
    log.append({ kind: 'user', text: 'c' });
    await release();
    expect(announced).toEqual([2, 3]);
    expect(errors).toHaveLength(2);
    log.close();
  });

  it('at close() is surfaced, not thrown; close still lets go of the file', async () => {
    const file = path.join(dir(), 's.jsonl');
    const log = EventLog.create(file, header);
    log.append({ kind: 'user', text: 'x' });
    const errors: Error[] = [];
    log.onSyncError = (err) => errors.push(err);
    vi.spyOn(fs, 'fdatasyncSync').mockImplementation(() => {
      throw eio();
    });
    expect(() => log.close()).not.toThrow();
    expect(errors.map((e) => e.message)).toEqual(['EIO: i/o error, fdatasync']);
    expect(log.durableSeq).toBe(1);
    await soon(() => expect(isOpen(file)).toBe(false));
  });
});

describe('close()', () => {
  it('flushes what is pending at once, announces it, and closes the file', () => {
    const file = path.join(dir(), 's.jsonl');
    const log = EventLog.create(file, header);
    const announced: number[] = [];
    log.onDurable((upTo) => announced.push(upTo));
    log.append({ kind: 'user', text: 'x' });
    log.append({ kind: 'user', text: 'y' });
    const sync = vi.spyOn(fs, 'fdatasyncSync');
    log.close();
    expect(sync).toHaveBeenCalledTimes(1);
    expect(announced).toEqual([2]);
    expect(log.durableSeq).toBe(2);
  });

  it('with nothing pending makes no fdatasync and closes the file at once; a second close is harmless', async () => {
    const file = path.join(dir(), 's.jsonl');
    const log = EventLog.create(file, header);
    log.append({ kind: 'user', text: 'x' });
    await soon(() => expect(log.durableSeq).toBe(1));
    // The group's callback has run (the log is idle).
    await new Promise((r) => setImmediate(r));
    const sync = vi.spyOn(fs, 'fdatasyncSync');
    expect(isOpen(file)).toBe(true);
    log.close();
    expect(sync).not.toHaveBeenCalled();
    expect(isOpen(file)).toBe(false);
    expect(() => log.close()).not.toThrow();
  });

  it('right after an append (its group not started yet): the file is closed once the group would have run', async () => {
    const file = path.join(dir(), 's.jsonl');
    const log = EventLog.create(file, header);
    const group = vi.spyOn(fs, 'fdatasync');
    log.append({ kind: 'user', text: 'x' });
    log.close();
    expect(log.durableSeq).toBe(1);
    await soon(() => expect(isOpen(file)).toBe(false));
    expect(group).not.toHaveBeenCalled();
  });

  it('with the only group in flight: the file stays open under it and is closed when it returns', async () => {
    const file = path.join(dir(), 's.jsonl');
    const log = EventLog.create(file, header);
    const { release, held } = holdSyncs(log);
    log.append({ kind: 'user', text: 'x' });
    await soon(() => expect(held).toHaveLength(1));
    log.close();
    expect(log.durableSeq).toBe(1);
    expect(isOpen(file)).toBe(true);
    await release();
    await soon(() => expect(isOpen(file)).toBe(false));
  });

  it('with a group fdatasync in flight: the file stays open under it and is closed when it returns', async () => {
    const file = path.join(dir(), 's.jsonl');
    const log = EventLog.create(file, header);
    const { release, held } = holdSyncs(log);
    const announced: number[] = [];
    log.onDurable((upTo) => announced.push(upTo));
    log.append({ kind: 'user', text: 'x' });
    await soon(() => expect(held).toHaveLength(1));
    log.append({ kind: 'user', text: 'y' });
    log.close();
    expect(announced).toEqual([2]);
    expect(isOpen(file)).toBe(true);
    await release();
    await soon(() => expect(isOpen(file)).toBe(false));
    // No second group after close, and nothing announced twice.
    expect(held).toHaveLength(0);
    expect(announced).toEqual([2]);
    const again = EventLog.open(file).log;
    expect(again.all().map((e) => e.seq)).toEqual([1, 2]);
    again.close();
  });
});
