// What a test run left behind, from its registry (run-registry.ts): named,
// stopped and removed. Only what a run recorded is ever touched: a process
// is killed only while its pid still has the start time recorded with it
// (never a process that reused the pid), and only a run whose own process is
// gone is swept by another. Synchronous: it also runs from an 'exit'
// listener when vitest is interrupted.
import fs from 'node:fs';
import path from 'node:path';
import { stillRuns, type Resource } from './run-registry.js';

/** The folder of the run of this vitest process: run-<pid>-<start time>. */
export function runDirName(pid: number, started: string | undefined): string {
  return `run-${pid}-${started ?? 'unknown'}`;
}

function entries(runDir: string): { file: string; resource: Resource }[] {
  let names: string[];
  try {
    names = fs.readdirSync(runDir).filter((n) => n.endsWith('.json'));
  } catch {
    return [];
  }
  const found: { file: string; resource: Resource }[] = [];
  for (const name of names) {
    const file = path.join(runDir, name);
    try {
      found.push({ file, resource: JSON.parse(fs.readFileSync(file, 'utf8')) as Resource });
    } catch {
      // Being written or removed by a worker right now: not a leftover yet.
    }
  }
  return found;
}

function runs(r: Resource): boolean {
  return r.pid !== undefined && stillRuns(r.pid, r.started);
}

/** A resource that is still there: its process runs or its folder exists. */
function remains(r: Resource): boolean {
  return runs(r) || (r.path !== undefined && fs.existsSync(r.path));
}

export function describe(r: Resource): string {
  const where = [r.path, r.pid !== undefined && runs(r) ? `pid ${r.pid} running` : undefined].filter(Boolean).join(', ');
  return `${r.kind} ${r.what}${where ? ` (${where})` : ''}`;
}

/** What the run recorded and is still there, named. */
export function findLeftovers(runDir: string): string[] {
  return entries(runDir)
    .filter((e) => remains(e.resource))
    .map((e) => describe(e.resource));
}

function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function stop(r: Resource): void {
  if (r.pid === undefined || !runs(r)) return;
  // A postmaster's SIGQUIT is an immediate shutdown that takes its backends with it; anything else is killed.
  try {
    process.kill(r.pid, r.kind === 'postgres' ? 'SIGQUIT' : 'SIGKILL');
  } catch {
    return; // gone already
  }
  for (let waited = 0; runs(r) && waited < 10_000; waited += 50) pause(50);
  if (runs(r)) {
    try {
      process.kill(r.pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
}

/** Stops and removes everything the run at `runDir` recorded; returns what was still there. */
export function cleanUp(runDir: string): string[] {
  const left: string[] = [];
  for (const { file, resource } of entries(runDir)) {
    if (remains(resource)) left.push(describe(resource));
    stop(resource);
    if (resource.path) fs.rmSync(resource.path, { recursive: true, force: true, maxRetries: 3 });
    fs.rmSync(file, { force: true });
  }
  return left;
}

/** Cleans up after every run under `root` whose vitest process is gone (a run that was killed); runs still going are left alone. */
export function sweepDeadRuns(root: string): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(root);
  } catch {
    return [];
  }
  const swept: string[] = [];
  for (const name of names) {
    const match = /^run-(\d+)-(\d+|unknown)$/.exec(name);
    if (!match || stillRuns(Number(match[1]), match[2])) continue;
    const dir = path.join(root, name);
    swept.push(...cleanUp(dir));
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return swept;
}
