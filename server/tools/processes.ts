// Every process a tool starts, found again to be killed: on a timeout or
// cancel, and all of them when the server stops (even a crash-free exit).
// bash runs as the leader of its own session and process group; a command
// can still escape both (`setsid cmd &`, a double fork), so each run also
// carries a marker in its environment, which its descendants inherit, and on
// Linux /proc is searched for it.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';

/** Environment variable naming the run a process belongs to: `<server pid>.<nonce>.<n>`. */
export const RUN_MARKER = 'SKEIN_TOOL_RUN';

/** This module instance's prefix (worker threads share a pid, so the pid alone is not enough). */
const PREFIX = `${process.pid}.${randomBytes(4).toString('hex')}.`;

/** Process groups of runs that may still have live members (a finished command can leave `cmd &` behind). */
const groups = new Map<number, string>();
let runs = 0;

/** A fresh run id, unique in this server. */
export function newRunId(): string {
  return `${PREFIX}${++runs}`;
}

/** Remembers a run's process group until everything in it is gone. */
export function trackGroup(pgid: number, runId: string): void {
  installExitHook();
  for (const [known] of groups) if (!groupAlive(known)) groups.delete(known);
  groups.set(pgid, runId);
}

/** Kills one run: its process group, its session, and whatever carries its marker. */
export function killRun(pgid: number, runId: string): void {
  killGroup(pgid);
  sweep((p) => p.pgid === pgid || p.sid === pgid || p.marker === runId);
}

/**
 * Kills every process any tool of this server started (SIGKILL). Call on
 * SIGINT / SIGTERM; it also runs by itself when the process exits.
 */
export function killAllToolProcesses(): void {
  const pgids = new Set(groups.keys());
  for (const pgid of pgids) killGroup(pgid);
  sweep((p) => pgids.has(p.pgid) || pgids.has(p.sid) || (p.marker?.startsWith(PREFIX) ?? false));
  groups.clear();
}

/** For processes started outside bash (MCP servers) that carry RUN_MARKER: killed when skein exits. */
export function watchMarkedProcesses(): void {
  installExitHook();
}

let hooked = false;
function installExitHook(): void {
  if (hooked) return;
  hooked = true;
  // Synchronous on purpose: an 'exit' listener cannot wait.
  process.on('exit', killAllToolProcesses);
}

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function killGroup(pgid: number): void {
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    /* already gone */
  }
}

interface ProcInfo {
  pid: number;
  pgid: number;
  sid: number;
  marker: string | undefined;
}

/** Kills matching processes until a pass finds none (a process may fork while the last pass runs). */
function sweep(matches: (p: ProcInfo) => boolean): void {
  for (let pass = 0; pass < 5; pass++) {
    const victims = listProcesses().filter((p) => p.pid !== process.pid && matches(p));
    if (!victims.length) return;
    for (const p of victims) {
      try {
        process.kill(p.pid, 'SIGKILL');
      } catch {
        /* gone meanwhile */
      }
    }
  }
}

/** Live (not zombie) processes this user may see, from /proc; empty where there is no /proc. */
function listProcesses(): ProcInfo[] {
  let names: string[];
  try {
    names = fs.readdirSync('/proc');
  } catch {
    return [];
  }
  const out: ProcInfo[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      // The command name may contain spaces and parentheses: fields start after the last ')'.
      const [state, , pgrp, session] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (state === 'Z' || state === 'X') continue;
      out.push({ pid: Number(name), pgid: Number(pgrp), sid: Number(session), marker: markerOf(name) });
    } catch {
      /* exited meanwhile */
    }
  }
  return out;
}

function markerOf(pid: string): string | undefined {
  try {
    const environ = fs.readFileSync(`/proc/${pid}/environ`, 'latin1');
    const at = environ.indexOf(`${RUN_MARKER}=`);
    if (at === -1 || (at > 0 && environ[at - 1] !== '\0')) return undefined;
    const end = environ.indexOf('\0', at);
    return environ.slice(at + RUN_MARKER.length + 1, end === -1 ? undefined : end);
  } catch {
    return undefined; // another user's process, or gone
  }
}
