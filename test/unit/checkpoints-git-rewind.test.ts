// Rewind in a git folder through Checkpoints: what an MCP tool wrote (a call
// skein cannot follow file by file) is put back from the checkpoint's commit,
// and a file written twice after the rewind point comes back as it was
// before the first write. A file created after the point is deleted.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Checkpoints } from '../../server/workspace/checkpoints.js';
import { tempDirsPerTest } from '../helpers/temp-dir.js';

const newDir = tempDirsPerTest('checkpoints-git');

function repository() {
  const work = newDir();
  execFileSync('git', ['init', '-q', work]);
  fs.writeFileSync(path.join(work, 'a.txt'), 'one\n');
  return { work, checkpoints: new Checkpoints(path.join(newDir(), 's1'), work, 's1'), at: (rel: string) => path.join(work, rel) };
}

describe('rewind in a git folder', () => {
  it("puts back what an MCP tool wrote, a file written twice as it was before the first write, and deletes one created", async () => {
    const { checkpoints, at } = repository();
    await checkpoints.before('mcp__fs__write', { path: 'a.txt' }, 2);
    fs.writeFileSync(at('a.txt'), 'two\n');
    fs.writeFileSync(at('made-by-mcp.txt'), 'new\n');
    await checkpoints.before('write_file', { path: 'a.txt' }, 4);
    fs.writeFileSync(at('a.txt'), 'three\n');
    const preview = await checkpoints.preview(1);
    expect(preview.files).toEqual([
      { path: 'a.txt', change: 'restore' },
      { path: 'made-by-mcp.txt', change: 'delete' },
    ]);
    expect(preview.notes).toEqual([]);
    // From between the two writes: the second checkpoint.
    expect((await checkpoints.preview(3)).files).toEqual([{ path: 'a.txt', change: 'restore' }]);
    expect(await checkpoints.rewind(1)).toEqual(['a.txt', 'made-by-mcp.txt']);
    expect(fs.readFileSync(at('a.txt'), 'utf8')).toBe('one\n');
    expect(fs.existsSync(at('made-by-mcp.txt'))).toBe(false);
  });

  it('recreates a file an MCP tool deleted', async () => {
    const { checkpoints, at } = repository();
    await checkpoints.before('mcp__fs__delete', { path: 'a.txt' }, 2);
    fs.rmSync(at('a.txt'));
    expect((await checkpoints.preview(1)).files).toEqual([{ path: 'a.txt', change: 'recreate' }]);
    await checkpoints.rewind(1);
    expect(fs.readFileSync(at('a.txt'), 'utf8')).toBe('one\n');
  });
});
