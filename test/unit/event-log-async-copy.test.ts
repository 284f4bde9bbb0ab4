// A fork's copy written off the event loop (EventLog.createWithAsync) and a
// log taken from a slice read (fromRead): the same file as the synchronous
// path, durable, and nothing left behind when the copy fails.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { SkeinEvent } from '../../shared/protocol.js';
import { EventLog, type LogHeader } from '../../server/store/event-log.js';
import { tempDirsPerTest } from '../helpers/temp-dir.js';

const temp = tempDirsPerTest('async-copy');
afterEach(() => vi.restoreAllMocks());

const header = (): LogHeader => ({ skein: 1, session: 's1', createdAt: '2026-11-26T00:00:00.000Z', model: 'predictable' });
function events(n: number, size = 10): SkeinEvent[] {
  return Array.from({ length: n }, (_, i) => ({ seq: i + 1, at: '2026-11-26T00:00:00.000Z', kind: 'user_message', text: `${i} ${'x'.repeat(size)}` }) as unknown as SkeinEvent);
}

describe('EventLog.createWithAsync', () => {
  it('writes the same bytes as createWith, over several slices, and the log goes on at the next seq', async () => {
    const dir = temp();
    const many = events(300, 4000); // about 1.2 MB: more than one 1 MB slice
    EventLog.createWith(path.join(dir, 'sync.jsonl'), header(), many).close();
    const log = await EventLog.createWithAsync(path.join(dir, 'async.jsonl'), header(), many);
    expect(fs.readFileSync(path.join(dir, 'async.jsonl'), 'utf8') === fs.readFileSync(path.join(dir, 'sync.jsonl'), 'utf8')).toBe(true);
    expect(log.all()).toHaveLength(300);
    const next = log.append({ kind: 'user_message', text: 'after' } as never);
    expect(next.seq).toBe(301);
    log.close();
    const lines = fs.readFileSync(path.join(dir, 'async.jsonl'), 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(302);
    expect(JSON.parse(lines[301]!)).toMatchObject({ seq: 301, text: 'after' });
  });

  it('writes a header alone for no events, and makes the file durable before it returns', async () => {
    const dir = temp();
    const file = path.join(dir, 'nested', 'empty.jsonl');
    const probe = await fs.promises.open(path.join(dir, 'probe'), 'w');
    const proto = Object.getPrototypeOf(probe) as { datasync: () => Promise<void> };
    await probe.close();
    const synced = vi.spyOn(proto, 'datasync');
    const log = await EventLog.createWithAsync(file, header(), []);
    expect(fs.readFileSync(file, 'utf8')).toBe(`${JSON.stringify(header())}\n`);
    expect(synced).toHaveBeenCalledTimes(1);
    log.close();
  });

  it('never overwrites a log that exists', async () => {
    const dir = temp();
    const file = path.join(dir, 'taken.jsonl');
    fs.writeFileSync(file, 'keep me\n');
    await expect(EventLog.createWithAsync(file, header(), events(2))).rejects.toMatchObject({ code: 'EEXIST' });
    expect(fs.readFileSync(file, 'utf8')).toBe('keep me\n');
  });

  it('a write that makes no progress fails as EIO and leaves no file behind', async () => {
    const dir = temp();
    const file = path.join(dir, 'stuck.jsonl');
    const probe = await fs.promises.open(path.join(dir, 'probe'), 'w');
    const proto = Object.getPrototypeOf(probe) as { write: (...args: unknown[]) => Promise<{ bytesWritten: number }> };
    await probe.close();
    vi.spyOn(proto, 'write').mockResolvedValue({ bytesWritten: 0 });
    await expect(EventLog.createWithAsync(file, header(), events(3))).rejects.toMatchObject({ code: 'EIO', message: expect.stringContaining('made no progress at byte 0') });
    expect(fs.existsSync(file)).toBe(false);
  });

  it('a write taken in small pieces still lands whole', async () => {
    const dir = temp();
    const file = path.join(dir, 'pieces.jsonl');
    const probe = await fs.promises.open(path.join(dir, 'probe'), 'w');
    const proto = Object.getPrototypeOf(probe) as { write: (buf: Buffer, offset: number, length?: number) => Promise<{ bytesWritten: number }> };
    await probe.close();
    const write = proto.write;
    // Each call writes at most 7 bytes (a short write, as a full disk or a signal can give).
    vi.spyOn(proto, 'write').mockImplementation(function (this: unknown, buf: Buffer, offset: number) {
      return write.call(this, buf, offset, Math.min(7, buf.length - offset));
    } as never);
    (await EventLog.createWithAsync(file, header(), events(5))).close();
    vi.restoreAllMocks();
    EventLog.createWith(path.join(dir, 'whole.jsonl'), header(), events(5)).close();
    expect(fs.readFileSync(file, 'utf8')).toBe(fs.readFileSync(path.join(dir, 'whole.jsonl'), 'utf8'));
  });
});

describe('EventLog.fromRead', () => {
  it('cuts a torn tail at the size read, so the next event starts on a clean line', () => {
    const dir = temp();
    const file = path.join(dir, 'torn.jsonl');
    const whole = `${JSON.stringify(header())}\n${events(2).map((e) => JSON.stringify(e)).join('\n')}\n`;
    fs.writeFileSync(file, `${whole}{"seq":3,"kin`);
    const { log, report } = EventLog.open(file);
    expect(report.tornTail).toBe('{"seq":3,"kin');
    expect(fs.readFileSync(file, 'utf8')).toBe(whole);
    expect(log.append({ kind: 'user_message', text: 'next' } as never).seq).toBe(3);
    log.close();
    expect(fs.readFileSync(file, 'utf8').split('\n').slice(-2)[0]).toContain('"seq":3');
  });

  it('leaves a whole file as it is', () => {
    const dir = temp();
    const file = path.join(dir, 'whole.jsonl');
    const whole = `${JSON.stringify(header())}\n${events(2).map((e) => JSON.stringify(e)).join('\n')}\n`;
    fs.writeFileSync(file, whole);
    const log = EventLog.fromRead(file, { header: header(), events: events(2), report: { badLines: [] } as never, size: 3 });
    expect(fs.readFileSync(file, 'utf8')).toBe(whole);
    log.close();
  });
});
