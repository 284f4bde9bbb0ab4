// Programs are started from a worker thread, not the event loop: a child's
// start (fork, then waiting until it runs exec) is synchronous in Node, and
// the fork copies the page tables of the whole server. On a busy machine one
// start of git held the server's loop up to 300 ms, and bash's starts were
// the largest single cost of the loop while 6 sessions ran tools (2.5 s of
// 20 in a profile of the many-sessions benchmark). One worker serves both:
// git's commands (`execOffLoop`) and the bash tool's (`runOffLoop`). What to
// run, its environment, its kill and its sandbox stay with the caller.
import { Worker } from 'node:worker_threads';
import { WORKER_SOURCE } from './worker-source.js';

export interface ExecResult {
  stdout: string;
  stderr: string;
  /** The exit code; -1 when the program could not start or was killed (then `message` says why). */
  code: number;
  message?: string;
}

export interface ExecOptions {
  cwd?: string;
  env: NodeJS.ProcessEnv;
  maxBuffer?: number;
}

export interface RunRequest {
  file: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Output kept in memory, in bytes; a flood beyond it loses its middle. */
  memoryLimit: number;
  /** After the program exits, a background job may hold its output open: wait this long for quiet... */
  quietMs: number;
  /** ...and no longer than this in all. */
  maxAfterExitMs: number;
}

export interface RunOutcome {
  /** stdout and stderr as they came, with a marker where a flood's middle was dropped. */
  text: string;
  /** The exit code (128 when killed by a signal, 127 when it could not start). */
  code: number;
  /** Why the program could not start (then `code` is 127). */
  startError?: string;
}

export interface RunEvents {
  /** The program runs, as the leader of process group `pid`. */
  spawned(pid: number): void;
  /** The program exited (its output may still come, from a background job). */
  exited(): void;
}

type Answer = (ExecResult & { id: number }) | { id: number; type: 'spawned'; pid: number } | { id: number; type: 'exit' } | ({ id: number; type: 'done' } & RunOutcome);

/** What each request in flight waits for: its messages, and what to do if the worker dies. */
interface Waiting {
  answer(message: Answer): boolean;
  fail(message: string): void;
}

let worker: Worker | undefined;
let nextId = 0;
const waiting = new Map<number, Waiting>();

function started(): Worker {
  if (worker) return worker;
  const w = new Worker(WORKER_SOURCE, { eval: true });
  w.on('message', (message: Answer) => {
    const request = waiting.get(message.id);
    // true: the request's last message.
    if (request?.answer(message) === false) return;
    waiting.delete(message.id);
    if (!waiting.size) w.unref();
  });
  // A worker that died fails what it was running; the next request starts a new one.
  const fail = (message: string) => {
    if (worker === w) worker = undefined;
    for (const request of waiting.values()) request.fail(message);
    waiting.clear();
  };
  w.on('error', (err) => fail(`the worker that starts programs failed: ${err.message}`));
  w.on('exit', (code) => fail(`the worker that starts programs exited (${code})`));
  w.unref();
  worker = w;
  return w;
}

function send(request: Waiting, message: Record<string, unknown>): void {
  const w = started();
  const id = nextId++;
  waiting.set(id, request);
  // Held while a program runs (the server waits for its answer), let go once none is.
  w.ref();
  w.postMessage({ id, ...message });
}

/** execFile in the worker thread: the whole output once the program is done. */
export function execOffLoop(file: string, args: string[], options: ExecOptions): Promise<ExecResult> {
  return new Promise((resolve) => {
    send(
      {
        answer(message) {
          if (!('stdout' in message)) return false;
          resolve({ stdout: message.stdout, stderr: message.stderr, code: message.code, ...(message.message !== undefined && { message: message.message }) });
          return true;
        },
        fail: (message) => resolve({ stdout: '', stderr: '', code: -1, message }),
      },
      { op: 'exec', file, args, options },
    );
  });
}

/** A tool's program in the worker thread (see worker-source.ts): its pid and exit as they happen, its output when done. */
export function runOffLoop(request: RunRequest, events: RunEvents): Promise<RunOutcome> {
  const { file, args, cwd, env, memoryLimit, quietMs, maxAfterExitMs } = request;
  return new Promise((resolve) => {
    send(
      {
        answer(message) {
          if (!('type' in message)) return false;
          if (message.type === 'spawned') events.spawned(message.pid);
          else if (message.type === 'exit') events.exited();
          else resolve({ text: message.text, code: message.code, ...(message.startError !== undefined && { startError: message.startError }) });
          return message.type === 'done';
        },
        fail: (message) => resolve({ text: '', code: 127, startError: message }),
      },
      { op: 'run', file, args, options: { cwd, env }, memoryLimit, quietMs, maxAfterExitMs },
    );
  });
}
