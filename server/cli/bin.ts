#!/usr/bin/env node
// `skein`: with no command, the server (as `npm start`); `skein run`,
// `skein sessions`, `skein export` drive a session from a terminal or CI;
// `skein trust` decides on a working folder's .mcp.json.
import { parseArgs, type CliArgs } from './args.js';
import { CliError, EXIT, type ExitCode } from './exit-codes.js';
import { exportCommand, sessionsCommand } from './export.js';
import { createInterface } from 'node:readline/promises';
import { runCommand } from './run.js';
import { acpCommand } from '../acp/command.js';
import { trustCommand, type TrustIo } from './trust.js';
import { usageText } from './usage.js';

async function readStdin(): Promise<string | undefined> {
  if (process.stdin.isTTY) return undefined;
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** A question on the terminal (skein trust); only when stdin is one. */
async function ask(question: string): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    return await rl.question(question);
  } finally {
    rl.close();
  }
}

const io: TrustIo = { out: (t) => void process.stdout.write(t), err: (t) => void process.stderr.write(t), readStdin, ...(process.stdin.isTTY && { ask }) };

async function main(argv: string[]): Promise<ExitCode | 'server'> {
  const args: CliArgs = parseArgs(argv);
  if (args.help) {
    io.out(usageText());
    return EXIT.ok;
  }
  switch (args.command) {
    case 'run':
      return runCommand(args, process.env, io);
    case 'sessions':
      return sessionsCommand(args, process.env, io);
    case 'export':
      return exportCommand(args, process.env, io);
    case 'trust':
      return trustCommand(args, process.env, io);
    case 'acp':
      return acpCommand(args, process.env, io.err);
    case undefined:
      if (args.positionals.length) throw new CliError(EXIT.usage, `unknown command "${args.positionals[0]}": run, sessions, export, trust, acp, or none to start the server (skein --help)`);
      return 'server';
  }
}

let code: ExitCode | 'server';
try {
  code = await main(process.argv.slice(2));
} catch (err) {
  process.stderr.write(`skein: ${err instanceof CliError ? err.message : err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  code = err instanceof CliError ? err.code : EXIT.internal;
}
if (code === 'server') {
  // The server reads the same argv; it runs until a signal.
  await import('../main.js');
} else {
  // Everything written reaches the pipe before the process ends (timers of the embedded server would keep it alive).
  const exitCode = code;
  process.stdout.write('', () => process.exit(exitCode));
}
