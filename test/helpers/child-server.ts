// A skein server in a child process, to be killed for real.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { rememberToken } from './auth.js';
import { trackChild } from './run-registry.js';

export interface ChildServer {
  url: string;
  /** The access token from the printed start URL (undefined with SKEIN_AUTH=off). */
  token: string | undefined;
  process: ChildProcess;
  output: () => string;
  kill(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface ChildOptions {
  /** Extra node flags, e.g. ['--expose-gc', '--import', probe] for the hostile-network test. */
  nodeArgs?: string[];
  /** An IPC channel to the child (child.send / child.on('message')). */
  ipc?: boolean;
}

export function startChildServer(env: Record<string, string>, options: ChildOptions = {}): Promise<ChildServer> {
  const child = trackChild(spawn(process.execPath, ['--import', 'tsx', ...(options.nodeArgs ?? []), path.resolve('server/main.ts')], {
    env: { ...process.env, SKEIN_PORT: '0', ...env },
    stdio: options.ipc ? ['ignore', 'pipe', 'pipe', 'ipc'] : ['ignore', 'pipe', 'pipe'],
  }), 'child skein server');
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code, signal) => resolve(code ?? (signal ? 128 : null))));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`child server did not start:\n${output}`)), 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /running at (http:\/\/[\d.:]+)\/?(?:\?token=(\S+))?\s/.exec(output);
      if (match) {
        clearTimeout(timer);
        const token = match[2] === undefined ? undefined : decodeURIComponent(match[2]);
        rememberToken(match[1]!, token);
        resolve({
          url: match[1]!,
          token,
          process: child,
          output: () => output,
          kill: (signal = 'SIGKILL') => {
            child.kill(signal);
            return exited;
          },
        });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', () => reject(new Error(`child server exited:\n${output}`)));
  });
}
