// Programs are started by a small helper process (the spawn host), never by
// the server itself. A child's start is a fork, and forking copies the page
// tables of the whole process while holding its memory map: every thread of
// the forking process that touches new memory waits, and the pages it
// writes afterwards are copied on write until the child runs exec. Started
// from the event loop, one git start held the loop up to 300 ms on a busy
// machine; started from a worker thread of the server (the step before
// this), the loop still stalled beside each fork: with 6 sessions at work,
// its delay p99 was about twice that with the starts in a process of their
// own, whose small memory also makes each fork about twice as fast. One host
// serves git's commands (`execOffLoop`) and the bash tool's (`runOffLoop`).
// What to run, its environment, its kill and its sandbox stay with the caller.
import { spawn, type ChildProcess } from 'node:child_process';
import { HOST_SOURCE } from './host-source.js';

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
  /** Killed after this many ms (then `code` is -1 and `message` says so). */
  timeout?: number;
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

/** What each request in flight waits for: its messages, and what to do if the host dies. */
interface Waiting {
  answer(message: Answer): boolean;
  fail(message: string): void;
}

/** The host's own environment: what node may need to start; each program it runs gets the environment its caller gives. */
const HOST_ENV = ['PATH', 'LD_LIBRARY_PATH'];

let host: ChildProcess | undefined;
let nextId = 0;
const waiting = new Map<number, Waiting>();

/** Held while a program runs (the server waits for its answer), let go once none is: an idle host keeps no process alive. */
function hold(h: ChildProcess, held: boolean): void {
  if (held) {
    h.ref();
    h.channel?.ref();
  } else {
    h.unref();
    h.channel?.unref();
  }
}

function started(): ChildProcess {
  if (host) return host;
  // No NODE_OPTIONS or other flags of the server's (a loader, --require): the host runs its own code only.
  // 'advanced': output goes as a string through V8's serializer, not JSON (a flood is up to 64 MB).
  const env = Object.fromEntries(HOST_ENV.filter((k) => process.env[k] !== undefined).map((k) => [k, process.env[k]]));
  const h = spawn(process.execPath, ['-e', HOST_SOURCE], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'], serialization: 'advanced', env });
  h.on('message', (message: Answer) => {
    const request = waiting.get(message.id);
    // true: the request's last message.
    if (request?.answer(message) === false) return;
    waiting.delete(message.id);
    if (!waiting.size) hold(h, false);
  });
  // A host that died fails what it was running; the next request starts a new one.
  const fail = (message: string) => {
    if (host !== h) return;
    host = undefined;
    const failed = [...waiting.values()];
    waiting.clear();
    for (const request of failed) request.fail(message);
  };
  h.on('error', (err) => fail(`the process that starts programs failed: ${err.message}`));
  h.on('exit', (code, signal) => fail(`the process that starts programs exited (${signal ?? code})`));
  hold(h, false);
  host = h;
  return h;
}

function send(request: Waiting, message: Record<string, unknown>): void {
  const h = started();
  const id = nextId++;
  waiting.set(id, request);
  hold(h, true);
  h.send({ id, ...message }, (err) => {
    if (!err || !waiting.delete(id)) return;
    request.fail(`the process that starts programs could not be reached: ${err.message}`);
    if (!waiting.size && host === h) hold(h, false);
  });
}

/** execFile in the spawn host: the whole output once the program is done. */
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

/** A tool's program in the spawn host (see host-source.ts): its pid and exit as they happen, its output when done. */
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
