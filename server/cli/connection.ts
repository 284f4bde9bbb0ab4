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
import { Api } from './api.js';
import { CliError, EXIT } from './exit-codes.js';
import { cliDataDir, runningServer } from './find-server.js';
import { askedForSession, checkServerWide, CLIENT_FLAGS, type SessionAsk } from './session-settings.js';
import { usageText } from './usage.js';

export interface Connection {
  url: string;
  token: string | undefined;
  /** The model of a new session (with a running server: --model or SKEIN_MODEL, else the server's default). */
  model: string | undefined;
  /** What each session this command drives must have before anything is sent (session-settings.ts). */
  settings: SessionAsk;
  /** Something to tell the user on stderr (which server is driven, when it was found through the lock). */
  note?: string;
  /**
   * With `deferRefusal`: a server-wide setting asked for that the running server does not have (settingRefused).
   * Nothing may be sent to that server; the caller refuses each request with it (skein acp), instead of connect throwing.
   */
  refused?: CliError;
  /** The server was started by this command and ends with it (no web UI the user keeps open). */
  embedded?: boolean;
  close(): Promise<void>;
}

export interface ConnectOptions {
  /** A server-wide setting the running server does not have is returned as `refused` rather than thrown (skein acp answers initialize first). */
  deferRefusal?: boolean;
}

export async function connect(args: CliArgs, env: NodeJS.ProcessEnv, options: ConnectOptions = {}): Promise<Connection> {
  const settings = askedForSession(args, env);
  if (args.server) return checked(remote(args, env, args.server, '--server', settings), args, env, options);
  // A server already runs on this data folder: drive it (a second one would write the same logs).
  const dataDir = cliDataDir(args, env);
  const running = await runningServer(dataDir);
  if (running) {
    const connection = remote(args, env, running.url, `a skein server running on the data folder ${dataDir},`, settings);
    const note = `skein: driving ${describeHolder(running)}, which holds the data folder ${dataDir}; its settings apply, but for the approval mode, model and effort asked for here\n`;
    return checked({ ...connection, note }, args, env, options);
  }
  // Its own server takes every setting: the sessions get them as the server's defaults (the mode from --mode too).
  return { ...(await embedded(args, env)), settings };
}

/** A running server's: the settings it shares with every session must be the ones asked for (else settingRefused). */
async function checked(connection: Connection, args: CliArgs, env: NodeJS.ProcessEnv, options: ConnectOptions): Promise<Connection> {
  try {
    await checkServerWide(args, env, new Api(connection));
  } catch (err) {
    if (options.deferRefusal && err instanceof CliError && err.code === EXIT.settingRefused) return { ...connection, refused: err };
    throw err;
  }
  return connection;
}

/** `why`: what makes the settings the running server's (for the refusal of other setting flags). */
function remote(args: CliArgs, env: NodeJS.ProcessEnv, server: string, why: string, settings: SessionAsk): Connection {
  const others = args.settings.filter((a, i) => i % 2 === 0 && !CLIENT_FLAGS.includes(a));
  if (others.length) throw new CliError(EXIT.usage, `${others.join(', ')}: with ${why} the running server's settings apply (only ${CLIENT_FLAGS.join(', ')} are used)`);
  let url: URL;
  try {
    url = new URL(server);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http');
  } catch {
    throw new CliError(EXIT.usage, `--server ${JSON.stringify(server)} is not an http(s) URL (e.g. http://127.0.0.1:8420)`);
  }
  const token = args.token ?? (env.SKEIN_TOKEN?.trim() || undefined) ?? tokenFromFile(args, env);
  return { url: url.origin, token, model: settings.model?.value, settings, close: async () => {} };
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

async function embedded(args: CliArgs, env: NodeJS.ProcessEnv): Promise<Omit<Connection, 'settings'>> {
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
      embedded: true,
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
