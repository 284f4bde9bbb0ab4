// The decisions of checkpoints that need no disk (server/workspace/checkpoint-entries.ts):
// which tools take a checkpoint (MCP tools included), how the journal reads
// back after a crash, which checkpoint a rewind goes back to, what git's
// name-status makes of each file, and the note for what a plain folder
// cannot rewind.
import { describe, expect, it } from 'vitest';
import { type CheckpointEntry, entriesAfter, parseJournal, parseNameStatus, parseTouched, untrackedNote, writesFiles } from '../../server/workspace/checkpoint-entries.js';

describe('writesFiles', () => {
  it('is true for the file tools, bash and every MCP tool, false for reads', () => {
    for (const tool of ['write_file', 'edit_file', 'bash', 'mcp__fs__write', 'mcp__']) expect(writesFiles(tool), tool).toBe(true);
    for (const tool of ['read_file', 'list_dir', 'grep', 'glob', 'web_fetch', 'mcp_fs_write', 'xmcp__a', 'Write_file', '']) expect(writesFiles(tool), tool).toBe(false);
  });
});

describe('parseJournal', () => {
  it('reads one entry per line, in order, skipping blank lines', () => {
    const a = { seq: 3, commit: 'abc' };
    const b = { seq: 5, tool: 'write_file', files: { 'a.txt': true } };
    expect(parseJournal(`${JSON.stringify(a)}\n\n${JSON.stringify(b)}\n`)).toEqual([a, b]);
    expect(parseJournal('')).toEqual([]);
  });

  it('a line cut by a crash loses its own entry, not the one appended after it on the same line', () => {
    const next = { seq: 9, commit: 'def' };
    expect(parseJournal(`{"seq":7,"comm${JSON.stringify(next)}\n{"seq":8,"co\n`)).toEqual([next]);
    expect(parseJournal('garbage\n')).toEqual([]);
  });
});

describe('parseTouched', () => {
  it('lists each file once, across lines, skipping a cut line', () => {
    expect(parseTouched(`${JSON.stringify({ seq: 1, files: ['a', 'b'] })}\n{"seq":2,"fi\n\n${JSON.stringify({ seq: 3, files: ['b', 'c'] })}\n`)).toEqual(['a', 'b', 'c']);
    expect(parseTouched('')).toEqual([]);
  });
});

describe('entriesAfter', () => {
  it('keeps only the checkpoints after the point, oldest first (the first is the folder as it was)', () => {
    const entries = [{ seq: 9 }, { seq: 2 }, { seq: 5 }, { seq: 4 }];
    expect(entriesAfter(entries, 4)).toEqual([{ seq: 5 }, { seq: 9 }]);
    expect(entriesAfter(entries, 0)).toEqual([{ seq: 2 }, { seq: 4 }, { seq: 5 }, { seq: 9 }]);
    expect(entriesAfter(entries, 9)).toEqual([]);
  });
});

describe('parseNameStatus', () => {
  it('deleted since the checkpoint: recreate; added since: delete (the diff runs from now to then); otherwise restore', () => {
    // `git diff now then`: D = in now, not in then (delete it); A = in then, not now (recreate it).
    expect(parseNameStatus('M\ta.txt\nD\tnew.txt\nA\tgone.txt\nT\tlink\n')).toEqual([
      { path: 'a.txt', change: 'restore' },
      { path: 'new.txt', change: 'delete' },
      { path: 'gone.txt', change: 'recreate' },
      { path: 'link', change: 'restore' },
    ]);
    expect(parseNameStatus('')).toEqual([]);
    expect(parseNameStatus('M\tdir/with space.txt')).toEqual([{ path: 'dir/with space.txt', change: 'restore' }]);
  });
});

describe('untrackedNote', () => {
  it('names each tool a plain folder could not follow once, in order; none for file tools or git checkpoints', () => {
    const later: CheckpointEntry[] = [
      { seq: 2, tool: 'bash', files: {} },
      { seq: 3, tool: 'write_file', files: { a: true } },
      { seq: 4, tool: 'mcp__fs__write', files: {} },
      { seq: 5, tool: 'bash', files: {} },
      { seq: 6, tool: 'edit_file', files: {} },
      { seq: 7, commit: 'abc' },
    ];
    expect(untrackedNote(later)).toBe('Not a git folder: what bash, mcp__fs__write changed after this point cannot be rewound, only the files write_file and edit_file touched.');
    expect(untrackedNote(later.filter((e) => !('tool' in e) || e.tool.endsWith('_file')))).toBeUndefined();
    expect(untrackedNote([])).toBeUndefined();
  });
});
