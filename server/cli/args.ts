// The CLI's own flags, picked out of argv; every other flag is a server
// setting (config.ts) and is left for loadConfig.
import type { ApprovalMode } from '../../shared/protocol.js';
import { isApprovalMode, MODE_INFO } from '../../shared/modes.js';
import { CliError, EXIT } from './exit-codes.js';

export const COMMANDS = ['run', 'sessions', 'export', 'trust'] as const;
export type Command = (typeof COMMANDS)[number];

export interface CliArgs {
  command: Command | undefined;
  positionals: string[];
  json: boolean;
  markdown: boolean;
  help: boolean;
  /** skein trust: --yes (no question), --list, --revoke. */
  yes: boolean;
  list: boolean;
  revoke: boolean;
  session: string | undefined;
  server: string | undefined;
  /** --token: also a server setting; with --server, the token sent to it. */
  token: string | undefined;
  /** --model: also a server setting; with --server, the model of the new session. */
  model: string | undefined;
  /** skein run --mode: the session's approval mode, set before the task is sent. */
  mode: ApprovalMode | undefined;
  /** Server settings flags (with their values), for loadConfig. */
  settings: string[];
}

const BOOLEANS = { '--json': 'json', '--markdown': 'markdown', '--yes': 'yes', '--list': 'list', '--revoke': 'revoke' } as const;
const VALUED = { '--session': 'session', '--server': 'server' } as const;
const MODES = MODE_INFO.map((m) => m.id).join(', ');

export function parseArgs(argv: string[]): CliArgs {
  const args: CliArgs = { command: undefined, positionals: [], json: false, markdown: false, help: false, yes: false, list: false, revoke: false, session: undefined, server: undefined, token: undefined, model: undefined, mode: undefined, settings: [] };
  let rest = argv;
  if (rest[0] !== undefined && (COMMANDS as readonly string[]).includes(rest[0])) {
    args.command = rest[0] as Command;
    rest = rest.slice(1);
  }
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!;
    if (arg === '--help' || arg === '-h') {
      args.help = true;
      continue;
    }
    if (arg === '--') {
      args.positionals.push(...rest.slice(i + 1));
      break;
    }
    if (!arg.startsWith('--')) {
      args.positionals.push(arg);
      continue;
    }
    const [name, inline] = arg.split(/=(.*)/s, 2) as [string, string | undefined];
    if (name in BOOLEANS) {
      if (inline !== undefined) throw new CliError(EXIT.usage, `${name} takes no value`);
      args[BOOLEANS[name as keyof typeof BOOLEANS]] = true;
      continue;
    }
    const value = inline ?? rest[++i];
    if (value === undefined) throw new CliError(EXIT.usage, `${name} needs a value`);
    if (name === '--mode') {
      if (!isApprovalMode(value)) throw new CliError(EXIT.usage, `--mode ${value}: unknown mode; one of ${MODES}`);
      args.mode = value;
    } else if (name in VALUED) args[VALUED[name as keyof typeof VALUED]] = value;
    else {
      if (name === '--token') args.token = value;
      if (name === '--model') args.model = value;
      // Unknown names are refused by loadConfig, naming the flags it knows.
      args.settings.push(name, value);
    }
  }
  return args;
}
