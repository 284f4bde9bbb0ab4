import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { killAllToolProcesses } from '../../server/tools/processes.js';
import { runTool } from '../../server/tools/registry.js';
import type { ToolContext } from '../../server/tools/tool.js';
import { pidIn, untilGone } from '../helpers/processes.js';
import { tempDir } from '../helpers/temp-dir.js';

function ctx(overrides: Partial<ToolContext> = {}): ToolContext {
  return { workDir: tempDir('tools'), signal: new AbortController().signal, bashTimeoutMs: 10_000, outputLimit: 1000, ...overrides };
}

describe('bash', () => {
  it('runs in the working folder and reports the exit code', async () => {
    const c = ctx();
    const ok = await runTool('bash', { command: 'pwd' }, c);
    expect(ok.output).toBe(`exit code: 0\n${fs.realpathSync(c.workDir)}`);
    const bad = await runTool('bash', { command: 'echo oops >&2; exit 3' }, c);
    expect(bad).toEqual({ output: 'exit code: 3\noops', isError: true });
  });

  it('kills a hanging command and its children at the timeout', async () => {
    const c = ctx({ bashTimeoutMs: 1000 });
    const marker = path.join(c.workDir, 'child-alive');
    const pidFile = path.join(c.workDir, 'child.pid');
    const started = Date.now();
    const result = await runTool('bash', { command: `(sleep 2; touch ${marker}) & echo $! > ${pidFile}; sleep 30` }, c);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(result.isError).toBe(true);
    expect(result.output).toContain('killed: timed out after 1000 ms');
    // The background child died with the group: it is gone, and never got to its touch.
    await untilGone(await pidIn(pidFile));
    expect(fs.existsSync(marker)).toBe(false);
  });

  it('returns a large output whole (the agent caps it, see result-cap)', async () => {
    const result = await runTool('bash', { command: 'seq 1 200000' }, ctx({ outputLimit: 2000 }));
    expect(result.output.startsWith('exit code: 0\n1\n2\n3\n')).toBe(true);
    expect(result.output.endsWith('\n200000')).toBe(true);
  });

  it('decodes a UTF-8 character split across two reads whole, also with stderr in between', async () => {
    // The first half of "€" (e2 82 ac), a pause so it arrives as its own read, stderr, then the rest.
    const result = await runTool('bash', { command: "printf 'a\\xe2\\x82'; sleep 0.3; echo err >&2; sleep 0.3; printf '\\xacb\\n'" }, ctx());
    expect(result.output).not.toContain('\uFFFD');
    expect(result.output).toBe('exit code: 0\naerr\n€b');
  });

  it('returns when bash exits although a background job still holds its output', async () => {
    const c = ctx();
    const started = Date.now();
    const result = await runTool('bash', { command: 'echo started; sleep 30 &' }, c);
    expect(result).toEqual({ output: 'exit code: 0\nstarted', isError: false });
    expect(Date.now() - started).toBeLessThan(8000); // not the 10 s timeout
    killAllToolProcesses();
  });

  it('stops when cancelled', async () => {
    const abort = new AbortController();
    const pending = runTool('bash', { command: 'sleep 30' }, ctx({ signal: abort.signal }));
    setTimeout(() => abort.abort(), 100);
    expect((await pending).output).toContain('killed: cancelled');
  });
});

