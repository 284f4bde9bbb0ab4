// Where the CLI's requests go: a running server (--server URL) or a server
// embedded in this process, started with the same settings as `skein`.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { configOrExit } from '../config-check.js';
import { TOKEN_FILE, TokenFileError } from '../http/token-file.js';
import { UnknownModelError } from '../llm/providers.js';
import { configureLog, toStderr } from '../log.js';
import { startServer } from '../server.js';
import { killAllToolProcesses } from '../tools/processes.js';
import type { CliArgs } from './args.js';
import { CliError, EXIT } from './exit-codes.js';
import { usageText } from './usage.js';

export interface Connection {
  url: string;
  token: string | undefined;
  /** The model of a new session (with --server: --model, else the server's default). */
  model: string | undefined;
  close(): Promise<void>;
}

export async function connect(args: CliArgs, env: NodeJS.ProcessEnv): Promise<Connection> {
  return args.server ? remote(args, env) : embedded(args, env);
}

function remote(args: CliArgs, env: NodeJS.ProcessEnv): Connection {
  const others = args.settings.filter((a, i) => i % 2 === 0 && a !== '--token' && a !== '--model' && a !== '--data-dir');
  if (others.length) throw new CliError(EXIT.usage, `${others.join(', ')}: with --server the running server's settings apply (only --token and --model are used)`);
  let url: URL;
  try {
    url = new URL(args.server!);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http');
  } catch {
    throw new CliError(EXIT.usage, `--server ${JSON.stringify(args.server)} is not an http(s) URL (e.g. http://127.0.0.1:8420)`);
  }
  const token = args.token ?? (env.SKEIN_TOKEN?.trim() || undefined) ?? tokenFromFile(args, env);
  return { url: url.origin, token, model: args.model, close: async () => {} };
}

/** The token a server on this machine keeps in its data dir (the same default as the server's). */
function tokenFromFile(args: CliArgs, env: NodeJS.ProcessEnv): string | undefined {
  const flag = args.settings.indexOf('--data-dir');
  const dataDir = flag >= 0 ? args.settings[flag + 1]! : env.SKEIN_DATA_DIR?.trim() || path.join(os.homedir(), '.skein');
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
    const server = await startServer(config);
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
    if (err instanceof UnknownModelError || err instanceof TokenFileError) throw new CliError(EXIT.usage, err.message);
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') throw new CliError(EXIT.usage, `port ${config.port} is in use: leave SKEIN_PORT unset for a free one`);
    throw err;
  }
}
