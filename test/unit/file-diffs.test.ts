// write_file and edit_file results carry a unified diff of what they changed, capped.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DIFF_MAX_LINES, unifiedDiff } from '../../server/tools/diff.js';
import { runTool } from '../../server/tools/registry.js';
import type { ToolContext } from '../../server/tools/tool.js';
import { tempDir } from '../helpers/temp-dir.js';

function ctx(): ToolContext {
  return { workDir: tempDir('diffs'), signal: new AbortController().signal, bashTimeoutMs: 10_000, outputLimit: 50_000 };
}

describe('diffs in file tool results', () => {
  it('a new file is all additions from /dev/null; an overwrite shows removed and added lines with context', async () => {
    const c = ctx();
    const created = await runTool('write_file', { path: 'a.py', content: 'one\ntwo\n' }, c);
    expect(created).toEqual({ output: 'wrote 8 bytes to a.py\n--- /dev/null\n+++ b/a.py\n@@ -0,0 +1,2 @@\n+one\n+two', isError: false });
    const lines = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`);
    await runTool('write_file', { path: 'a.py', content: `${lines.join('\n')}\n` }, c);
    lines[9] = 'line ten';
    const changed = await runTool('write_file', { path: 'a.py', content: `${lines.join('\n')}\n` }, c);
    expect(changed.output).toBe(
      ['wrote 152 bytes to a.py', '--- a/a.py', '+++ b/a.py', '@@ -7,7 +7,7 @@', ' line 7', ' line 8', ' line 9', '-line 10', '+line ten', ' line 11', ' line 12', ' line 13'].join('\n'),
    );
    const same = await runTool('write_file', { path: 'a.py', content: `${lines.join('\n')}\n` }, c);
    expect(same.output).toBe('wrote 152 bytes to a.py\n(no changes: the file already had this content)');
  });

  it('edit_file with replace_all shows every changed place', async () => {
    const c = ctx();
    fs.writeFileSync(path.join(c.workDir, 'b.txt'), `x = 1\n${'filler\n'.repeat(10)}x = 2\n`);
    const result = await runTool('edit_file', { path: 'b.txt', old: 'x =', new: 'y =', replace_all: true }, c);
    expect(result.output.split('\n').filter((l) => /^[-+][^-+]/.test(l))).toEqual(['-x = 1', '+y = 1', '-x = 2', '+y = 2']);
    expect(result.output.match(/^@@/gm)).toHaveLength(2);
  });

  it('a huge diff is cut with a notice; a huge file gets a note instead', async () => {
    const big = Array.from({ length: 1000 }, (_, i) => `row ${i}\n`).join('');
    const diff = unifiedDiff('big.txt', undefined, big);
    const lines = diff.split('\n');
    expect(lines).toHaveLength(DIFF_MAX_LINES + 1);
    expect(lines.at(-1)).toBe(`[diff cut: ${1000 + 3 - DIFF_MAX_LINES} more lines not shown; read_file shows the file]`);
    const c = ctx();
    fs.writeFileSync(path.join(c.workDir, 'huge.txt'), 'a'.repeat(3_000_000));
    const result = await runTool('write_file', { path: 'huge.txt', content: 'small now\n' }, c);
    expect(result.output).toBe('wrote 10 bytes to huge.txt\n(no diff: the file is larger than 2,000,000 characters)');
  });
});
