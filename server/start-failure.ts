// Why the server could not start, as one line and an exit status (the CLI's
// list, cli/exit-codes.ts): for `npm start`, `skein` and the server a
// `skein run` embeds. Anything else is a bug and keeps its stack.
import { EXIT, type ExitCode } from './cli/exit-codes.js';
import type { Config } from './config.js';
import { TokenFileError } from './http/token-file.js';
import { UnknownModelError } from './llm/providers.js';
import { DataDirUnusableError } from './lock/data-dir-check.js';
import { DataDirLockedError } from './lock/data-dir-lock.js';
import { McpConfigError } from './mcp/config.js';
import { SandboxUnavailableError } from './tools/sandbox.js';

export interface StartFailure {
  code: ExitCode;
  message: string;
}

/** `portChosen`: the port was given (SKEIN_PORT, --port), not picked for an embedded server. */
export function startFailure(err: unknown, config: Pick<Config, 'port' | 'host' | 'dataDir'>): StartFailure | undefined {
  if (err instanceof DataDirLockedError) return { code: EXIT.dataDirInUse, message: err.message };
  if (err instanceof DataDirUnusableError) return { code: EXIT.cannotStart, message: err.message };
  if (err instanceof UnknownModelError || err instanceof TokenFileError || err instanceof SandboxUnavailableError || err instanceof McpConfigError) return { code: EXIT.usage, message: err.message };
  const e = err as NodeJS.ErrnoException;
  const where = `${config.host}:${config.port}`;
  switch (e.code) {
    case 'EADDRINUSE':
      return { code: EXIT.cannotStart, message: `port ${config.port} on ${config.host} is in use by another program (another skein?): stop it, or give another SKEIN_PORT (--port; 0 picks a free one)` };
    case 'EADDRNOTAVAIL':
      return { code: EXIT.cannotStart, message: `cannot listen on ${where}: ${config.host} is not an address of this machine; give another SKEIN_HOST (--host)` };
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      // SKEIN_HOST is a name the system cannot look up (a typo, a stray word): said, not a stack trace.
      if (e.syscall === 'getaddrinfo') return { code: EXIT.cannotStart, message: `cannot listen on ${where}: the host name ${JSON.stringify(config.host)} does not resolve (${e.code}); give another SKEIN_HOST (--host): a host name or IP address of this machine` };
      return undefined;
    case 'EACCES':
    case 'EPERM':
      if (e.syscall === 'listen') return { code: EXIT.cannotStart, message: `cannot listen on ${where}: permission denied (ports below 1024 need privileges); give another SKEIN_PORT (--port)` };
      if (e.path?.startsWith(config.dataDir)) return { code: EXIT.cannotStart, message: `the data folder ${config.dataDir} is not usable: ${e.path}: permission denied; give SKEIN_DATA_DIR (--data-dir) your own folder` };
      return undefined;
    case 'ENOSPC':
    case 'EROFS':
      if (e.path?.startsWith(config.dataDir)) return { code: EXIT.cannotStart, message: `the data folder ${config.dataDir} is not usable: ${e.code === 'ENOSPC' ? 'no space left' : 'a read-only file system'} (${e.path})` };
      return undefined;
    default:
      return undefined;
  }
}
