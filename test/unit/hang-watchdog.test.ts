// A synchronous spin ends the test process with a message instead of hanging
// (test/helpers/hang-watchdog.ts), and a process that keeps turning its event
// loop is left alone.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const WATCHDOG = path.resolve('test/helpers/hang-watchdog.ts');

/** Runs `body` in a fresh node with the watchdog armed; resolves with how it ended. */
function run(body: string, env: Record<string, string>): Promise<{ signal: NodeJS.Signals | null; code: number | null; stderr: string; ms: number }> {
  const started = Date.now();
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', `const { armHangWatchdog } = await import(${JSON.stringify(WATCHDOG)}); armHangWatchdog(); ${body}`], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += String(d)));
  return new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal, stderr, ms: Date.now() - started })));
}

describe('the hang watchdog', () => {
  it('kills a process whose event loop a synchronous loop blocks, saying why', async () => {
    const ended = await run('setTimeout(() => { for (;;) {} }, 50);', { SKEIN_TEST_BLOCKED_MS: '1500' });
    expect(ended.signal).toBe('SIGKILL');
    expect(ended.stderr).toMatch(/\[hang watchdog\] killing test process \d+: its event loop has not turned for \d+ s: a synchronous spin/);
  });

  it('kills a file that runs longer than its limit, and leaves a process that turns its loop alone until then', async () => {
    const ended = await run('setInterval(() => {}, 100);', { SKEIN_TEST_BLOCKED_MS: '1500', SKEIN_TEST_FILE_MS: '3000' });
    expect(ended.signal).toBe('SIGKILL');
    expect(ended.stderr).toMatch(/one test file has run for \d+ s, more than the 3 s a file may take/);
    expect(ended.stderr).not.toMatch(/synchronous spin/);
    // The file's clock is kept in whole seconds (a shared Int32): it may fire up to a second early, never before 2 s.
    expect(ended.ms).toBeGreaterThanOrEqual(2000);
  });

  it('does not keep a finished process alive', async () => {
    const ended = await run('await new Promise((r) => setTimeout(r, 100));', { SKEIN_TEST_BLOCKED_MS: '1500' });
    expect(ended).toMatchObject({ code: 0, signal: null, stderr: '' });
  });
});
