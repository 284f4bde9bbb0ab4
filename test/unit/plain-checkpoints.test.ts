// Rewind in a folder outside git (server/workspace/plain-checkpoints.ts), from
// the user's side: what a checkpoint records for each kind of path (a file,
// none yet, a link, a path outside the folder, a call that is no file tool),
// what the preview says a rewind does (restore, delete, recreate, a link or a
// folder there now), and what the rewind puts back: a file written twice
// after the rewind point comes back as it was before the first write; a
// path reached through a link refuses the whole rewind, changing nothing.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { plainCheckpoint, plainPreview, plainRewind, plainStates, isFileTool, type PlainEntry } from '../../server/workspace/plain-checkpoints.js';
import { DoorError } from '../../server/host/door.js';
import { unifiedDiff } from '../../server/tools/diff.js';
import { tempDirsPerTest } from '../helpers/temp-dir.js';

const newDir = tempDirsPerTest('plain-checkpoints');

function folder() {
  const work = newDir();
  const store = path.join(newDir(), 'checkpoints');
  const entries: PlainEntry[] = [];
  const at = (rel: string) => path.join(work, rel);
  return {
    work,
    store,
    entries,
    at,
    write: (rel: string, text: string) => {
      fs.mkdirSync(path.dirname(at(rel)), { recursive: true });
      fs.writeFileSync(at(rel), text);
    },
    read: (rel: string) => (fs.existsSync(at(rel)) ? fs.readFileSync(at(rel), 'utf8') : undefined),
    /** The checkpoint before a call at `seq` (as the agent takes it). */
    before: (tool: string, input: Record<string, unknown>, seq: number) => {
      const entry = plainCheckpoint(work, store, tool, input, seq);
      entries.push(entry);
      return entry;
    },
    after: (seq: number) => entries.filter((e) => e.seq > seq),
  };
}

describe('isFileTool', () => {
  it('is write_file and edit_file only', () => {
    expect(isFileTool('write_file')).toBe(true);
    expect(isFileTool('edit_file')).toBe(true);
    for (const tool of ['bash', 'mcp__fs__write_file', 'read_file', 'write_files', '']) expect(isFileTool(tool), tool).toBe(false);
  });
});

describe('plainCheckpoint', () => {
  it('copies a file that exists, byte for byte, under the store by seq', () => {
    const f = folder();
    f.write('dir/a.bin', '\u00ff\u0000bytes');
    const entry = f.before('edit_file', { path: 'dir/a.bin' }, 4);
    expect(entry).toEqual({ seq: 4, tool: 'edit_file', files: { 'dir/a.bin': true } });
    expect(fs.readFileSync(path.join(f.store, '4', 'dir', 'a.bin'))).toEqual(fs.readFileSync(f.at('dir/a.bin')));
  });

  it('records a file that does not exist yet as missing, and an absolute path inside as relative', () => {
    const f = folder();
    expect(f.before('write_file', { path: f.at('new.txt') }, 2)).toEqual({ seq: 2, tool: 'write_file', files: { 'new.txt': false } });
    expect(fs.existsSync(path.join(f.store, '2'))).toBe(false);
  });

  it('records a link as its target, never reading through it', () => {
    const f = folder();
    f.write('real.txt', 'x');
    fs.symlinkSync('real.txt', f.at('link.txt'));
    // The tool resolves the link inside the folder: the file it writes is the link's target.
    expect(f.before('write_file', { path: 'link.txt' }, 3)).toEqual({ seq: 3, tool: 'write_file', files: { 'real.txt': true } });
  });

  it('records nothing for a path outside the folder, a call that is no file tool, a path that is no string, or a folder', () => {
    const f = folder();
    f.write('sub/keep.txt', 'x');
    expect(f.before('write_file', { path: '../outside.txt' }, 1)).toEqual({ seq: 1, tool: 'write_file', files: {} });
    expect(f.before('write_file', { path: '/etc/passwd' }, 2)).toEqual({ seq: 2, tool: 'write_file', files: {} });
    expect(f.before('bash', { path: 'sub/keep.txt', command: 'rm -rf sub' }, 3)).toEqual({ seq: 3, tool: 'bash', files: {} });
    expect(f.before('mcp__fs__write', { path: 'sub/keep.txt' }, 4)).toEqual({ seq: 4, tool: 'mcp__fs__write', files: {} });
    expect(f.before('write_file', { path: 7 }, 5)).toEqual({ seq: 5, tool: 'write_file', files: {} });
    expect(f.before('write_file', {}, 6)).toEqual({ seq: 6, tool: 'write_file', files: {} });
    expect(f.before('write_file', { path: 'sub' }, 7)).toEqual({ seq: 7, tool: 'write_file', files: {} });
    expect(fs.existsSync(f.store)).toBe(false);
  });

  it('records nothing through a link to a folder outside', () => {
    const f = folder();
    const outside = newDir();
    fs.writeFileSync(path.join(outside, 'secret.txt'), 'secret');
    fs.symlinkSync(outside, f.at('out'));
    expect(f.before('write_file', { path: 'out/secret.txt' }, 1)).toEqual({ seq: 1, tool: 'write_file', files: {} });
  });
});

