// The test run's registry of what it started: one small JSON file per
// PostgreSQL cluster, child process or temporary folder, in the run's folder
// (SKEIN_TEST_RUN_DIR, made by test/helpers/global-setup.ts), deleted when the
// resource is stopped. What is still listed when the run ends was left behind
// (leftovers.ts names it, stops it and fails the run); the folder of a run that
// was killed is swept by the next run. Without SKEIN_TEST_RUN_DIR (a bench
// run with tsx, the mutation config) nothing is recorded.
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface Resource {
  kind: 'postgres' | 'process' | 'folder';
  /** What it is, for the message that names it. */
  what: string;
  /** A process (for a cluster: its postmaster). */
  pid?: number;
  /** The process's start time (/proc/<pid>/stat): a pid reused by someone else's process is not ours. */
  started?: string;
  /** A folder to remove (for a cluster: the folder of its data, log and socket). */
  path?: string;
}

/** Where every run keeps its registry: one folder per run, named by the vitest main process. */
export function registryRoot(): string {
  return path.join(os.tmpdir(), 'skein-test-runs');
}

/** The start time of a running process, in clock ticks since boot; undefined when it does not run. */
export function startTime(pid: number): string | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[0] === 'Z' ? undefined : fields[19];
  } catch {
    return undefined;
  }
}

/** Whether the recorded process still runs: the same pid and the same start time. */
export function stillRuns(pid: number, started: string | undefined): boolean {
  const now = startTime(pid);
  return now !== undefined && now === started;
}

let counter = 0;

/** Records a resource in `runDir` (the current run's by default); the returned function forgets it. */
export function register(resource: Resource, runDir = process.env.SKEIN_TEST_RUN_DIR): () => void {
  if (!runDir) return () => {};
  fs.mkdirSync(runDir, { recursive: true });
  const file = path.join(runDir, `${resource.kind}-${process.pid}-${++counter}.json`);
  fs.writeFileSync(file, JSON.stringify(resource));
  return () => fs.rmSync(file, { force: true });
}

const tracked = globalThis as typeof globalThis & { skeinChildren?: Set<ChildProcess>; skeinPids?: Map<number, string | undefined> };

/** A child process of a test: recorded until it exits, and killed at the end of its test file if it still runs then (setup.ts). */
export function trackChild(child: ChildProcess, what: string): ChildProcess {
  if (child.pid === undefined) return child; // it did not start: its 'error' says why
  const forget = register({ kind: 'process', what, pid: child.pid, started: startTime(child.pid) });
  const children = (tracked.skeinChildren ??= new Set());
  children.add(child);
  child.once('exit', () => {
    children.delete(child);
    forget();
  });
  return child;
}

/** The pids of this process's children whose command name is `name` (e.g. the chromium Playwright started). */
export function childrenNamed(name: string): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === process.pid && comm === name) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/** A process started for a test by a library (no ChildProcess of ours): recorded; the returned function forgets it once it is closed. */
export function trackPid(pid: number, what: string): () => void {
  const started = startTime(pid);
  const forget = register({ kind: 'process', what, pid, started });
  const pids = (tracked.skeinPids ??= new Map());
  pids.set(pid, started);
  return () => {
    pids.delete(pid);
    forget();
  };
}

/** Kills the test file's children that still run and waits until they are gone. */
export async function killChildren(): Promise<void> {
  for (const [pid, started] of tracked.skeinPids ?? []) {
    if (stillRuns(pid, started)) process.kill(pid, 'SIGKILL');
  }
  const children = [...(tracked.skeinChildren ?? [])];
  await Promise.all(
    children.map((child) => {
      if (child.exitCode !== null || child.signalCode !== null) return undefined;
      const gone = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      return gone;
    }),
  );
}
