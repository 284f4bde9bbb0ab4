// CLI entry: flags + env -> config -> start.
import fs from 'node:fs';
import { helpText, HelpRequested, InvalidSettingError, loadConfig, type Config } from './config.js';
import { createProvider, UnknownModelError } from './llm/providers.js';
import { providerSettings } from './agent/model-switch.js';
import { SERVER_CHOICE } from './llm/credentials.js';
import { TokenFileError } from './http/token-file.js';
import { startServer } from './server.js';
import { runMigrate } from './migrate-cli.js';
import { killAllToolProcesses } from './tools/processes.js';

function configOrExit(): Config {
  try {
    const config = loadConfig(process.argv.slice(2), process.env);
    // A chosen provider without its key is refused here, with the variable to set.
    // (openai:auto, the model of an OpenAI-compatible server, is asked of that server at start.)
    const { warning } = config.model === SERVER_CHOICE ? {} : createProvider(config.model, providerSettings(config));
    if (warning) console.warn(`[skein] ${warning}`);
    if (config.summarizerModel) createProvider(config.summarizerModel, providerSettings(config));
    if (!fs.existsSync(config.workDir) || !fs.statSync(config.workDir).isDirectory()) {
      throw new InvalidSettingError('SKEIN_WORKDIR', config.workDir, 'an existing folder');
    }
    return config;
  } catch (err) {
    if (err instanceof HelpRequested) {
      process.stdout.write(helpText());
      process.exit(0);
    }
    if (err instanceof InvalidSettingError || err instanceof UnknownModelError) {
      process.stderr.write(`skein: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
}

// `skein migrate …`: moves logs between JSONL files and PostgreSQL, then exits.
if (process.argv[2] === 'migrate') process.exit(await runMigrate(process.argv.slice(3), process.env));

const config = configOrExit();
const server = await startServer(config).catch((err: unknown) => {
  if (!(err instanceof UnknownModelError) && !(err instanceof TokenFileError)) throw err;
  process.stderr.write(`skein: ${err.message}\n`);
  process.exit(2);
});
for (const warning of server.warnings) console.warn(`[skein] ${warning}`);
// The printed URL carries the token once; the page keeps it in an HttpOnly cookie.
const openUrl = server.token ? `${server.url}/?token=${encodeURIComponent(server.token)}` : server.url;
console.log(`skein is running at ${openUrl}  (model: ${server.model}, working folder: ${config.workDir}, data: ${config.dataDir})`);

let closing = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (closing) process.exit(1);
    closing = true;
    console.log(`[skein] ${signal}: shutting down`);
    void server
      .close()
      .catch((err: unknown) => console.error('[skein] shutdown:', err))
      .finally(() => {
        // Whatever a tool left running (a background job, an escaped setsid) goes with the server.
        killAllToolProcesses();
        process.exit(0);
      });
  });
}
