// Loading the configuration: flags (which win) over environment variables,
// each checked by its row of the settings table (config/settings.ts).
import { isLoopback } from './http/access.js';
import { readCredentials } from './llm/credentials.js';
import type { Config } from './config/types.js';
import { ConfigError, InvalidSettingError } from './config/parse.js';
import { SETTINGS } from './config/settings.js';

export type { Config } from './config/types.js';
export { ConfigError, InvalidSettingError } from './config/parse.js';
export { SETTINGS } from './config/settings.js';

export class HelpRequested {}

/**
 * Builds the config from flags (which win) and env. Throws
 * InvalidSettingError naming the variable and the allowed range, or
 * HelpRequested for --help.
 */
export function loadConfig(argv: string[], env: NodeJS.ProcessEnv): Config {
  const flags = parseFlags(argv);
  const config: Partial<Record<keyof Config, unknown>> = {};
  for (const s of SETTINGS) {
    const fromFlag = flags.get(s.flag);
    const raw = fromFlag ?? env[s.env];
    // Not given at all: the default. Given empty (`SKEIN_PORT=`) is a mistake the parser names.
    if (raw === undefined) {
      config[s.key] = s.fallback(env);
      continue;
    }
    const parsed = (s.parse as (r: string) => unknown)(raw);
    if (parsed instanceof ConfigError) {
      throw new InvalidSettingError(fromFlag !== undefined ? s.flag : s.env, raw, parsed.allowed);
    }
    config[s.key] = parsed;
  }
  config.workDir = (config.workDirs as string[])[0];
  config.credentials = readCredentials(env);
  if (config.auth === false && !isLoopback(String(config.host))) {
    throw new InvalidSettingError('SKEIN_AUTH', 'off', `on when SKEIN_HOST (${String(config.host)}) is not a loopback address: beyond loopback a token is always required`);
  }
  return config as Config;
}

function parseFlags(argv: string[]): Map<string, string> {
  const flags = new Map<string, string>();
  const known = new Set<string>(SETTINGS.map((s) => s.flag));
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--help' || arg === '-h') throw new HelpRequested();
    const [name, inline] = arg.split(/=(.*)/s, 2) as [string, string | undefined];
    if (!known.has(name)) throw new InvalidSettingError(arg, arg, `one of ${[...known].join(', ')} or --help`);
    const value = inline ?? argv[++i];
    if (value === undefined) throw new InvalidSettingError(name, '', 'a value after the flag');
    flags.set(name, value);
  }
  return flags;
}

export function helpText(): string {
  const rows = SETTINGS.map((s) => `  ${s.flag.padEnd(26)} ${s.env.padEnd(30)} ${plainText(s.description)} (default: ${s.defaultText})`);
  const warning = 'Warning: a token given as --token is visible to every user of this machine in `ps`; use SKEIN_TOKEN or the token file (<data dir>/token) instead.';
  return ['Usage: npm start -- [flags]', '', 'Every flag also has an environment variable; flags win.', '', ...rows, '  --help', '', warning, ''].join('\n');
}

/** A markdown description for a terminal: a link keeps its text, not its target (a page of docs/ means nothing there). */
function plainText(markdown: string): string {
  return markdown.replace(/\[([^\]]+)\]\([^)]+\)/g, '$1');
}
