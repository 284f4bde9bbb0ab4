// Server entry: flags + env -> config -> start.
import { configOrExit } from './config-check.js';
import { configureLog, log } from './log.js';
import { UnknownModelError } from './llm/providers.js';
import { TokenFileError } from './http/token-file.js';
import { McpConfigError } from './mcp/config.js';
import { startServer } from './server.js';
import { DataDirLockedError } from './lock/data-dir-lock.js';
import { EXIT } from './cli/exit-codes.js';
import { runMigrate } from './migrate-cli.js';
import { killAllToolProcesses } from './tools/processes.js';
import { SandboxUnavailableError } from './tools/sandbox.js';

// `skein migrate …`: moves logs between JSONL files and PostgreSQL, then exits.
if (process.argv[2] === 'migrate') process.exit(await runMigrate(process.argv.slice(3), process.env));

// The log format is known before anything else is logged (a refused setting is plain text on stderr).
configureLog({ format: process.env.SKEIN_LOG_FORMAT?.trim() === 'json' ? 'json' : 'text' });
const config = configOrExit(process.argv.slice(2), process.env);
configureLog({ format: config.logFormat });
const server = await startServer(config).catch((err: unknown) => {
  if (err instanceof DataDirLockedError) {
    process.stderr.write(`skein: ${err.message}\n`);
    process.exit(EXIT.dataDirInUse);
  }
  if (!(err instanceof UnknownModelError) && !(err instanceof TokenFileError) && !(err instanceof SandboxUnavailableError) && !(err instanceof McpConfigError)) throw err;
  process.stderr.write(`skein: ${err.message}\n`);
  process.exit(2);
});
for (const warning of server.warnings) log.warn(warning);
// The printed URL carries the token once; the page keeps it in an HttpOnly cookie.
const openUrl = server.token ? `${server.url}/?token=${encodeURIComponent(server.token)}` : server.url;
log.info(`skein is running at ${openUrl}  (model: ${server.model}, working folder: ${config.workDir}, data: ${config.dataDir})`);

let closing = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (closing) process.exit(1);
    closing = true;
    log.info(`${signal}: shutting down`);
    void server
      .close()
      .catch((err: unknown) => log.error('shutdown failed', { error: err }))
      .finally(() => {
        // Whatever a tool left running (a background job, an escaped setsid) goes with the server.
        killAllToolProcesses();
        process.exit(0);
      });
  });
}
