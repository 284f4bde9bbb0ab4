// Which server a command without --server talks to: the one that holds the
// data folder (its lock file says where it listens), else none and the
// command embeds its own. Two servers on one folder would both write the same
// session logs (see lock/data-dir-lock.ts).
import os from 'node:os';
import path from 'node:path';
import { describeHolder, heldBy, type LockHolder } from '../lock/data-dir-lock.js';
import type { CliArgs } from './args.js';
import { CliError, EXIT } from './exit-codes.js';

/** How long a server that holds the folder may take to say where it listens (it loads its sessions first). */
const STARTING_WAIT_MS = 20_000;

/** The data folder as the server would take it: --data-dir, SKEIN_DATA_DIR, or ~/.skein. */
export function cliDataDir(args: CliArgs, env: NodeJS.ProcessEnv): string {
  const flag = args.settings.indexOf('--data-dir');
  const given = flag >= 0 ? args.settings[flag + 1]! : env.SKEIN_DATA_DIR?.trim();
  return given ? path.resolve(given) : path.join(os.homedir(), '.skein');
}

/** The server running on `dataDir`, with its URL; undefined when none does. */
export async function runningServer(dataDir: string): Promise<(LockHolder & { url: string }) | undefined> {
  const deadline = Date.now() + STARTING_WAIT_MS;
  for (;;) {
    const held = await heldBy(dataDir);
    if (!held) return undefined;
    const { holder } = held;
    // A `skein run` with its own server ends with its turn: driving it would cut ours short.
    if (holder?.embedded) {
      throw new CliError(EXIT.dataDirInUse, `the data folder ${dataDir} is in use by ${describeHolder(holder)}: wait for it to end, or start a server (skein) that both can drive`);
    }
    if (holder?.url) return { ...holder, url: holder.url };
    if (Date.now() > deadline) {
      throw new CliError(EXIT.dataDirInUse, `the data folder ${dataDir} is held by ${describeHolder(holder)}, which has not said where it listens after ${STARTING_WAIT_MS / 1000} s; try again, or give --server URL`);
    }
    // Still starting: the lock is taken before the port is open.
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