describe('file tools', () => {
  it('write, read and edit inside the working folder', async () => {
    const c = ctx();
    expect((await runTool('write_file', { path: 'src/a.txt', content: 'hello world\nline 2\n' }, c)).isError).toBe(false);
    expect((await runTool('read_file', { path: 'src/a.txt' }, c)).output).toBe('hello world\nline 2\n');
    expect((await runTool('read_file', { path: 'src/a.txt', offset: 2, limit: 1 }, c)).output).toBe('line 2');
    expect(await runTool('edit_file', { path: 'src/a.txt', old: 'world', new: 'there' }, c)).toEqual({
      output: 'replaced 1 occurrence in src/a.txt\n--- a/src/a.txt\n+++ b/src/a.txt\n@@ -1,2 +1,2 @@\n-hello world\n+hello there\n line 2',
      isError: false,
    });
    expect(fs.readFileSync(path.join(c.workDir, 'src/a.txt'), 'utf8')).toBe('hello there\nline 2\n');
  });

  it('edit_file refuses a missing or ambiguous old string without changing the file', async () => {
    const c = ctx();
    fs.writeFileSync(path.join(c.workDir, 'b.txt'), 'x x');
    expect((await runTool('edit_file', { path: 'b.txt', old: 'y', new: 'z' }, c)).isError).toBe(true);
    expect((await runTool('edit_file', { path: 'b.txt', old: 'x', new: 'z' }, c)).output).toContain('occurs 2 times');
    expect(fs.readFileSync(path.join(c.workDir, 'b.txt'), 'utf8')).toBe('x x');
    expect((await runTool('edit_file', { path: 'b.txt', old: 'x', new: 'z', replace_all: true }, c)).isError).toBe(false);
    expect(fs.readFileSync(path.join(c.workDir, 'b.txt'), 'utf8')).toBe('z z');
  });

  it('refuses paths outside the working folder, symlinks included', async () => {
    const c = ctx();
    const outside = tempDir('outside');
    fs.writeFileSync(path.join(outside, 'secret.txt'), 'secret');
    fs.symlinkSync(outside, path.join(c.workDir, 'link'));
    for (const p of ['../x.txt', '/etc/passwd', 'link/secret.txt', 'link/new.txt']) {
      const read = await runTool('read_file', { path: p }, c);
      const write = await runTool('write_file', { path: p, content: 'pwned' }, c);
      expect(read.isError, p).toBe(true);
      expect(read.output).toContain('outside the working folder');
      expect(write.isError, p).toBe(true);
    }
    expect(fs.existsSync(path.join(outside, 'new.txt'))).toBe(false);
  });

  it('refuses every way a link can lead out: dangling, parent component, chains, `..` after a link', async () => {
    const c = ctx();
    const work = c.workDir;
    const outside = tempDir('outside');
    fs.mkdirSync(path.join(outside, 'dir'));
    fs.writeFileSync(path.join(outside, 'secret.txt'), 'secret');
    fs.mkdirSync(path.join(work, 'sub'));
    fs.symlinkSync(path.join(outside, 'created-by-dangling.txt'), path.join(work, 'dangling')); // target missing
    fs.symlinkSync(path.join(outside, 'dir'), path.join(work, 'outdir'));
    fs.symlinkSync('outdir', path.join(work, 'chain1')); // chain1 -> outdir -> outside/dir
    fs.symlinkSync('chain1', path.join(work, 'chain2'));
    fs.symlinkSync(path.join(outside, 'dir', 'deeper-missing.txt'), path.join(work, 'sub', 'dangling2'));
    const escapes = [
      ['dangling', path.join(outside, 'created-by-dangling.txt')],
      ['outdir/new.txt', path.join(outside, 'dir', 'new.txt')],
      ['chain2/new.txt', path.join(outside, 'dir', 'new.txt')],
      ['chain2', path.join(outside, 'dir')],
      ['outdir/../secret.txt', path.join(outside, 'secret.txt')], // `..` after a link: the link's parent, outside
      ['outdir/../new.txt', path.join(outside, 'new.txt')],
      ['missing/../dangling', path.join(outside, 'created-by-dangling.txt')],
      ['sub/dangling2', path.join(outside, 'dir', 'deeper-missing.txt')],
      [path.join(work, 'dangling'), path.join(outside, 'created-by-dangling.txt')],
    ] as const;
    for (const [p, target] of escapes) {
      for (const tool of ['write_file', 'read_file', 'edit_file'] as const) {
        const result = await runTool(tool, { path: p, content: 'pwned', old: 'secret', new: 'pwned' }, c);
        expect(result.isError, `${tool} ${p}`).toBe(true);
        expect(result.output, `${tool} ${p}`).toContain('outside the working folder');
      }
      expect(fs.existsSync(target) && fs.statSync(target).isFile() ? fs.readFileSync(target, 'utf8') : 'absent', p).toMatch(/^(absent|secret)$/);
    }
    expect(fs.readdirSync(path.join(outside, 'dir'))).toEqual([]);
    expect(fs.readdirSync(outside).sort()).toEqual(['dir', 'secret.txt']);
  });

  it('follows links that stay inside the folder', async () => {
    const c = ctx();
    fs.mkdirSync(path.join(c.workDir, 'real'));
    fs.symlinkSync('real', path.join(c.workDir, 'alias'));
    fs.symlinkSync(path.join(c.workDir, 'real', 'later.txt'), path.join(c.workDir, 'dangling-inside'));
    expect((await runTool('write_file', { path: 'alias/a.txt', content: 'one' }, c)).isError).toBe(false);
    expect(fs.readFileSync(path.join(c.workDir, 'real', 'a.txt'), 'utf8')).toBe('one');
    expect((await runTool('write_file', { path: 'dangling-inside', content: 'two' }, c)).isError).toBe(false);
    expect(fs.readFileSync(path.join(c.workDir, 'real', 'later.txt'), 'utf8')).toBe('two');
    expect((await runTool('read_file', { path: 'alias/../alias/a.txt' }, c)).output).toBe('one');
    expect((await runTool('edit_file', { path: 'alias/a.txt', old: 'one', new: 'three' }, c)).isError).toBe(false);
    expect(fs.readFileSync(path.join(c.workDir, 'real', 'a.txt'), 'utf8')).toBe('three');
  });

  it('applies the same rule inside the saved-outputs folder', async () => {
    const outputs = tempDir('outputs');
    const outside = tempDir('outside');
    fs.writeFileSync(path.join(outside, 'secret.txt'), 'secret');
    fs.writeFileSync(path.join(outputs, '7-call.txt'), 'saved output');
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(outputs, '8-call.txt'));
    fs.symlinkSync(outside, path.join(outputs, 'dir'));
    const c = ctx({ readRoots: [outputs] });
    expect((await runTool('read_file', { path: path.join(outputs, '7-call.txt') }, c)).output).toBe('saved output');
    for (const p of ['8-call.txt', 'dir/secret.txt', 'dir/../secret.txt']) {
      const result = await runTool('read_file', { path: `${outputs}/${p}` }, c); // not path.join: it would fold the `..`
      expect(result.isError, p).toBe(true);
      expect(result.output).not.toContain('secret\n');
      expect(result.output).toContain('outside the working folder');
    }
  });

  it('refuses a FIFO, a socket and a directory at once instead of hanging', async () => {
    const c = ctx();
    execFileSync('mkfifo', [path.join(c.workDir, 'fifo')]);
    const server = net.createServer().listen(path.join(c.workDir, 'sock'));
    await new Promise((r) => server.once('listening', r));
    fs.mkdirSync(path.join(c.workDir, 'dir'));
    try {
      for (const [p, what] of [['fifo', 'a FIFO'], ['sock', 'socket'], ['dir', 'a directory']] as const) {
        for (const tool of ['read_file', 'write_file', 'edit_file']) {
          const result = await runTool(tool, { path: p, content: 'x', old: 'a', new: 'b' }, c);
          expect(result.isError, `${tool} ${p}`).toBe(true);
          expect(result.output, `${tool} ${p}`).toMatch(new RegExp(`${what}.*not a regular file`));
        }
      }
    } finally {
      server.close();
    }
  });

  it('read_file reads only what it needs: a huge file stops at the output limit and says where to go on', async () => {
    const c = ctx({ outputLimit: 1000 });
    const file = path.join(c.workDir, 'huge.txt');
    // 100 MiB, sparse: reading it whole would take seconds and memory; a bounded read does not.
    fs.writeFileSync(file, Array.from({ length: 200 }, (_, i) => `line ${i + 1}`).join('\n') + '\n');
    fs.truncateSync(file, 100 * 1024 * 1024);
    const result = await runTool('read_file', { path: 'huge.txt' }, c);
    expect(result.isError).toBe(false);
    expect(result.output.startsWith('line 1\nline 2\n')).toBe(true);
    expect(result.output).toMatch(/read_file stopped in line \d+: the output is capped at 1000 characters\. Continue with offset=\d+/);
    expect(result.output.length).toBeLessThan(1300);
    const next = Number(/offset=(\d+)/.exec(result.output)![1]);
    expect((await runTool('read_file', { path: 'huge.txt', offset: next, limit: 2 }, c)).output).toBe(`line ${next}\nline ${next + 1}`);
    // Far into the zeros: the scan stops at its bound instead of reading 100 MiB.
    const deep = await runTool('read_file', { path: 'huge.txt', offset: 500 }, ctx({ workDir: c.workDir, outputLimit: 100_000_000 }));
    expect(deep.output).toContain('read_file stopped after reading 64 MiB');
  });

  it('read_file stops when cancelled', async () => {
    const abort = new AbortController();
    const c = ctx({ signal: abort.signal });
    fs.writeFileSync(path.join(c.workDir, 'a.txt'), 'text');
    abort.abort();
    const result = await runTool('read_file', { path: 'a.txt' }, c);
    expect(result).toEqual({ output: 'read_file failed: cancelled', isError: true });
  });

  it('answers an unknown tool or bad input with an error result', async () => {
    expect((await runTool('nope', {}, ctx())).output).toContain('unknown tool "nope"');
    expect((await runTool('bash', { command: 42 }, ctx())).output).toContain('"command" must be a string');
  });
});
