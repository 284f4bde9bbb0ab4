// The CLI's own flags, picked out of argv; the server settings' flags
// (config.ts) are kept with their values for loadConfig. Any other flag is
// refused here, by name: it would otherwise swallow the next word (the task).
import { SETTINGS } from '../config.js';
import { parseApprove, type ApprovePolicy } from './approve.js';
import type { ApprovalMode } from '../../shared/protocol.js';
import { isApprovalMode, MODE_INFO } from '../../shared/modes.js';
import { CliError, EXIT } from './exit-codes.js';

export const COMMANDS = ['run', 'sessions', 'export', 'trust', 'migrate', 'acp'] as const;
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
  /** skein run --approve: the calls allowed without a question (approve.ts). */
  approve: ApprovePolicy;
  /** --token: also a server setting; with --server, the token sent to it. */
  token: string | undefined;
  /** --model: also a server setting; with --server, the model of the new session. */
  model: string | undefined;
  /** skein run --mode: the session's approval mode, set before the task is sent. */
  mode: ApprovalMode | undefined;
  /** Server settings flags (with their values), for loadConfig. */
  settings: string[];
  /** skein migrate: its arguments as given (migrate-cli.ts reads them). */
  raw: string[];
}

const BOOLEANS = { '--json': 'json', '--markdown': 'markdown', '--yes': 'yes', '--list': 'list', '--revoke': 'revoke' } as const;
/** CLI flags with one value; a new one is one line here (and one field above). */
const VALUED = { '--session': 'session', '--server': 'server' } as const;
const MODES = MODE_INFO.map((m) => m.id).join(', ');

/** Every flag a command line may hold (for the refusal and its suggestion). */
export function knownFlags(): string[] {
  return ['--help', ...Object.keys(BOOLEANS), ...Object.keys(VALUED), '--approve', '--mode', ...SETTINGS.map((s) => s.flag)];
}

export function parseArgs(argv: string[]): CliArgs {
  const args: CliArgs = { command: undefined, positionals: [], json: false, markdown: false, help: false, yes: false, list: false, revoke: false, session: undefined, server: undefined, approve: { all: false, names: new Set() }, token: undefined, model: undefined, mode: undefined, settings: [], raw: [] };
  let rest = argv;
  if (rest[0] !== undefined && (COMMANDS as readonly string[]).includes(rest[0])) {
    args.command = rest[0] as Command;
    rest = rest.slice(1);
  }
  if (args.command === 'migrate') {
    // Its own flags (--from-jsonl DIR, --to-jsonl DIR): read by migrate-cli.ts.
    args.help = rest.includes('--help') || rest.includes('-h');
    args.raw = rest;
    return args;
  }
  const settingFlags = new Set(SETTINGS.map((s) => s.flag));
  const approvals: string[] = [];
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
    if (!arg.startsWith('-') || arg === '-') {
      args.positionals.push(arg);
      continue;
    }
    const [name, inline] = arg.split(/=(.*)/s, 2) as [string, string | undefined];
    if (name in BOOLEANS) {
      if (inline !== undefined) throw new CliError(EXIT.usage, `${name} takes no value`);
      args[BOOLEANS[name as keyof typeof BOOLEANS]] = true;
      continue;
    }
    if (!(name in VALUED) && name !== '--approve' && name !== '--mode' && !settingFlags.has(name)) throw new CliError(EXIT.usage, unknownFlag(name));
    const value = inline ?? rest[++i];
    if (value === undefined) throw new CliError(EXIT.usage, `${name} needs a value`);
    if (name === '--mode') {
      if (!isApprovalMode(value)) throw new CliError(EXIT.usage, `--mode ${value}: unknown mode; one of ${MODES}`);
      args.mode = value;
    } else if (name in VALUED) args[VALUED[name as keyof typeof VALUED]] = value;
    else if (name === '--approve') approvals.push(value);
    else {
      if (name === '--token') args.token = value;
      if (name === '--model') args.model = value;
      args.settings.push(name, value);
    }
  }
  args.approve = parseApprove(approvals);
  return args;
}

/** "unknown flag --jsn (did you mean --json?)": the nearest known flag, when one is close. */
function unknownFlag(name: string): string {
  const near = knownFlags()
    .map((flag) => ({ flag, d: distance(name, flag) }))
    .sort((a, b) => a.d - b.d)[0];
  const hint = near && near.d <= Math.max(2, Math.floor(name.length / 4)) ? ` (did you mean ${near.flag}?)` : '';
  return `unknown flag ${name}${hint}; skein --help lists every flag`;
}

/** Levenshtein distance (flags are short). */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row.push(Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)));
    prev = row;
  }
  return prev[b.length]!;
}
