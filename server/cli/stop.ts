// Why `skein run` must stop before its turn ends: Ctrl-C, SIGTERM (`timeout`,
// CI, systemd), SIGHUP (the terminal closed), or nobody reading stdout any
// more (`| head`). Each cancels the turn on the server, as Ctrl-C always did,
// and the process exits with its own status. Before a turn runs there is
// nothing to cancel: the process leaves at once. A second signal leaves at
// once too. Tools' processes of an embedded server go with it either way
// (tools/processes.ts kills them on exit).
import { EXIT, type ExitCode } from './exit-codes.js';

export interface StopReason {
  code: ExitCode;
  /** For the user, on stderr: what happened. */
  why: string;
  /** The stop came from stdout: nothing more may be written there. */
  stdoutClosed?: boolean;
}

type Listener = (reason: StopReason) => void;

const SIGNALS: Record<'SIGINT' | 'SIGTERM' | 'SIGHUP', { code: ExitCode; now: number; why: string }> = {
  SIGINT: { code: EXIT.cancelled, now: 130, why: 'Ctrl-C' },
  SIGTERM: { code: EXIT.terminated, now: EXIT.terminated, why: 'SIGTERM' },
  SIGHUP: { code: EXIT.hangup, now: EXIT.hangup, why: 'SIGHUP' },
};

export class Stop {
  reason: StopReason | undefined;
  private listener: Listener | undefined;

  /** The running command takes over the stop (cancels its turn); without one, a stop exits at once. */
  handle(listener: Listener | undefined): void {
    this.listener = listener;
  }

  trigger(reason: StopReason, exitNow: number): void {
    if (this.reason && !reason.stdoutClosed) return void process.exit(exitNow);
    if (this.reason) return;
    this.reason = reason;
    if (!this.listener) return void process.exit(reason.code);
    this.listener(reason);
  }
}

/** Signal handlers and the stdout watch, for the CLI's commands (the server keeps its own: main.ts). */
export function installStop(err: (text: string) => void): Stop {
  const stop = new Stop();
  for (const [signal, { code, now, why }] of Object.entries(SIGNALS)) {
    process.on(signal, () => {
      if (stop.reason) err(`skein: ${why} again: leaving now\n`);
      stop.trigger({ code, why }, now);
    });
  }
  // A reader that went away (EPIPE), or a terminal that did (EIO): no stack trace, the turn is cancelled.
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE' && e.code !== 'EIO' && e.code !== 'ERR_STREAM_DESTROYED') throw e;
    stop.trigger({ code: EXIT.stdoutClosed, why: 'stdout was closed', stdoutClosed: true }, EXIT.stdoutClosed);
  });
  // stderr gone as well (SIGHUP): what was to be said there is dropped.
  process.stderr.on('error', () => {});
  return stop;
}
