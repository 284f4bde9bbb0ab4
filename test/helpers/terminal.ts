// The CLI on a real pseudo-terminal (util-linux `script`), as a user at a
// keyboard meets it: stdin is a TTY, what is typed arrives as keystrokes.
import { spawn } from 'node:child_process';
import { SOURCE_CLI } from './cli.js';
import { trackChild } from './run-registry.js';
import { until } from './until.js';

export interface TerminalRun {
  output: () => string;
  /** Types keys (a line ends with '\r', Ctrl-D is '\x04'). */
  type: (keys: string) => void;
  /** Resolves once `text` was shown `times` times in all. */
  shown: (text: string, times?: number) => Promise<void>;
  exited: Promise<number | null>;
  kill: () => void;
}

export function onTerminal(args: string[], env: Record<string, string>): TerminalRun {
  const command = [...SOURCE_CLI, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const child = trackChild(spawn('script', ['-qfec', command, '/dev/null'], { env: { PATH: process.env.PATH!, HOME: process.env.HOME!, ...env }, stdio: ['pipe', 'pipe', 'pipe'] }), `skein ${args.join(' ')} on a terminal`);
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
  return {
    output: () => output,
    type: (keys) => void child.stdin!.write(keys),
    shown: (text, times = 1) => until(() => output.split(text).length > times, `"${text}" shown ${times} time(s) on the terminal:\n${output}`, 120_000).then(() => undefined),
    exited,
    kill: () => child.kill('SIGKILL'),
  };
}
