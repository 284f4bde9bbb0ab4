// `skein trust [folder]`: shows what the folder's .mcp.json would run (and
// the diff from what was last trusted), asks on a terminal (--yes for
// scripts), and records the decision in <data dir>/trust.json. No server is
// needed: a running skein sees the change within a second (it watches the
// store) and starts the servers. `--list` prints every decision; `--revoke`
// forgets the folder's, and a running skein stops those servers.
import os from 'node:os';
import path from 'node:path';
import { inspectProjectFile, shown } from '../trust/project-files.js';
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
    if (args.revoke) {
      io.out(store.revoke(folder, '.mcp.json') ? `revoked: ${path.join(folder, '.mcp.json')} is no longer trusted (a running skein stops its servers)\n` : `nothing was decided on ${path.join(folder, '.mcp.json')}\n`);
      return EXIT.ok;
    }
    return await decide(store, folder, args, io);
  } catch (err) {
    if (err instanceof TrustStoreError) throw new CliError(EXIT.usage, err.message);
    throw err;
  }
}

async function decide(store: TrustStore, folder: string, args: CliArgs, io: TrustIo): Promise<ExitCode> {
  const file = inspectProjectFile(folder, store.get(folder, '.mcp.json'));
  if (!file) {
    io.out(`${path.join(folder, '.mcp.json')} does not exist: nothing to trust\n`);
    return EXIT.ok;
  }
  io.out(describeFile(shown(file)));
  if (file.error !== undefined || !file.parsed) throw new CliError(EXIT.usage, `${forTerminal(file.path)} cannot be trusted as it is`);
  if (file.status === 'trusted') {
    io.out('Already trusted: nothing to do.\n');
    return EXIT.ok;
  }
  if (!args.yes) {
    if (!io.ask) throw new CliError(EXIT.usage, 'not a terminal: nothing was trusted (pass --yes to trust what is shown above without a question)');
    if (!trustAnswer(await io.ask(`Trust ${file.path} and run what is shown above? [y/N] `))) {
      io.out('Not trusted.\n');
      return EXIT.ok;
    }
  }
  // The very bytes shown above are recorded; a file changed meanwhile stays untrusted.
  store.decide(folder, '.mcp.json', file.content, 'trusted');
  io.out(`Trusted ${file.path} (sha256 ${sha256(file.content)}). A running skein starts its servers within a second; a change to the file asks again.\n`);
  return EXIT.ok;
}

function list(store: TrustStore, io: Io): ExitCode {
  const folders = Object.entries(store.all());
  if (!folders.length) io.out(`no decisions in ${store.file}\n`);
  for (const [folder, files] of folders) {
    for (const [name, decision] of Object.entries(files)) {
      const now = inspectProjectFile(folder, decision);
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
