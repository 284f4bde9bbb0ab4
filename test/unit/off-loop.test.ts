// Programs started by the spawn host (spawn/off-loop.ts), a process of its own. git's
// commands get what execFile gives: output, exit code, stderr, a program that
// cannot start, the folder and environment asked for. A tool's command gets
// its pid as the leader of its own group, its exit, and its output bounded in
// memory, also when a background job keeps the pipes open.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { execOffLoop, runOffLoop, type RunRequest } from '../../server/spawn/off-loop.js';
import { pidIn, untilGone } from '../helpers/processes.js';
import { tempDir } from '../helpers/temp-dir.js';

const sh = '/bin/sh';

describe("git's commands in the spawn host", () => {
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

describe("a tool's command in the spawn host", () => {
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

/** The parent of `pid`, from /proc. */
const parentOf = (pid: number) => {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
};

describe('the spawn host', () => {
  it('starts programs from a process of its own, never this one (its forks hold no memory map of the server)', async () => {
    const outcome = await runOffLoop(request('echo $PPID'), { spawned() {}, exited() {} });
    expect(outcome.code).toBe(0);
    const parent = Number(outcome.text.trim());
    expect(parent).not.toBe(process.pid);
    // The host is this process's child, running node.
    expect(parentOf(parent)).toBe(process.pid);
    expect(fs.readlinkSync(`/proc/${parent}/exe`)).toBe(fs.realpathSync(process.execPath));
    // git's commands start there too.
    const git = await execOffLoop(sh, ['-c', 'echo $PPID'], { env: {} });
    expect(Number(git.stdout.trim())).toBe(parent);
  });

  it('a host that dies fails what it was running with the reason, and the next program gets a new host', async () => {
    let host = -1;
    let group = -1;
    const outcome = await runOffLoop(request('sleep 30'), {
      spawned(pid) {
        group = pid;
        host = parentOf(pid);
        process.kill(host, 'SIGKILL');
      },
      exited() {},
    });
    expect(outcome.code).toBe(127);
    expect(outcome.startError).toMatch(/the process that starts programs exited \(SIGKILL\)/);
    process.kill(-group, 'SIGKILL');
    const pending = execOffLoop(sh, ['-c', 'echo $PPID'], { env: {} });
    const next = await pending;
    expect(next.code).toBe(0);
    expect(Number(next.stdout.trim())).not.toBe(host);
  });

  it('keeps no process alive once idle: a script that ran a program ends by itself', () => {
    const module = path.resolve('server/spawn/off-loop.ts');
    const script = `import(${JSON.stringify(module)}).then((m) => m.execOffLoop('/bin/sh', ['-c', 'echo ran'], { env: {} })).then((r) => console.log(r.stdout.trim()))`;
    const ended = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { encoding: 'utf8', timeout: 20_000 });
    expect(ended.error).toBeUndefined();
    expect(ended.stdout.trim()).toBe('ran');
    expect(ended.status).toBe(0);
  });

  it("carries none of the server's own environment (NODE_OPTIONS, secrets): each program gets only what its caller passes", async () => {
    process.env.SKEIN_TEST_HOST_SECRET = 'do-not-leak';
    try {
      const host = Number((await runOffLoop(request('echo $PPID'), { spawned() {}, exited() {} })).text.trim());
      const environ = fs.readFileSync(`/proc/${host}/environ`, 'utf8').split('\0').filter(Boolean).map((e) => e.split('=')[0]);
      expect(environ).not.toContain('SKEIN_TEST_HOST_SECRET');
      expect(environ).not.toContain('NODE_OPTIONS');
      const child = await execOffLoop(sh, ['-c', 'env'], { env: { ONLY: 'this' } });
      expect(child.stdout).toContain('ONLY=this');
      expect(child.stdout).not.toContain('do-not-leak');
    } finally {
      delete process.env.SKEIN_TEST_HOST_SECRET;
    }
  });

  it('ends when the server is killed outright, and a sandbox started with --die-with-parent ends with it', async () => {
    const pidFile = path.join(tempDir('off-loop-killed'), 'pid');
    const module = path.resolve('server/spawn/off-loop.ts');
    // A server stand-in: starts a sandboxed sleep through the host and writes the sleep's pid (as seen outside).
    const script = `import(${JSON.stringify(module)}).then((m) => m.runOffLoop({ file: 'bwrap', args: ['--die-with-parent', '--unshare-pid', '--dev-bind', '/', '/', 'sleep', '300'], cwd: '/', env: { PATH: process.env.PATH }, memoryLimit: 1000, quietMs: 100, maxAfterExitMs: 500 }, { spawned: (pid) => require('node:fs').writeFileSync(${JSON.stringify(pidFile)}, String(pid)), exited() {} }))`;
    const server = spawn(process.execPath, ['--import', 'tsx', '-e', script], { stdio: 'ignore' });
    const bwrap = await pidIn(pidFile, 30_000);
    const host = parentOf(bwrap);
    expect(parentOf(host)).toBe(server.pid);
    server.kill('SIGKILL');
    await untilGone(host);
    await untilGone(bwrap);
  });
});
