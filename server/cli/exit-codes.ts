// The CLI's exit statuses: a script or CI job can tell why a run stopped.
export const EXIT = {
  /** The turn ended with the agent's answer (or the command did its job). */
  ok: 0,
  /** The turn ended in an error (the provider refused, a tool broke the turn, ...). */
  turnFailed: 1,
  /** Bad usage: an unknown flag, an invalid setting, an empty task, an unknown model. */
  usage: 2,
  /** The server could not be reached, refused the token, or answered unexpectedly. */
  server: 3,
  /** The turn was cancelled (Ctrl-C, or another client). */
  cancelled: 4,
  /** No session with that id. */
  notFound: 5,
  /** The turn stopped at SKEIN_MAX_STEPS_PER_TURN or SKEIN_MAX_TURN_COST_USD. */
  turnLimit: 6,
  /** The data folder is in use by another skein (a server, or a command with its own); the message names it. */
  dataDirInUse: 7,
  /** A bug in skein (the message has the stack). */
  internal: 70,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** A failure with the status the process exits with. */
export class CliError extends Error {
  constructor(
    readonly code: ExitCode,
    message: string,
  ) {
    super(message);
  }
}