describe('plainStates', () => {
  it('keeps, for each path, its state at the earliest checkpoint after the point', () => {
    const later: PlainEntry[] = [
      { seq: 2, tool: 'write_file', files: { a: false } },
      { seq: 3, tool: 'write_file', files: { a: true, b: true } },
      { seq: 4, tool: 'write_file', files: {}, links: { b: 'x', c: 'y' } },
      { seq: 5, tool: 'write_file', files: { c: true }, links: { a: 'z' } },
    ];
    expect([...plainStates(later, '/store')]).toEqual([
      ['a', { kind: 'missing' }],
      ['b', { kind: 'file', copy: path.join('/store', '3', 'b') }],
      ['c', { kind: 'link', target: 'y' }],
    ]);
    expect(plainStates([], '/store').size).toBe(0);
  });
});

describe('rewind in a plain folder', () => {
  it('a file written twice after the rewind point comes back as it was before the first write', () => {
    const f = folder();
    f.write('a.txt', 'one\n');
    f.before('write_file', { path: 'a.txt' }, 2);
    f.write('a.txt', 'two\n');
    f.before('edit_file', { path: 'a.txt' }, 5);
    f.write('a.txt', 'three\n');
    const preview = plainPreview(f.work, f.after(1), f.store);
    expect(preview.files).toEqual([{ path: 'a.txt', change: 'restore' }]);
    expect(preview.diff).toContain('-three');
    expect(preview.diff).toContain('+one');
    expect(preview.notes).toEqual([]);
    // From between the two writes: the second checkpoint's copy.
    expect(plainPreview(f.work, f.after(3), f.store).diff).toContain('+two');
    plainRewind(f.work, f.after(1), f.store);
    expect(f.read('a.txt')).toBe('one\n');
  });

  it('deletes a file created after the point, recreates one deleted, leaves one unchanged out', () => {
    const f = folder();
    f.write('gone.txt', 'kept\n');
    f.write('same.txt', 'same\n');
    f.before('write_file', { path: 'new.txt' }, 2);
    f.before('edit_file', { path: 'gone.txt' }, 3);
    f.before('edit_file', { path: 'same.txt' }, 4);
    f.write('new.txt', 'created\n');
    fs.rmSync(f.at('gone.txt'));
    const preview = plainPreview(f.work, f.after(1), f.store);
    expect(preview.files).toEqual([
      { path: 'new.txt', change: 'delete' },
      { path: 'gone.txt', change: 'recreate' },
    ]);
    // Each file's diff from now to then, one after the other on their own lines: a file to delete goes to nothing.
    expect(preview.diff).toBe([unifiedDiff('new.txt', 'created\n', ''), unifiedDiff('gone.txt', undefined, 'kept\n')].join('\n'));
    expect(preview.diff).toContain('-created');
    plainRewind(f.work, f.after(1), f.store);
    expect([f.read('new.txt'), f.read('gone.txt'), f.read('same.txt')]).toEqual([undefined, 'kept\n', 'same\n']);
  });

  it('a file that was missing and is missing still is neither listed nor touched', () => {
    const f = folder();
    f.before('write_file', { path: 'never.txt' }, 2);
    expect(plainPreview(f.work, f.after(1), f.store)).toEqual({ files: [], diff: '', notes: [] });
    plainRewind(f.work, f.after(1), f.store);
    expect(f.read('never.txt')).toBeUndefined();
  });

  it("keeps a restored file's mode", () => {
    const f = folder();
    f.write('run.sh', 'echo one\n');
    f.before('write_file', { path: 'run.sh' }, 2);
    f.write('run.sh', 'echo two\n');
    fs.chmodSync(f.at('run.sh'), 0o751);
    plainRewind(f.work, f.after(1), f.store);
    expect(f.read('run.sh')).toBe('echo one\n');
    expect(fs.statSync(f.at('run.sh')).mode & 0o777).toBe(0o751);
  });

  it('a link put where a file was is named in the preview and replaced, never written through', () => {
    const f = folder();
    const outside = newDir();
    fs.writeFileSync(path.join(outside, 'bashrc'), 'theirs\n');
    f.write('a.txt', 'one\n');
    f.before('write_file', { path: 'a.txt' }, 2);
    fs.rmSync(f.at('a.txt'));
    fs.symlinkSync(path.join(outside, 'bashrc'), f.at('a.txt'));
    const preview = plainPreview(f.work, f.after(1), f.store);
    expect(preview.files).toEqual([{ path: 'a.txt', change: 'restore' }]);
    expect(preview.notes).toEqual([`a.txt is now a symbolic link to ${path.join(outside, 'bashrc')}, outside the folder: the rewind replaces it with the file as it was; nothing is written through it.`]);
    expect(preview.diff).toContain(`-(a symbolic link to ${path.join(outside, 'bashrc')}, outside the folder)`);
    plainRewind(f.work, f.after(1), f.store);
    expect(fs.lstatSync(f.at('a.txt')).isFile()).toBe(true);
    expect(f.read('a.txt')).toBe('one\n');
    expect(fs.readFileSync(path.join(outside, 'bashrc'), 'utf8')).toBe('theirs\n');
  });

  it('a link inside the folder where a new file was to be: removed, its target kept', () => {
    const f = folder();
    f.write('target.txt', 'target\n');
    f.before('write_file', { path: 'new.txt' }, 2);
    fs.symlinkSync('target.txt', f.at('new.txt'));
    const preview = plainPreview(f.work, f.after(1), f.store);
    expect(preview.files).toEqual([{ path: 'new.txt', change: 'delete' }]);
    expect(preview.notes).toEqual(['new.txt is now a symbolic link to target.txt: the rewind removes it; nothing is written through it.']);
    plainRewind(f.work, f.after(1), f.store);
    expect(fs.existsSync(f.at('new.txt'))).toBe(false);
    expect(f.read('target.txt')).toBe('target\n');
  });

  it('a folder where a new file was to be is named, and left in place', () => {
    const f = folder();
    f.before('write_file', { path: 'x' }, 2);
    f.write('x/inner.txt', 'inner\n');
    const preview = plainPreview(f.work, f.after(1), f.store);
    expect(preview.files).toEqual([{ path: 'x', change: 'delete' }]);
    expect(preview.notes).toEqual(['x is now a folder: the rewind removes it; nothing is written through it.']);
    expect(preview.diff).toContain('-(a folder)');
    plainRewind(f.work, f.after(1), f.store);
    expect(f.read('x/inner.txt')).toBe('inner\n');
  });

  it('something that is no regular file (a socket) is named as such', async () => {
    const f = folder();
    f.write('p', 'was a file\n');
    f.before('write_file', { path: 'p' }, 2);
    fs.rmSync(f.at('p'));
    // Node makes no FIFO; a Unix socket is another thing that is no regular file.
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(f.at('p'), resolve));
    try {
      const preview = plainPreview(f.work, f.after(1), f.store);
      expect(preview.notes).toEqual(['p is now not a regular file: the rewind replaces it with the file as it was; nothing is written through it.']);
      expect(preview.files).toEqual([{ path: 'p', change: 'restore' }]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('a link recorded at the checkpoint is restored as that link; one unchanged is left out', () => {
    const f = folder();
    const entries: PlainEntry[] = [{ seq: 2, tool: 'write_file', files: {}, links: { 'l.txt': 'elsewhere.txt', 'same.txt': 'to.txt' } }];
    f.write('l.txt', 'a file now\n');
    fs.symlinkSync('to.txt', f.at('same.txt'));
    const preview = plainPreview(f.work, entries, f.store);
    expect(preview.files).toEqual([{ path: 'l.txt', change: 'restore' }]);
    expect(preview.diff).toContain('-a file now');
    expect(preview.diff).toContain('+(a symbolic link to elsewhere.txt)');
    fs.rmSync(f.at('l.txt'));
    expect(plainPreview(f.work, entries, f.store).files).toEqual([{ path: 'l.txt', change: 'recreate' }]);
    fs.mkdirSync(f.at('l.txt'));
    expect(plainPreview(f.work, entries, f.store).diff).toContain('-(a folder)');
    fs.rmdirSync(f.at('l.txt'));
    fs.symlinkSync('other.txt', f.at('l.txt'));
    expect(plainPreview(f.work, entries, f.store).files).toEqual([{ path: 'l.txt', change: 'restore' }]);
    plainRewind(f.work, entries, f.store);
    expect(fs.readlinkSync(f.at('l.txt'))).toBe('elsewhere.txt');
    expect(fs.readlinkSync(f.at('same.txt'))).toBe('to.txt');
  });

  it('a parent folder swapped for a link refuses the whole rewind, changing nothing', () => {
    const f = folder();
    const outside = newDir();
    f.write('a.txt', 'one\n');
    f.write('sub/b.txt', 'b one\n');
    f.before('write_file', { path: 'a.txt' }, 2);
    f.before('write_file', { path: 'sub/b.txt' }, 3);
    f.write('a.txt', 'two\n');
    fs.rmSync(f.at('sub'), { recursive: true });
    fs.writeFileSync(path.join(outside, 'b.txt'), 'theirs\n');
    fs.symlinkSync(outside, f.at('sub'));
    const preview = plainPreview(f.work, f.after(1), f.store);
    expect(preview.files).toEqual([{ path: 'a.txt', change: 'restore' }]);
    expect(preview.notes).toHaveLength(1);
    expect(preview.notes[0]).toMatch(/^sub\/b\.txt cannot be rewound: .+\. The rewind is refused as a whole while it is so: nothing would change\.$/);
    let refused: unknown;
    try {
      plainRewind(f.work, f.after(1), f.store);
    } catch (err) {
      refused = err;
    }
    expect(refused).toBeInstanceOf(DoorError);
    expect((refused as DoorError).message).toMatch(/^rewind refused, nothing was changed: /);
    expect((refused as DoorError).reason).toBeTruthy();
    expect(f.read('a.txt')).toBe('two\n');
    expect(fs.readFileSync(path.join(outside, 'b.txt'), 'utf8')).toBe('theirs\n');
  });
});
