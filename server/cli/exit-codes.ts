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
  /**
   * A setting asked for (SKEIN_APPROVAL, SKEIN_MODEL, SKEIN_REASONING_EFFORT, SKEIN_SANDBOX*, or their flags)
   * cannot take effect on the running server's session; nothing was sent (the message names it and the server's value).
   */
  settingRefused: 10,
  /** A bug in skein (the message has the stack). */
  internal: 70,
  /** A tool call needed approval and nobody could give it: stdin is not a terminal and --approve did not cover it (the message names the call). */
  approvalNeeded: 8,
  /** The server could not start: its port is in use, or the data folder is unusable (not a folder, not writable, cannot be made). */
  cannotStart: 9,
  /** SIGHUP (the terminal went away): the turn was cancelled, as with Ctrl-C (128 + 1, the shell's convention). */
  hangup: 129,
  /** Nobody reads stdout any more (`skein run … | head`): the turn was cancelled (128 + SIGPIPE's 13, as a shell reports a process ended by SIGPIPE). */
  stdoutClosed: 141,
  /** SIGTERM (`timeout`, CI, systemd): the turn was cancelled, as with Ctrl-C (128 + 15). */
  terminated: 143,
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
