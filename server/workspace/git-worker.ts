// git's programs are started from a worker thread, not the event loop: a
// child's start (fork, then waiting until it runs exec) is synchronous in
// Node, and on a busy machine one start of git held the server's loop up to
// 300 ms (about a third of the loop's time while 6 sessions ran tools, in a
// profile of the many-sessions benchmark). The worker only starts programs
// and hands their output back; what to run, with which environment and
// checks, stays in git.ts.
import { Worker } from 'node:worker_threads';

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

// CommonJS (an eval'd worker): execFile with the options given, its result posted back.
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { execFile } = require('node:child_process');
parentPort.on('message', ({ id, file, args, options }) => {
  try {
    execFile(file, args, { ...options, encoding: 'utf8' }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
      parentPort.postMessage({ id, stdout: stdout ?? '', stderr: stderr ?? '', code, ...(err && { message: err.message }) });
    });
  } catch (err) {
    parentPort.postMessage({ id, stdout: '', stderr: '', code: -1, message: err instanceof Error ? err.message : String(err) });
  }
});
`;

let worker: Worker | undefined;
let nextId = 0;
const waiting = new Map<number, (result: ExecResult) => void>();

function started(): Worker {
  if (worker) return worker;
  const w = new Worker(WORKER_SOURCE, { eval: true });
  w.on('message', (result: ExecResult & { id: number }) => {
    const resolve = waiting.get(result.id);
    waiting.delete(result.id);
    if (!waiting.size) w.unref();
    resolve?.({ stdout: result.stdout, stderr: result.stderr, code: result.code, ...(result.message !== undefined && { message: result.message }) });
  });
  // A worker that died fails what it was running; the next command starts a new one.
  const fail = (message: string) => {
    if (worker === w) worker = undefined;
    for (const resolve of waiting.values()) resolve({ stdout: '', stderr: '', code: -1, message });
    waiting.clear();
  };
  w.on('error', (err) => fail(`git's worker failed: ${err.message}`));
  w.on('exit', (code) => fail(`git's worker exited (${code})`));
  w.unref();
  worker = w;
  return w;
}

/** execFile in the worker thread: the event loop is never held while the program starts. */
export function execOffLoop(file: string, args: string[], options: ExecOptions): Promise<ExecResult> {
  const w = started();
  const id = nextId++;
  return new Promise((resolve) => {
    waiting.set(id, resolve);
    // Held while a command runs (the server waits for its answer), let go once none is.
    w.ref();
    w.postMessage({ id, file, args, options });
  });
}
