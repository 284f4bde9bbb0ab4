// CLI entry: flags + env -> config -> start.
import fs from 'node:fs';
import { helpText, HelpRequested, InvalidSettingError, loadConfig, type Config } from './config.js';
import { createProvider, UnknownModelError } from './llm/providers.js';
import { startServer } from './server.js';

function configOrExit(): Config {
  try {
    const config = loadConfig(process.argv.slice(2), process.env);
    createProvider(config.model, config.contextWindow);
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

const config = configOrExit();
const server = await startServer(config);
for (const warning of server.warnings) console.warn(`[skein] ${warning}`);
console.log(`skein is running at ${server.url}  (model: ${config.model}, working folder: ${config.workDir}, data: ${config.dataDir})`);

let closing = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (closing) process.exit(1);
    closing = true;
    console.log(`[skein] ${signal}: shutting down`);
    void server.close().then(() => process.exit(0));
  });
}
