// Settings as the server and the CLI take them: flags + env -> a checked
// config, or a clear message and exit 2 (0 for --help).
import fs from 'node:fs';
import { helpText, HelpRequested, InvalidSettingError, loadConfig, type Config } from './config.js';
import { createProvider, UnknownModelError } from './llm/providers.js';
import { providerSettings } from './agent/model-switch.js';
import { SERVER_CHOICE } from './llm/credentials.js';

/** Exit status of a refused setting (also the CLI's "bad usage" status). */
export const EXIT_BAD_SETTING = 2;

export function configOrExit(argv: string[], env: NodeJS.ProcessEnv, help: () => string = helpText): Config {
  try {
    const config = loadConfig(argv, env);
    // A chosen provider without its key is refused here, with the variable to set.
    // (openai:auto, the model of an OpenAI-compatible server, is asked of that server at start.)
    // (A model not in skein's table is said later, only when its server does not say its window: agent/window.ts.)
    if (config.model !== SERVER_CHOICE) createProvider(config.model, providerSettings(config));
    if (config.summarizerModel) createProvider(config.summarizerModel, providerSettings(config));
    if (!fs.existsSync(config.workDir) || !fs.statSync(config.workDir).isDirectory()) {
      throw new InvalidSettingError('SKEIN_WORKDIR', config.workDir, 'an existing folder');
    }
    return config;
  } catch (err) {
    if (err instanceof HelpRequested) {
      process.stdout.write(help());
      process.exit(0);
    }
    if (err instanceof InvalidSettingError || err instanceof UnknownModelError) {
      process.stderr.write(`skein: ${err.message}\n`);
      process.exit(EXIT_BAD_SETTING);
    }
    throw err;
  }
}
