// A fork's copy (EventLog.createWithAsync) goes out in slices, so that a
// large copy never holds the event loop: a slice ends after SLICE_MS of
// work or at 1 MiB, whichever comes first. The clock is made by the test
// (each event's stringify advances it), so the slices are exact. Also: a
// failed copy reports its own error even when its file is already gone, and
// cutting a torn tail leaves no descriptor open.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { SkeinEvent } from '../../shared/protocol.js';
import { EventLog, type LogHeader } from '../../server/store/event-log.js';
import { SLICE_MS } from '../../server/store/log-reader.js';
import { tempDirsPerTest } from '../helpers/temp-dir.js';

const temp = tempDirsPerTest('copy-slices');
afterEach(() => vi.restoreAllMocks());

const header = (): LogHeader => ({ skein: 1, session: 's1', createdAt: '2026-11-26T00:00:00.000Z', model: 'predictable' });
const event = (seq: number, text: string) => ({ seq, at: '2026-11-26T00:00:00.000Z', kind: 'user_message', text });

type Write = (buf: Buffer, offset: number, length?: number) => Promise<{ bytesWritten: number }>;

/** The FileHandle prototype's write, spied on: `wrote` gets the text of each call. */
async function spyWrites(dir: string, instead?: (this: unknown, original: Write, buf: Buffer, offset: number) => Promise<{ bytesWritten: number }>) {
  const probe = await fs.promises.open(path.join(dir, 'probe'), 'w');
  const proto = Object.getPrototypeOf(probe) as { write: Write };
  await probe.close();
  const original = proto.write;
  const wrote: string[] = [];
  vi.spyOn(proto, 'write').mockImplementation(function (this: unknown, buf: Buffer, offset: number) {
    wrote.push(buf.subarray(offset).toString('utf8'));
    return instead ? instead.call(this, original, buf, offset) : original.call(this, buf, offset);
  } as never);
  return wrote;
}

const lines = (text: string) => text.split('\n').length - 1;

describe('the copy of a fork, in slices', () => {
  it(`a slice ends once ${SLICE_MS} ms of work have passed: each write holds the events of one slice`, async () => {
    const dir = temp();
    let clock = 0;
    vi.spyOn(performance, 'now').mockImplementation(() => clock);
    // Each event costs 1 ms to stringify, by the test's clock.
    const slow = Array.from({ length: 5 * SLICE_MS }, (_, i) => ({ ...event(i + 1, `e${i + 1}`), toJSON: () => (clock++, event(i + 1, `e${i + 1}`)) }));
    const wrote = await spyWrites(dir);
    const log = await EventLog.createWithAsync(path.join(dir, 'timed.jsonl'), header(), slow as unknown as SkeinEvent[]);
    log.close();
    // The header and SLICE_MS events, then SLICE_MS events a write; nothing left for a last one.
    expect(wrote.map(lines)).toEqual([SLICE_MS + 1, SLICE_MS, SLICE_MS, SLICE_MS, SLICE_MS]);
    const file = fs.readFileSync(path.join(dir, 'timed.jsonl'), 'utf8').trimEnd().split('\n');
    expect(file).toHaveLength(5 * SLICE_MS + 1);
    expect(JSON.parse(file.at(-1)!)).toMatchObject({ seq: 5 * SLICE_MS, text: `e${5 * SLICE_MS}` });
  });

  it('with no time passing, a slice ends at exactly 1 MiB', async () => {
    const dir = temp();
    vi.spyOn(performance, 'now').mockReturnValue(0);
    const MiB = 1024 * 1024;
    const headerLine = JSON.stringify(header()) + '\n';
    const lineOf = (seq: number, text: string) => JSON.stringify(event(seq, text)) + '\n';
    // Lines of about 10 kB; the last one before the mark padded to end exactly on it.
    const events: ReturnType<typeof event>[] = [];
    let size = headerLine.length;
    for (let seq = 1; size + lineOf(seq, 'x'.repeat(10_000)).length < MiB; seq++) {
      events.push(event(seq, 'x'.repeat(10_000)));
      size += lineOf(seq, 'x'.repeat(10_000)).length;
    }
    const seq = events.length + 1;
    const pad = MiB - size - lineOf(seq, '').length;
    events.push(event(seq, 'y'.repeat(pad)));
    events.push(event(seq + 1, 'after the mark'), event(seq + 2, 'and one more'));
    const wrote = await spyWrites(dir);
    (await EventLog.createWithAsync(path.join(dir, 'sized.jsonl'), header(), events as unknown as SkeinEvent[])).close();
    expect(wrote.map((w) => w.length)).toEqual([MiB, lineOf(seq + 1, 'after the mark').length + lineOf(seq + 2, 'and one more').length]);
    expect(fs.statSync(path.join(dir, 'sized.jsonl')).size).toBe(wrote[0]!.length + wrote[1]!.length);
  });

  it('a copy that fails after its file was removed reports its own failure, not the removal', async () => {
    const dir = temp();
    const file = path.join(dir, 'gone.jsonl');
    await spyWrites(dir, async () => {
      fs.rmSync(file);
      return { bytesWritten: 0 };
    });
    await expect(EventLog.createWithAsync(file, header(), [event(1, 'a')] as unknown as SkeinEvent[])).rejects.toMatchObject({ code: 'EIO', message: expect.stringContaining('made no progress') });
    expect(fs.existsSync(file)).toBe(false);
  });
});

describe('cutting a torn tail', () => {
  it('leaves no descriptor open on the log but the one it appends with', () => {
    const dir = temp();
    const file = path.join(dir, 'torn.jsonl');
    fs.writeFileSync(file, `${JSON.stringify(header())}\n${JSON.stringify(event(1, 'a'))}\n{"seq":2,"ki`);
    const openOn = () =>
      fs.readdirSync('/proc/self/fd').filter((fd) => {
        try {
          return fs.readlinkSync(path.join('/proc/self/fd', fd)) === file;
        } catch {
          return false;
        }
      }).length;
    const { log, report } = EventLog.open(file);
    expect(report.tornTail).toBe('{"seq":2,"ki');
    expect(openOn()).toBe(1);
    log.close();
    expect(openOn()).toBe(0);
  });
});
