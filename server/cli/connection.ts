// Where the CLI's requests go: a running server (--server URL, or the one that
// holds the data folder) or else a server embedded in this process, started
// with the same settings as `skein`.
import fs from 'node:fs';
import path from 'node:path';
import { configOrExit } from '../config-check.js';
import { TOKEN_FILE } from '../http/token-file.js';
import { configureLog, toStderr } from '../log.js';
import { startServer } from '../server.js';
import { describeHolder } from '../lock/data-dir-lock.js';
import { startFailure } from '../start-failure.js';
import { killAllToolProcesses } from '../tools/processes.js';
import type { CliArgs } from './args.js';
import { CliError, EXIT } from './exit-codes.js';
import { cliDataDir, runningServer } from './find-server.js';
import { usageText } from './usage.js';

export interface Connection {
  url: string;
  token: string | undefined;
  /** The model of a new session (with --server: --model, else the server's default). */
  model: string | undefined;
  /** Something to tell the user on stderr (which server is driven, when it was found through the lock). */
  note?: string;
  close(): Promise<void>;
}

export async function connect(args: CliArgs, env: NodeJS.ProcessEnv): Promise<Connection> {
  if (args.server) return remote(args, env, args.server, '--server');
  // A server already runs on this data folder: drive it (a second one would write the same logs).
  const dataDir = cliDataDir(args, env);
  const running = await runningServer(dataDir);
  if (running) {
    const connection = remote(args, env, running.url, `a skein server running on the data folder ${dataDir},`);
    return { ...connection, note: `skein: driving ${describeHolder(running)}, which holds the data folder ${dataDir}; its settings apply\n` };
  }
  return embedded(args, env);
}

/** `why`: what makes the settings the running server's (for the refusal of other setting flags). */
function remote(args: CliArgs, env: NodeJS.ProcessEnv, server: string, why: string): Connection {
  const others = args.settings.filter((a, i) => i % 2 === 0 && a !== '--token' && a !== '--model' && a !== '--data-dir');
  if (others.length) throw new CliError(EXIT.usage, `${others.join(', ')}: with ${why} the running server's settings apply (only --token and --model are used)`);
  let url: URL;
  try {
    url = new URL(server);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http');
  } catch {
    throw new CliError(EXIT.usage, `--server ${JSON.stringify(server)} is not an http(s) URL (e.g. http://127.0.0.1:8420)`);
  }
  const token = args.token ?? (env.SKEIN_TOKEN?.trim() || undefined) ?? tokenFromFile(args, env);
  return { url: url.origin, token, model: args.model, close: async () => {} };
}

/** The token a server on this machine keeps in its data dir (the same default as the server's). */
function tokenFromFile(args: CliArgs, env: NodeJS.ProcessEnv): string | undefined {
  const dataDir = cliDataDir(args, env);
  try {
    return fs.readFileSync(path.join(dataDir, TOKEN_FILE), 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

async function embedded(args: CliArgs, env: NodeJS.ProcessEnv): Promise<Connection> {
  // The server's log lines would mix with the timeline on stdout: only warnings and errors, on stderr.
  configureLog({ minLevel: 'warn', write: toStderr });
  const portGiven = args.settings.includes('--port') || (env.SKEIN_PORT ?? '').trim() !== '';
  const config = configOrExit(args.settings, { ...env, ...(portGiven ? {} : { SKEIN_PORT: '0' }) }, usageText);
  configureLog({ format: config.logFormat });
  try {
    // Marked embedded in the data folder's lock: another command refuses to drive a server that ends with this one.
    const server = await startServer(config, undefined, {}, {}, { embedded: true });
    return {
      url: server.url,
      token: server.token,
      model: undefined,
      async close() {
        await server.close();
        killAllToolProcesses();
      },
    };
  } catch (err) {
    const failure = startFailure(err, config);
    if (!failure) throw err;
    // A port in use is only possible when one was given: without it the embedded server takes a free one.
    throw new CliError(failure.code, failure.code === EXIT.cannotStart && err instanceof Error && (err as NodeJS.ErrnoException).code === 'EADDRINUSE' ? `${failure.message}, or leave SKEIN_PORT unset for a free one` : failure.message);
    throw err;
  }
}
