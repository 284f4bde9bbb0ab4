// Server entry: flags + env -> config -> start.
import { configOrExit } from './config-check.js';
import { configureLog, log } from './log.js';
import { startServer } from './server.js';
import { startFailure } from './start-failure.js';
import { runMigrate } from './migrate-cli.js';
import { killAllToolProcesses } from './tools/processes.js';

// `skein migrate …`: moves logs between JSONL files and PostgreSQL, then exits.
if (process.argv[2] === 'migrate') process.exit(await runMigrate(process.argv.slice(3), process.env));

// The log format is known before anything else is logged (a refused setting is plain text on stderr).
configureLog({ format: process.env.SKEIN_LOG_FORMAT?.trim() === 'json' ? 'json' : 'text' });
const config = configOrExit(process.argv.slice(2), process.env);
configureLog({ format: config.logFormat });
const server = await startServer(config).catch((err: unknown) => {
  // A busy port, a bad data folder, a refused setting: one line and the status docs/cli.md lists; a bug keeps its stack.
  const failure = startFailure(err, config);
  if (!failure) throw err;
  process.stderr.write(`skein: ${failure.message}\n`);
  process.exit(failure.code);
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
