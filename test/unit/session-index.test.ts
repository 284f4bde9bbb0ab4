// The sessions index on disk: a snapshot plus a journal of changed entries.
// A change appends only its own line; compaction rewrites the snapshot and
// empties the journal; whatever a crash leaves (a torn line, a compaction cut
// short) reads back as the newest entries it holds.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SessionIndex, type IndexEntry } from '../../server/store/session-index.js';
import { tempDir } from '../helpers/temp-dir.js';

function entry(id: string, title: string, size = 100): IndexEntry {
  return {
    snapshot: { id, title, state: 'WaitingForUserInput', model: 'predictable', lastSeq: 1, createdAt: '2025-01-01T00:00:00.000Z', lastActivity: '2025-01-01T00:00:01.000Z', gauge: { contextTokens: 0, contextWindow: 1000, ratio: 0, thresholdRatio: 0.8, model: 'predictable', totalCostUsd: 0 } },
    size,
    mtimeMs: 1,
    needsStart: false,
  };
}

const titles = (saved: Map<string, IndexEntry>) => Object.fromEntries([...saved].map(([id, e]) => [id, e.snapshot.title]));

describe('sessions index', () => {
  it('appends only the changed entries and reads snapshot + journal back', async () => {
    const dir = tempDir('index');
    const index = new SessionIndex(dir);
    for (let i = 0; i < 1000; i++) index.set(`s${i}`, entry(`s${i}`, `title ${i}`));
    await index.write();
    await index.compact();
    const snapshotStat = fs.statSync(index.file);
    expect(fs.existsSync(index.journal) ? fs.statSync(index.journal).size : 0).toBe(0);

    index.set('s7', entry('s7', 'renamed'));
    index.delete('s8');
    await index.write();
    // One line per changed session; the snapshot is not touched.
    const lines = fs.readFileSync(index.journal, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(fs.statSync(index.file).mtimeMs).toBe(snapshotStat.mtimeMs);
    // A write with nothing changed writes nothing.
    await index.write();
    expect(fs.readFileSync(index.journal, 'utf8').trim().split('\n')).toHaveLength(2);

    const saved = new SessionIndex(dir).readSaved();
    expect(saved.size).toBe(999);
    expect(saved.get('s7')!.snapshot.title).toBe('renamed');
    expect(saved.has('s8')).toBe(false);
    expect(saved.get('s500')).toEqual(entry('s500', 'title 500'));
  });

  it('compacts on its own once the journal outgrows the snapshot', async () => {
    const dir = tempDir('index-grow');
    const index = new SessionIndex(dir);
    index.set('a', entry('a', 'first'));
    await index.write();
    // Each rewrite of a 20 KB entry is one journal line; past 1 MB the journal is folded into the snapshot.
    for (let i = 0; i < 80; i++) {
      index.set('a', entry(`a`, `v${i} ${'x'.repeat(20_000)}`));
      await index.write();
    }
    expect(fs.existsSync(index.file)).toBe(true);
    expect(fs.statSync(index.journal).size).toBeLessThan(1024 * 1024);
    expect(new SessionIndex(dir).readSaved().get('a')!.snapshot.title).toMatch(/^v79 x/);
  });

  it('reads back what a crash leaves: a torn journal line, a compaction cut short', async () => {
    const dir = tempDir('index-crash');
    const index = new SessionIndex(dir);
    index.set('a', entry('a', 'a1'));
    index.set('b', entry('b', 'b1'));
    await index.write();
    await index.compact();
    index.set('a', entry('a', 'a2'));
    await index.write();
    // Killed mid-append: half a line at the end.
    fs.appendFileSync(index.journal, '{"n":99,"id":"b","entry":{"snap');
    const reader = new SessionIndex(dir);
    expect(titles(reader.readSaved({ repair: true }))).toEqual({ a: 'a2', b: 'b1' });
    // Repaired: the next line starts clean and is read.
    reader.set('b', entry('b', 'b2'));
    reader.set('a', entry('a', 'a2'), false);
    await reader.write();
    expect(titles(new SessionIndex(dir).readSaved())).toEqual({ a: 'a2', b: 'b2' });

    // A compaction killed after its snapshot was renamed, before the old journal was removed:
    // the old journal's lines are in the snapshot (their numbers are not above it) and change nothing.
    const old = fs.readFileSync(index.journal, 'utf8');
    await reader.compact();
    fs.writeFileSync(`${index.journal}.old`, old.replace('"b2"', '"stale"'));
    expect(titles(new SessionIndex(dir).readSaved())).toEqual({ a: 'a2', b: 'b2' });
    // Killed before the snapshot was renamed: the old journal holds lines the old snapshot lacks.
    fs.rmSync(`${index.journal}.old`);
    const before = new SessionIndex(dir);
    before.readSaved();
    before.set('c', entry('c', 'c1'));
    await before.write();
    fs.renameSync(before.journal, `${before.journal}.old`);
    expect(titles(new SessionIndex(dir).readSaved())).toEqual({ a: 'a2', b: 'b2', c: 'c1' });
    expect(path.basename(index.file)).toBe('index.json');
  });
});
