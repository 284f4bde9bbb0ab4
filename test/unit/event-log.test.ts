import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { EventLog } from '../../server/store/event-log.js';
import { tempDir } from '../helpers/temp-dir.js';

const header = (id: string) => ({ skein: 1 as const, session: id, createdAt: new Date(0).toISOString(), model: 'predictable' });

describe('event log', () => {
  it('gives gap-free seqs from 1 and reloads them', () => {
    const file = path.join(tempDir('log'), 'a.jsonl');
    const log = EventLog.create(file, header('a'));
    for (let i = 0; i < 5; i++) log.append({ kind: 'user', text: `m${i}` });
    log.close();
    const { log: again, report } = EventLog.open(file);
    expect(again.all().map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(again.since(3).map((e) => e.seq)).toEqual([4, 5]);
    expect(report.tornTail).toBeUndefined();
    expect(again.append({ kind: 'user', text: 'next' }).seq).toBe(6);
  });

  it('is on disk as soon as append returns', () => {
    const file = path.join(tempDir('log'), 'b.jsonl');
    const log = EventLog.create(file, header('b'));
    log.append({ kind: 'user', text: 'durable' });
    const lines = fs.readFileSync(file, 'utf8').trim().split('\n');
    expect(JSON.parse(lines[1]!)).toMatchObject({ seq: 1, kind: 'user', text: 'durable' });
  });

  it('skips and reports a torn last line, keeping everything before it, and appends cleanly after', () => {
    const file = path.join(tempDir('log'), 'c.jsonl');
    const log = EventLog.create(file, header('c'));
    log.append({ kind: 'user', text: 'one' });
    log.append({ kind: 'user', text: 'two' });
    log.close();
    fs.appendFileSync(file, '{"seq":3,"ts":"2026-01-01T00:00:00.000Z","kind":"us');
    const { log: again, report } = EventLog.open(file);
    expect(report.tornTail).toContain('"seq":3');
    expect(again.all().map((e) => (e.kind === 'user' ? e.text : ''))).toEqual(['one', 'two']);
    again.append({ kind: 'user', text: 'three' });
    again.close();
    const { log: third, report: clean } = EventLog.open(file);
    expect(clean.tornTail).toBeUndefined();
    expect(third.all().map((e) => e.seq)).toEqual([1, 2, 3]);
  });

  it('a damaged line in the middle is skipped and reported, everything after it loads, and its seq is never reused', () => {
    const file = path.join(tempDir('log'), 'e.jsonl');
    const log = EventLog.create(file, header('e'));
    for (let i = 1; i <= 5; i++) log.append({ kind: 'user', text: `m${i}` });
    log.close();
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    lines[3] = lines[3]!.slice(0, 20) + '\u0000garbage'; // event 3: its start survives, its end does not
    fs.writeFileSync(file, lines.join('\n'));
    const { log: again, report } = EventLog.open(file);
    expect(report.badLines).toEqual([4]);
    expect(report.tornTail).toBeUndefined();
    // Seqs stay gap-free for clients: the damaged line is an error event at its own seq.
    expect(again.all().map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(again.all()[2]).toMatchObject({ kind: 'error', code: 'damaged_log_line' });
    expect(again.all().flatMap((e) => (e.kind === 'user' ? [e.text] : []))).toEqual(['m1', 'm2', 'm4', 'm5']);
    expect(again.since(2).map((e) => e.seq)).toEqual([3, 4, 5]);
    expect(again.append({ kind: 'user', text: 'm6' }).seq).toBe(6);
  });

  it('a damaged last line keeps its seq: the next event does not reuse it', () => {
    const file = path.join(tempDir('log'), 'f.jsonl');
    const log = EventLog.create(file, header('f'));
    for (let i = 1; i <= 3; i++) log.append({ kind: 'user', text: `m${i}` });
    log.close();
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    lines[3] = 'x'.repeat(lines[3]!.length); // nothing readable, not even its seq
    fs.writeFileSync(file, lines.join('\n'));
    const { log: again, report } = EventLog.open(file);
    expect(report.badLines).toEqual([4]);
    expect(again.lastSeq).toBe(3);
    expect(again.append({ kind: 'user', text: 'next' }).seq).toBe(4);
  });

  it('a stray line between events takes no seq from them; a repeated seq is skipped; gaps are searched right', () => {
    const file = path.join(tempDir('log'), 'g.jsonl');
    const ev = (seq: number) => JSON.stringify({ seq, ts: new Date(0).toISOString(), kind: 'user', text: `m${seq}` });
    fs.writeFileSync(file, [JSON.stringify(header('g')), ev(1), ev(2), 'not json', ev(3), ev(3), ev(7), ev(8), ''].join('\n'));
    const { log, report } = EventLog.open(file);
    expect(report.badLines).toEqual([4, 6]);
    expect(log.all().map((e) => `${e.seq}:${e.kind}`)).toEqual(['1:user', '2:user', '3:user', '7:user', '8:user']);
    expect(log.since(0).map((e) => e.seq)).toEqual([1, 2, 3, 7, 8]);
    expect(log.since(3).map((e) => e.seq)).toEqual([7, 8]);
    expect(log.since(5).map((e) => e.seq)).toEqual([7, 8]);
    expect(log.since(8)).toEqual([]);
    expect(log.lastSeq).toBe(8);
    expect(log.append({ kind: 'user', text: 'next' }).seq).toBe(9);
  });

  it('refuses a log from a newer format version', () => {
    const file = path.join(tempDir('log'), 'd.jsonl');
    fs.writeFileSync(file, JSON.stringify({ ...header('d'), skein: 99 }) + '\n');
    expect(() => EventLog.open(file)).toThrow(/unsupported log format/);
  });
});

describe('group commit', () => {
  it('events appended in one tick share one fdatasync, run off the event loop, and are announced durable in order', async () => {
    const file = path.join(tempDir('log'), 'g.jsonl');
    const log = EventLog.create(file, header('g'));
    const logFd = (log as unknown as { fd: number }).fd;
    const syncs: number[] = [];
    const real = fs.fdatasync;
    const spy = vi.spyOn(fs, 'fdatasync').mockImplementation(((fd: number, cb: (err: NodeJS.ErrnoException | null) => void) => {
      if (fd === logFd) syncs.push(log.lastSeq);
      real(fd, cb);
    }) as typeof fs.fdatasync);
    const announced: number[] = [];
    log.onDurable((upTo) => announced.push(upTo));
    for (let i = 0; i < 50; i++) log.append({ kind: 'user', text: `m${i}` });
    // Written at once (readable), durable only after the group's fdatasync.
    expect(fs.readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(51);
    expect(log.durableSeq).toBe(0);
    await vi.waitFor(() => expect(log.durableSeq).toBe(50));
    expect(syncs).toEqual([50]);
    expect(announced).toEqual([50]);
    // A second tick is a second group.
    log.append({ kind: 'user', text: 'later' });
    await vi.waitFor(() => expect(announced).toEqual([50, 51]));
    spy.mockRestore();
    log.close();
  });

  it('appends made while an fdatasync is in flight form the next group', async () => {
    const log = EventLog.create(path.join(tempDir('log'), 'h.jsonl'), header('h'));
    const logFd = (log as unknown as { fd: number }).fd;
    const callbacks: (() => void)[] = [];
    const real = fs.fdatasync;
    const spy = vi.spyOn(fs, 'fdatasync').mockImplementation(((fd: number, cb: (err: NodeJS.ErrnoException | null) => void) => {
      if (fd === logFd) callbacks.push(() => real(fd, cb));
      else real(fd, cb);
    }) as typeof fs.fdatasync);
    log.append({ kind: 'user', text: 'a' });
    await vi.waitFor(() => expect(callbacks).toHaveLength(1));
    log.append({ kind: 'user', text: 'b' });
    log.append({ kind: 'user', text: 'c' });
    expect(callbacks).toHaveLength(1); // no second sync while one is in flight
    callbacks.shift()!();
    await vi.waitFor(() => expect(log.durableSeq).toBe(1));
    await vi.waitFor(() => expect(callbacks).toHaveLength(1));
    callbacks.shift()!();
    await vi.waitFor(() => expect(log.durableSeq).toBe(3));
    spy.mockRestore();
    log.close();
  });

  it('close() flushes what is pending and refuses later appends; a reload has every event', () => {
    const file = path.join(tempDir('log'), 'i.jsonl');
    const log = EventLog.create(file, header('i'));
    log.append({ kind: 'user', text: 'x' });
    log.close();
    expect(log.durableSeq).toBe(1);
    expect(() => log.append({ kind: 'user', text: 'y' })).toThrow(/closed/);
    expect(EventLog.open(file).log.all().map((e) => e.seq)).toEqual([1]);
  });

  it('`each` syncs every event before append returns', () => {
    const log = EventLog.create(path.join(tempDir('log'), 'j.jsonl'), header('j'), { sync: 'each' });
    const spy = vi.spyOn(fs, 'fdatasyncSync');
    log.append({ kind: 'user', text: 'x' });
    expect(log.durableSeq).toBe(1);
    expect(spy).toHaveBeenCalledTimes(1);
    spy.mockRestore();
    log.close();
  });
});
