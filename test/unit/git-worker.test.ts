// Programs started from git's worker thread (workspace/git-worker.ts) give
// what execFile gives: output, exit code, stderr, a program that cannot start,
// the folder and environment asked for.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { execOffLoop } from '../../server/workspace/git-worker.js';
import { tempDir } from '../helpers/temp-dir.js';

const sh = '/bin/sh';

describe("git's worker", () => {
  it('gives stdout, stderr and the exit code, in the folder and environment asked for', async () => {
    const dir = fs.realpathSync(tempDir('git-worker'));
    const ok = await execOffLoop(sh, ['-c', 'pwd; echo "$ONLY_HERE"; echo oops >&2'], { cwd: dir, env: { PATH: process.env.PATH, ONLY_HERE: 'set' } });
    expect(ok).toEqual({ stdout: `${dir}\nset\n`, stderr: 'oops\n', code: 0 });
    const failed = await execOffLoop(sh, ['-c', 'echo partial; exit 3'], { env: {} });
    expect(failed).toMatchObject({ stdout: 'partial\n', code: 3 });
  });

  it('says why a program could not start, and several run at once', async () => {
    const missing = await execOffLoop(path.join(tempDir('git-worker-none'), 'no-such-git'), ['--version'], { env: {} });
    expect(missing.code).toBe(-1);
    expect(missing.message).toMatch(/ENOENT/);
    const many = await Promise.all([1, 2, 3, 4].map((n) => execOffLoop(sh, ['-c', `echo ${n}`], { env: {} })));
    expect(many.map((r) => r.stdout)).toEqual(['1\n', '2\n', '3\n', '4\n']);
  });

});
