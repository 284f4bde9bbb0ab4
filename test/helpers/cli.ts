// Runs the `skein` CLI in a child process (from the source, through tsx) and
// collects what it prints and how it exits.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { SkeinEvent } from '../../shared/protocol.js';
import { trackChild } from './run-registry.js';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliRun {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  result: Promise<CliResult>;
}

/** The command line that runs the CLI from the source tree. */
export const SOURCE_CLI = [process.execPath, '--import', 'tsx', path.resolve('server/cli/bin.ts')];

export function startCli(args: string[], env: Record<string, string | undefined>, options: { input?: string; command?: string[]; cwd?: string } = {}): CliRun {
  const [bin, ...pre] = options.command ?? SOURCE_CLI;
  // Only what the test gives: no provider key or SKEIN_* setting of the machine leaks in.
  const base = { PATH: process.env.PATH, HOME: process.env.HOME, NODE_OPTIONS: process.env.NODE_OPTIONS };
  const child = trackChild(spawn(bin!, [...pre, ...args], { env: { ...base, ...env }, cwd: options.cwd, stdio: ['pipe', 'pipe', 'pipe'] }), `skein ${args.join(' ')}`);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdin!.end(options.input ?? '');
  const result = new Promise<CliResult>((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
  return { child, stdout: () => stdout, stderr: () => stderr, result };
}

export function runCli(args: string[], env: Record<string, string | undefined>, options: { input?: string; command?: string[]; cwd?: string } = {}): Promise<CliResult> {
  return startCli(args, env, options).result;
}

/** Every stdout line of a --json run, parsed (a line that is not JSON fails the test). */
export function jsonEvents(stdout: string): SkeinEvent[] {
  return stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as SkeinEvent);
}
