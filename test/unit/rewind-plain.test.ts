// Rewind in a folder outside git (server/workspace/checkpoints.ts with
// plain-checkpoints.ts), from the user's side: a file written twice after the
// rewind point comes back as it was at the point (not as it was between the
// two writes), a file made after it goes, and what an MCP tool wrote (no copy
// is taken for it) is not silently left: the preview says it cannot be rewound.
// Each case reads the decision the user is shown (the preview's files and
// notes) and what the rewind reports it restored, then the folder itself.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Checkpoints } from '../../server/workspace/checkpoints.js';
import { tempDir } from '../helpers/temp-dir.js';

function setup() {
  const workDir = tempDir('rewind-plain-work');
  const dir = path.join(tempDir('rewind-plain-session'), 's1');
  const at = (rel: string) => path.join(workDir, rel);
  /** A file tool's call as the agent makes it: the checkpoint first, then the write. */
  const write = async (checkpoints: Checkpoints, seq: number, rel: string, text: string) => {
    await checkpoints.before('write_file', { path: rel, content: text }, seq);
    fs.writeFileSync(at(rel), text);
  };
  return { workDir, at, write, checkpoints: new Checkpoints(dir, workDir, 's1') };
}

describe('rewind outside git', () => {
  it('a file written twice after the point: back to its text at the point; a file made twice after it: removed', async () => {
    const { at, write, checkpoints } = setup();
    fs.writeFileSync(at('notes.md'), 'at the point\n');
    // The rewind point is seq 2; both writes come after it.
    await write(checkpoints, 3, 'notes.md', 'first write\n');
    await write(checkpoints, 5, 'new.md', 'made\n');
    await write(checkpoints, 7, 'notes.md', 'second write\n');
    await write(checkpoints, 9, 'new.md', 'made again\n');
    const preview = await checkpoints.preview(2);
    expect(preview.files).toEqual([
      { path: 'notes.md', change: 'restore' },
      { path: 'new.md', change: 'delete' },
    ]);
    expect(preview.notes).toEqual([]);
    expect(preview.diff).toContain('-second write\n+at the point');
    expect(await checkpoints.rewind(2)).toEqual(['notes.md', 'new.md']);
    expect(fs.readFileSync(at('notes.md'), 'utf8')).toBe('at the point\n');
    expect(fs.existsSync(at('new.md'))).toBe(false);
  });

  it('a rewind to between the two writes: the text the first write left', async () => {
    const { at, write, checkpoints } = setup();
    fs.writeFileSync(at('notes.md'), 'at the start\n');
    await write(checkpoints, 3, 'notes.md', 'first write\n');
    await write(checkpoints, 7, 'notes.md', 'second write\n');
    expect(await checkpoints.rewind(5)).toEqual(['notes.md']);
    expect(fs.readFileSync(at('notes.md'), 'utf8')).toBe('first write\n');
  });

  it('a file an MCP tool wrote after the point: the preview says it cannot be rewound, and the rewind leaves it as the note said', async () => {
    const { at, write, checkpoints } = setup();
    fs.writeFileSync(at('notes.md'), 'at the point\n');
    await write(checkpoints, 3, 'notes.md', 'by write_file\n');
    // An MCP tool's call: its checkpoint names no file (its arguments are the server's own), then it writes.
    await checkpoints.before('mcp__files__write', { target: 'notes.md', text: 'by mcp' }, 5);
    fs.writeFileSync(at('mcp-out.txt'), 'by mcp\n');
    const preview = await checkpoints.preview(2);
    expect(preview.notes[0]).toBe('Not a git folder: what mcp__files__write changed after this point cannot be rewound, only the files write_file and edit_file touched.');
    expect(preview.files).toEqual([{ path: 'notes.md', change: 'restore' }]);
    expect(await checkpoints.rewind(2)).toEqual(['notes.md']);
    expect(fs.readFileSync(at('notes.md'), 'utf8')).toBe('at the point\n');
    expect(fs.readFileSync(at('mcp-out.txt'), 'utf8')).toBe('by mcp\n');
  });
});
