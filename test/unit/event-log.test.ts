import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EventLog } from '../../server/store/event-log.js';
import { tempDir } from '../helpers/server.js';

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

  it('refuses a log from a newer format version', () => {
    const file = path.join(tempDir('log'), 'd.jsonl');
    fs.writeFileSync(file, JSON.stringify({ ...header('d'), skein: 99 }) + '\n');
    expect(() => EventLog.open(file)).toThrow(/unsupported log format/);
  });
});
