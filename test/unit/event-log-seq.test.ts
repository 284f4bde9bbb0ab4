// Seqs across a reload of the JSONL log: whatever a crash or a damaged disk
// left in the file, the loaded seqs only grow, a damaged line keeps the seq it
// held (so no seq is ever given twice), and only a real event takes a seq.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EventLog } from '../../server/store/event-log.js';
import { tempDirsPerTest } from '../helpers/temp-dir.js';

/** A folder per test, removed after it (a mutation run repeats these tests for every mutant). */
const freshDir = tempDirsPerTest('seq');

const CREATED = '2026-01-01T00:00:00.000Z';
const header = { skein: 1, session: 's', createdAt: CREATED, model: 'predictable' };
const tsOf = (seq: number) => `2026-01-02T00:00:${String(seq).padStart(2, '0')}.000Z`;
const ev = (seq: number) => JSON.stringify({ seq, ts: tsOf(seq), kind: 'user', text: `m${seq}` });

/** A log file written by hand: the header, then these lines; opened. */
function load(lines: string[], head: object = header) {
  const file = path.join(freshDir(), 's.jsonl');
  fs.writeFileSync(file, [JSON.stringify(head), ...lines].map((l) => l + '\n').join(''));
  const { log, report } = EventLog.open(file);
  return { log, report, file, seqs: log.all().map((e) => `${e.seq}:${e.kind}`) };
}

describe('a damaged line keeps the seq it held', () => {
  it('read from its start, also a seq of several digits', () => {
    const events = Array.from({ length: 11 }, (_, i) => ev(i + 1));
    const { log, report } = load([...events, `{"seq":12,"ts":"${tsOf(12)}","kind":"us\u0000garbage`, ev(13)]);
    expect(report.badLines).toEqual([13]);
    expect(log.all().map((e) => e.seq)).toEqual(Array.from({ length: 13 }, (_, i) => i + 1));
    expect(log.all()[11]).toEqual({
      seq: 12,
      ts: tsOf(11), // the time of the event before it: when it was written is lost
      kind: 'error',
      code: 'damaged_log_line',
      message: 'Line 13 of the session log could not be read and was skipped (event 12).',
    });
    expect(log.append({ kind: 'user', text: 'next' }).seq).toBe(14);
    log.close();
  });

  it('after a gap too: the line keeps the seq it claims, not the one after the last', () => {
    const { log, seqs } = load([ev(1), ev(2), `{"seq":5,"ts":"${tsOf(5)}","kind":"us\u0000`, ev(6), `{"seq":15,"ts":"${tsOf(15)}","kind":"us\u0000`, ev(16)]);
    expect(seqs).toEqual(['1:user', '2:user', '5:error', '6:user', '15:error', '16:user']);
    expect(log.append({ kind: 'user', text: 'next' }).seq).toBe(17);
    log.close();
  });

  it('a claimed seq that is not above the last one is not trusted: the line takes the next seq', () => {
    const { log, seqs } = load([ev(1), ev(2), '{"seq":2,"ts":"x","kind":"us\u0000', '{"seq":1,garbage']);
    expect(seqs).toEqual(['1:user', '2:user', '3:error', '4:error']);
    expect(log.append({ kind: 'user', text: 'next' }).seq).toBe(5);
    log.close();
  });

  it('only a seq at the very start of the line is read: text that merely contains one takes the next seq', () => {
    const { log, seqs } = load([ev(1), 'xx{"seq":9,"ts":"garbage']);
    expect(seqs).toEqual(['1:user', '2:error']);
    expect(log.lastSeq).toBe(2);
    log.close();
  });

  it('a seq too long to be real (16 digits) is not read: the line takes the next seq', () => {
    const { seqs, log } = load([ev(1), '{"seq":1234567890123456,"ts":"garbage']);
    expect(seqs).toEqual(['1:user', '2:error']);
    log.close();
  });

  it('a damaged first event stands at seq 1 with the session’s creation time', () => {
    const { log, report } = load(['garbage', ev(2)]);
    expect(report.badLines).toEqual([2]);
    expect(log.all()[0]).toMatchObject({ seq: 1, ts: CREATED, kind: 'error', code: 'damaged_log_line', message: expect.stringContaining('Line 2 ') });
    expect(log.all().map((e) => e.seq)).toEqual([1, 2]);
    log.close();
  });

  it('a guessed seq gives way to the real event that holds it, and only to that one', () => {
    // Line 3 is unreadable and guessed at 2; the real 2 follows. Line 5 is guessed at 4 and no 4 comes.
    const { seqs, report, log } = load([ev(1), 'garbage', ev(2), 'garbage', ev(5)]);
    expect(report.badLines).toEqual([3, 5]);
    expect(seqs).toEqual(['1:user', '2:user', '3:error', '5:user']);
    log.close();
  });
});

