#!/usr/bin/env node
// `skein`: with no command, the server (as `npm start`); `skein run`,
// `skein sessions`, `skein export` drive a session from a terminal or CI;
// `skein trust` decides on a working folder's .mcp.json; `skein migrate`
// moves logs between JSONL files and PostgreSQL.
import { createInterface } from 'node:readline/promises';
import { parseArgs, type CliArgs } from './args.js';
import { CliError, EXIT, type ExitCode } from './exit-codes.js';
import { exportCommand, sessionsCommand } from './export.js';
import { runCommand, type RunIo } from './run.js';
import { installStop } from './stop.js';
import { readPipedStdin } from './task.js';
import { trustCommand } from './trust.js';
import { acpCommand } from '../acp/command.js';
import { migrateUsage, usageText } from './usage.js';

const err = (text: string) => void process.stderr.write(text);

/** A question on the terminal (trust on stdout; approvals on stderr, stdout may be a pipe of JSON); only when stdin is one. */
function asker(output: NodeJS.WritableStream) {
  return async (question: string): Promise<string> => {
    const rl = createInterface({ input: process.stdin, output });
    try {
      // Ctrl-D (the terminal's stdin ends) is no answer: the caller treats it as nobody there.
      return await new Promise<string>((resolve, reject) => {
        rl.once('close', () => reject(new Error('stdin ended before an answer')));
        // The terminal is raw while the question waits: its Ctrl-C reaches readline, not the process. Pass it on.
        rl.once('SIGINT', () => {
          rl.close();
          process.kill(process.pid, 'SIGINT');
        });
        rl.question(question).then(resolve, reject);
      });
    } finally {
      rl.close();
    }
  };
}

/** Styles only for a terminal, and not when the user asked for none (https://no-color.org) or the terminal has none. */
function takesStyles(stdout: NodeJS.WriteStream, env: NodeJS.ProcessEnv): boolean {
  return stdout.isTTY === true && !env.NO_COLOR && env.TERM !== 'dumb';
}

async function main(argv: string[]): Promise<ExitCode | 'server' | 'migrate'> {
  const args: CliArgs = parseArgs(argv);
  if (args.help) {
    process.stdout.write(args.command === 'migrate' ? migrateUsage : usageText());
    return EXIT.ok;
  }
  if (args.command === 'migrate') return 'migrate';
  if (args.command === undefined) {
    if (args.positionals.length) throw new CliError(EXIT.usage, `unknown command "${args.positionals[0]}": run, sessions, export, trust, migrate, acp, or none to start the server (skein --help)`);
    return 'server';
  }
  // The ACP agent ends on its own signals (its editor closes it); the server (main.ts) handles its own.
  if (args.command === 'acp') return acpCommand(args, process.env, err);
  // The other commands cancel their turn.
  const stop = installStop(err);
  const io: RunIo = {
    out: (t) => void process.stdout.write(t),
    err,
    readStdin: () => readPipedStdin(process.stdin, err),
    stop,
    styled: takesStyles(process.stdout, process.env),
  };
  switch (args.command) {
    case 'run':
      return runCommand(args, process.env, { ...io, ...(process.stdin.isTTY && { ask: asker(process.stderr) }) });
    case 'sessions':
      return sessionsCommand(args, process.env, io);
    case 'export':
      return exportCommand(args, process.env, io);
    case 'trust':
      return trustCommand(args, process.env, { ...io, ...(process.stdin.isTTY && { ask: asker(process.stdout) }) });
  }
}

let code: ExitCode | 'server' | 'migrate';
try {
  code = await main(process.argv.slice(2));
} catch (error) {
  err(`skein: ${error instanceof CliError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  code = error instanceof CliError ? error.code : EXIT.internal;
}
if (code === 'server' || code === 'migrate') {
  // The server (and migrate) read the same argv; the server runs until a signal.
  await import('../main.js');
} else {
  // Everything written reaches the pipe before the process ends (timers of the embedded server would keep it alive);
  // a stdout nobody reads any more has nothing to flush.
  const exitCode = code;
  if (process.stdout.destroyed || !process.stdout.writable) process.exit(exitCode);
  process.stdout.write('', () => process.exit(exitCode));
}
