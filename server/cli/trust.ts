// `skein trust [folder]`: shows what the folder's .mcp.json would run and
// what its agent files (.skein/agents/*.md) would define (each with the diff
// from what was last trusted), asks on a terminal for each one not trusted
// (--yes for scripts), and records the decisions in <data dir>/trust.json. No server is
// needed: a running skein sees the change within a second (it watches the
// store) and starts the servers. `--list` prints every decision; `--revoke`
// forgets the folder's, and a running skein stops those servers (a revoked
// agent file is refused at the next `task` call).
import os from 'node:os';
import path from 'node:path';
import { shown, type InspectedFile } from '../trust/project-files.js';
import { inspectGatedFile, inspectGatedFiles, isGatedName, trustable } from '../trust/gated-files.js';
import { describeFile } from '../trust/describe.js';
import { folderKey, sha256, TrustStore, TrustStoreError } from '../trust/store.js';
import { trustAnswer } from './answers.js';
import type { CliArgs } from './args.js';
import { CliError, EXIT, type ExitCode } from './exit-codes.js';
import type { Io } from './run.js';
import { forTerminal } from './terminal-text.js';

export interface TrustIo extends Io {
  /** Asks a yes/no question on the terminal; undefined when stdin is not one. */
  ask?: (question: string) => Promise<string>;
}

export async function trustCommand(args: CliArgs, env: NodeJS.ProcessEnv, terminal: TrustIo): Promise<ExitCode> {
  // Paths, the file's servers, its diff and errors come from the repository: nothing reaches the terminal raw (terminal-text.ts).
  const io: TrustIo = { ...terminal, out: (text) => terminal.out(forTerminal(text)), ...(terminal.ask && { ask: (question) => terminal.ask!(forTerminal(question)) }) };
  const others = args.settings.filter((a, i) => i % 2 === 0 && a !== '--data-dir' && a !== '--workdir');
  if (others.length) throw new CliError(EXIT.usage, `${others.join(', ')}: skein trust takes only --data-dir and --workdir (and --yes, --list, --revoke)`);
  if (args.positionals.length > 1) throw new CliError(EXIT.usage, 'skein trust takes one folder at most');
  if (args.list && (args.revoke || args.positionals.length)) throw new CliError(EXIT.usage, '--list takes no folder and no --revoke');
  const store = new TrustStore(dataDirOf(args, env));
  try {
    if (args.list) return list(store, io);
    const folder = folderKey(args.positionals[0] ?? firstWorkDir(args, env));
    if (args.revoke) return revoke(store, folder, io);
    return await decide(store, folder, args, io);
  } catch (err) {
    if (err instanceof TrustStoreError) throw new CliError(EXIT.usage, err.message);
    throw err;
  }
}

async function decide(store: TrustStore, folder: string, args: CliArgs, io: TrustIo): Promise<ExitCode> {
  const files = inspectGatedFiles(folder, (name) => store.get(folder, name));
  if (!files.length) {
    io.out(`${path.join(folder, '.mcp.json')} does not exist: nothing to trust\n`);
    return EXIT.ok;
  }
  let refused: InspectedFile | undefined;
  for (const file of files) {
    io.out(describeFile(shown(file)));
    if (!trustable(file)) {
      refused ??= file;
      continue;
    }
    if (file.status === 'trusted') {
      io.out('Already trusted: nothing to do.\n');
      continue;
    }
    if (!args.yes) {
      if (!io.ask) throw new CliError(EXIT.usage, 'not a terminal: nothing was trusted (pass --yes to trust what is shown above without a question)');
      const what = file.agent ? `define the agent ${file.agent.name} as shown above` : 'run what is shown above';
      if (!trustAnswer(await io.ask(`Trust ${file.path} and ${what}? [y/N] `))) {
        io.out('Not trusted.\n');
        continue;
      }
    }
    // The very bytes shown above are recorded; a file changed meanwhile stays untrusted.
    store.decide(folder, file.file, file.content, 'trusted');
    const then = file.agent ? `A \`task\` call may name the agent ${file.agent.name} from now on` : 'A running skein starts its servers within a second';
    io.out(`Trusted ${file.path} (sha256 ${sha256(file.content)}). ${then}; a change to the file asks again.\n`);
  }
  if (refused) throw new CliError(EXIT.usage, `${forTerminal(refused.path)} cannot be trusted as it is`);
  return EXIT.ok;
}

/** Forgets every decision on the folder's gated files (.mcp.json and its agent files). */
function revoke(store: TrustStore, folder: string, io: Io): ExitCode {
  const names = Object.keys(store.all()[folder] ?? {}).filter(isGatedName);
  if (!names.length) io.out(`nothing was decided on ${path.join(folder, '.mcp.json')}\n`);
  for (const name of names) {
    store.revoke(folder, name);
    const then = name === '.mcp.json' ? 'a running skein stops its servers' : 'its agent is no longer defined';
    io.out(`revoked: ${path.join(folder, name)} is no longer trusted (${then})\n`);
  }
  return EXIT.ok;
}

function list(store: TrustStore, io: Io): ExitCode {
  const folders = Object.entries(store.all());
  if (!folders.length) io.out(`no decisions in ${store.file}\n`);
  for (const [folder, files] of folders) {
    for (const [name, decision] of Object.entries(files)) {
      const now = inspectGatedFile(folder, name, decision);
      const current = !now ? 'the file is gone' : now.sha256 === decision.sha256 ? 'the file is unchanged' : 'the file changed since: asks again';
      io.out(`${path.join(folder, name)}  ${decision.decision} ${decision.decidedAt}  sha256 ${decision.sha256.slice(0, 16)}…  (${current})\n`);
    }
  }
  return EXIT.ok;
}

function setting(args: CliArgs, flag: string): string | undefined {
  const at = args.settings.indexOf(flag);
  return at >= 0 ? args.settings[at + 1] : undefined;
}

/** The same default as the server's (SKEIN_DATA_DIR, else ~/.skein). */
function dataDirOf(args: CliArgs, env: NodeJS.ProcessEnv): string {
  return path.resolve(setting(args, '--data-dir') ?? (env.SKEIN_DATA_DIR?.trim() || path.join(os.homedir(), '.skein')));
}

/** The folder skein would read the .mcp.json of: the first SKEIN_WORKDIR root, else this folder. */
function firstWorkDir(args: CliArgs, env: NodeJS.ProcessEnv): string {
  const raw = setting(args, '--workdir') ?? env.SKEIN_WORKDIR ?? '';
  const first = raw.split(new RegExp(`[,${path.delimiter === ';' ? ';' : ':'}]`)).map((r) => r.trim()).find(Boolean);
  return path.resolve(first ?? process.cwd());
}
