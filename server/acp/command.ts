// `skein acp`: an Agent Client Protocol agent on stdin/stdout for editors
// (Zed, JetBrains, Neovim, Emacs). It drives the skein server that holds the
// data folder, `--server URL`, or one embedded in this process, exactly as
// `skein run` does. stdout carries the protocol and nothing else: logs, and
// anything a library would print, go to stderr.
import os from 'node:os';
import { Readable, Writable } from 'node:stream';
import { ndJsonStream } from '@agentclientprotocol/sdk';
import { Api } from '../cli/api.js';
import type { CliArgs } from '../cli/args.js';
import { connect } from '../cli/connection.js';
import { CliError, EXIT, type ExitCode } from '../cli/exit-codes.js';
import { configureLog, toStderr } from '../log.js';
import { createAcpAgent } from './agent.js';

export async function acpCommand(args: CliArgs, env: NodeJS.ProcessEnv, err: (text: string) => void): Promise<ExitCode> {
  if (args.positionals.length) throw new CliError(EXIT.usage, `skein acp takes no task (the editor sends the prompts): ${args.positionals.join(' ')}`);
  // Nothing but the protocol on stdout.
  for (const name of ['log', 'info', 'debug'] as const) console[name] = (...values: unknown[]) => console.error(...values);
  configureLog({ write: toStderr });
  // A sandbox setting the running server does not have does not stop the agent before `initialize`: the editor would
  // only see a crash. Each session/new and session/load is refused with the reason instead (agent.ts), and it is said here too.
  const connection = await connect(args, acpEnv(args, env), { deferRefusal: true });
  if (connection.note) err(connection.note);
  if (connection.refused) err(`skein: ${connection.refused.message}\n`);
  const api = new Api(connection);
  const acp = createAcpAgent(connection, api);
  const stream = ndJsonStream(Writable.toWeb(process.stdout) as WritableStream<Uint8Array>, Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>);
  const open = acp.app.connect(stream);
  // The editor ends the agent by closing stdin, or with a signal.
  const stop = () => open.close();
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  process.once('SIGHUP', stop);
  try {
    await open.closed;
  } finally {
    process.off('SIGTERM', stop);
    process.off('SIGINT', stop);
    process.off('SIGHUP', stop);
    acp.close();
    await connection.close();
  }
  return connection.refused ? connection.refused.code : EXIT.ok;
}

/**
 * An embedded server takes the folders an editor may open: with no
 * SKEIN_WORKDIR (or --workdir) given, the current folder and the home folder,
 * so a session can start in any project under them.
 */
function acpEnv(args: CliArgs, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  if (args.settings.includes('--workdir') || (env.SKEIN_WORKDIR ?? '').trim() !== '') return env;
  return { ...env, SKEIN_WORKDIR: [process.cwd(), os.homedir()].join(',') };
}
