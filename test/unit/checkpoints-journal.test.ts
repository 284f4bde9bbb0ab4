// Checkpoints are kept as a journal (checkpoints.jsonl), one line appended
// per checkpoint: earlier versions rewrote the whole list at every tool call,
// a cost that grew with the session. The list of an older version is still
// read, and a line cut by a crash loses only its own checkpoint.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Checkpoints } from '../../server/workspace/checkpoints.js';
import { tempDir } from '../helpers/temp-dir.js';

function setup() {
  const workDir = tempDir('checkpoints-work');
  const dir = path.join(tempDir('checkpoints-session'), 's1');
  return { workDir, dir, checkpoints: new Checkpoints(dir, workDir, 's1') };
}

describe('checkpoints journal', () => {
  it('appends one line per checkpoint and never rewrites what is there', async () => {
    const { workDir, dir, checkpoints } = setup();
    fs.writeFileSync(path.join(workDir, 'a.txt'), 'one\n');
    await checkpoints.before('write_file', { path: 'a.txt' }, 3);
    const first = fs.readFileSync(path.join(dir, 'checkpoints.jsonl'), 'utf8');
    expect(first.split('\n')).toEqual([JSON.stringify({ seq: 3, files: { 'a.txt': true }, tool: 'write_file' }), '']);
    fs.writeFileSync(path.join(workDir, 'a.txt'), 'two\n');
    await checkpoints.before('edit_file', { path: 'b.txt' }, 7);
    const second = fs.readFileSync(path.join(dir, 'checkpoints.jsonl'), 'utf8');
    expect(second.startsWith(first)).toBe(true);
    expect(second.slice(first.length)).toBe(`${JSON.stringify({ seq: 7, files: { 'b.txt': false }, tool: 'edit_file' })}\n`);
    expect(fs.existsSync(path.join(dir, 'checkpoints.json'))).toBe(false);
    fs.writeFileSync(path.join(workDir, 'a.txt'), 'three\n');
    fs.writeFileSync(path.join(workDir, 'b.txt'), 'new\n');
    const preview = await checkpoints.preview(2);
    expect(preview.files).toEqual([
      { path: 'a.txt', change: 'restore' },
      { path: 'b.txt', change: 'delete' },
    ]);
    expect(await checkpoints.rewind(2)).toEqual(['a.txt', 'b.txt']);
    expect(fs.readFileSync(path.join(workDir, 'a.txt'), 'utf8')).toBe('one\n');
    expect(fs.existsSync(path.join(workDir, 'b.txt'))).toBe(false);
  });

  it("reads an older version's whole list beside the journal", async () => {
    const { workDir, dir, checkpoints } = setup();
    fs.mkdirSync(path.join(dir, 'checkpoints', '2'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'checkpoints', '2', 'old.txt'), 'as it was\n');
    fs.writeFileSync(path.join(dir, 'checkpoints.json'), JSON.stringify([{ seq: 2, files: { 'old.txt': true }, tool: 'write_file' }]));
    fs.writeFileSync(path.join(workDir, 'old.txt'), 'changed\n');
    fs.writeFileSync(path.join(workDir, 'new.txt'), 'before\n');
    await checkpoints.before('write_file', { path: 'new.txt' }, 5);
    fs.writeFileSync(path.join(workDir, 'new.txt'), 'after\n');
    expect((await checkpoints.preview(1)).files).toEqual([
      { path: 'old.txt', change: 'restore' },
      { path: 'new.txt', change: 'restore' },
    ]);
    expect((await checkpoints.preview(3)).files).toEqual([{ path: 'new.txt', change: 'restore' }]);
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'checkpoints.json'), 'utf8'))).toHaveLength(1);
  });

  it('skips a line cut by a crash and keeps the checkpoint appended after it', async () => {
    const { workDir, dir, checkpoints } = setup();
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'checkpoints.jsonl'), '{"seq":4,"files":{"x.t');
    fs.writeFileSync(path.join(workDir, 'c.txt'), 'kept\n');
    await checkpoints.before('write_file', { path: 'c.txt' }, 9);
    fs.writeFileSync(path.join(dir, 'checkpoints.jsonl'), `${fs.readFileSync(path.join(dir, 'checkpoints.jsonl'), 'utf8')}not json at all\n`);
    fs.writeFileSync(path.join(workDir, 'c.txt'), 'changed\n');
    expect((await checkpoints.preview(0)).files).toEqual([{ path: 'c.txt', change: 'restore' }]);
  });
});
