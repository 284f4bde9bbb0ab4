// Programs started from the worker thread (spawn/off-loop.ts). git's
// commands get what execFile gives: output, exit code, stderr, a program that
// cannot start, the folder and environment asked for. A tool's command gets
// its pid as the leader of its own group, its exit, and its output bounded in
// memory, also when a background job keeps the pipes open.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { execOffLoop, runOffLoop, type RunRequest } from '../../server/spawn/off-loop.js';
import { tempDir } from '../helpers/temp-dir.js';

const sh = '/bin/sh';

describe("git's commands in the worker", () => {
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

function request(script: string, overrides: Partial<RunRequest> = {}): RunRequest {
  return { file: sh, args: ['-c', script], cwd: tempDir('off-loop-run'), env: { PATH: process.env.PATH }, memoryLimit: 1 << 20, quietMs: 250, maxAfterExitMs: 2000, ...overrides };
}

describe("a tool's command in the worker", () => {
  it('reports its pid (a group of its own, signalled from this thread) before its exit, then its output', async () => {
    const seen: string[] = [];
    let group = -1;
    const outcome = await runOffLoop(request('echo out; echo err >&2; echo "$$ $(ps -o pgid= -p $$)"; exit 4'), {
      spawned(pid) {
        seen.push('spawned');
        group = pid;
      },
      exited: () => seen.push('exit'),
    });
    expect(seen).toEqual(['spawned', 'exit']);
    expect(outcome.code).toBe(4);
    expect(outcome.startError).toBeUndefined();
    const [pid, pgid] = outcome.text.trim().split('\n').at(-1)!.trim().split(/\s+/).map(Number);
    expect([pid, pgid]).toEqual([group, group]);
    expect(outcome.text).toContain('out\n');
    expect(outcome.text).toContain('err\n');
  });

  it('is killed from this thread by its group: 128 for a signal', async () => {
    const outcome = await runOffLoop(request('sleep 30'), { spawned: (pid) => process.kill(-pid, 'SIGKILL'), exited() {} });
    expect(outcome).toEqual({ text: '', code: 128 });
  });

  it('keeps the head and the tail of a flood within its memory limit', async () => {
    const outcome = await runOffLoop(request('seq 1 200000', { memoryLimit: 64 * 1024 }), { spawned() {}, exited() {} });
    expect(outcome.code).toBe(0);
    expect(outcome.text.startsWith('1\n2\n')).toBe(true);
    expect(outcome.text.endsWith('199999\n200000\n')).toBe(true);
    const dropped = Number(/\[\.\.\. (\d+) bytes dropped \.\.\.\]/.exec(outcome.text)?.[1]);
    expect(dropped).toBeGreaterThan(1_000_000);
    expect(outcome.text.length).toBeLessThan(200 * 1024);
  });

  it('returns once a background job holding its pipes has been quiet, not when the job ends', async () => {
    let group = -1;
    const t0 = performance.now();
    const outcome = await runOffLoop(request('echo started; sleep 30 &', { quietMs: 100, maxAfterExitMs: 5000 }), { spawned: (pid) => (group = pid), exited() {} });
    expect(performance.now() - t0).toBeLessThan(20_000);
    expect(outcome).toEqual({ text: 'started\n', code: 0 });
    process.kill(-group, 'SIGKILL');
  });

  it('says why a program could not start, with code 127 and no pid', async () => {
    let spawned = false;
    const outcome = await runOffLoop(request('', { file: path.join(tempDir('off-loop-none'), 'no-such-bash'), args: [] }), { spawned: () => (spawned = true), exited() {} });
    expect(outcome.code).toBe(127);
    expect(outcome.startError).toMatch(/ENOENT/);
    expect(spawned).toBe(false);
    const invalid = await runOffLoop(request('', { file: sh, args: ['-c', 'echo \0'] }), { spawned() {}, exited() {} });
    expect(invalid.code).toBe(127);
    expect(invalid.startError).toMatch(/null bytes/);
  });
});