describe('only a real event takes a seq', () => {
  // Each as the last line after events 1 and 2: not an event, so it stands as a damaged line at seq 3.
  const notEvents: Record<string, string> = {
    'a seq of 0': JSON.stringify({ seq: 0, ts: CREATED, kind: 'user', text: 'x' }),
    'a negative seq': JSON.stringify({ seq: -3, ts: CREATED, kind: 'user', text: 'x' }),
    'a seq in quotes': JSON.stringify({ seq: '3', ts: CREATED, kind: 'user', text: 'x' }),
    'a fractional seq': JSON.stringify({ seq: 3.5, ts: CREATED, kind: 'user', text: 'x' }),
    'a seq past the safe integers': `{"seq":9007199254740993,"ts":"${CREATED}","kind":"user","text":"x"}`,
    'no kind': JSON.stringify({ seq: 3, ts: CREATED, text: 'x' }),
    'a kind that is not text': JSON.stringify({ seq: 3, ts: CREATED, kind: 7 }),
    'JSON null': 'null',
    'a bare number': '3',
  };
  for (const [what, line] of Object.entries(notEvents)) {
    it(`${what}`, () => {
      const { log, report } = load([ev(1), ev(2), line]);
      expect(report.badLines).toEqual([4]);
      expect(log.all().map((e) => e.seq)).toEqual([1, 2, 3]);
      expect(log.all()[2]).toMatchObject({ kind: 'error', code: 'damaged_log_line' });
      expect(log.append({ kind: 'user', text: 'next' }).seq).toBe(4);
      log.close();
    });
  }

  it('an event repeating a seq already read is skipped, with no placeholder', () => {
    const { seqs, report, log } = load([ev(1), ev(2), ev(2), ev(1)]);
    expect(report.badLines).toEqual([4, 5]);
    expect(seqs).toEqual(['1:user', '2:user']);
    log.close();
  });

  it('an empty log loads with no events and starts at seq 1', () => {
    const { log, report } = load([]);
    expect(log.all()).toEqual([]);
    expect(report).toEqual({ badLines: [] });
    expect(log.durableSeq).toBe(0);
    expect(log.append({ kind: 'user', text: 'first' }).seq).toBe(1);
    log.close();
  });
});

describe('the header', () => {
  it('is required to name a format version this skein reads', () => {
    expect(() => load([ev(1)], { ...header, skein: undefined })).toThrow(/unsupported log format undefined/);
    expect(() => load([ev(1)], { ...header, skein: '1' })).toThrow(/unsupported log format "1"/);
    expect(() => load([ev(1)], { ...header, skein: 2 })).toThrow(/s\.jsonl: unsupported log format 2$/);
    expect(load([ev(1)], { ...header, skein: 1 }).seqs).toEqual(['1:user']);
  });

  it('an empty file is refused, not taken for an empty log', () => {
    const file = path.join(freshDir(), 'empty.jsonl');
    fs.writeFileSync(file, '');
    expect(() => EventLog.open(file)).toThrow(SyntaxError);
  });
});

describe('a torn last line', () => {
  it('is cut from the file exactly (multi-byte text before it kept whole); the next event goes on a clean line', () => {
    const whole = [JSON.stringify(header), ev(1), JSON.stringify({ seq: 2, ts: tsOf(2), kind: 'user', text: 'héllo ✓ 日本' })].map((l) => l + '\n').join('');
    const file = path.join(freshDir(), 't.jsonl');
    fs.writeFileSync(file, whole + '{"seq":3,"ts":"2026-01-02T00:00:03.000Z","kind":"us');
    const { log, report } = EventLog.open(file);
    expect(report).toEqual({ badLines: [], tornTail: '{"seq":3,"ts":"2026-01-02T00:00:03.000Z","kind":"us' });
    expect(fs.readFileSync(file, 'utf8')).toBe(whole);
    expect(log.durableSeq).toBe(2);
    const third = log.append({ kind: 'user', text: 'three' });
    log.close();
    expect(fs.readFileSync(file, 'utf8')).toBe(whole + JSON.stringify(third) + '\n');
  });

  it('a whole log is left untouched by opening it', () => {
    const whole = [JSON.stringify(header), ev(1)].map((l) => l + '\n').join('');
    const file = path.join(freshDir(), 'w.jsonl');
    fs.writeFileSync(file, whole);
    const { log, report } = EventLog.open(file);
    expect(report).toEqual({ badLines: [] });
    log.close();
    expect(fs.readFileSync(file, 'utf8')).toBe(whole);
  });
});
