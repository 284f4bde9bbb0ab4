// `skein run "task"`: one turn, headless. Starts (or continues, --session) a
// session, sends the task, streams the timeline until the agent is done.
import { Api } from './api.js';
import type { CliArgs } from './args.js';
import { connect } from './connection.js';
import { CliError, EXIT, type ExitCode } from './exit-codes.js';
import { follow } from './follow.js';
import { TextRenderer } from './render.js';
import { TurnWatch } from './turn-watch.js';

export interface Io {
  out: (text: string) => void;
  err: (text: string) => void;
  /** The task when none is on the command line (stdin, when it is not a terminal). */
  readStdin: () => Promise<string | undefined>;
}

export async function runCommand(args: CliArgs, env: NodeJS.ProcessEnv, io: Io): Promise<ExitCode> {
  const task = (args.positionals.length ? args.positionals.join(' ') : ((await io.readStdin()) ?? '')).trim();
  if (!task) throw new CliError(EXIT.usage, 'no task: skein run "what to do" (or pipe it on stdin)');
  const connection = await connect(args, env);
  if (connection.note) io.err(connection.note);
  try {
    const api = new Api(connection);
    const id = args.session ?? (await api.createSession(connection.model));
    // Before the task: its first call already meets the mode asked for (the switch is the user's, with the token).
    if (args.mode) await api.setMode(id, args.mode);
    const snapshot = await api.session(id);
    io.err(`skein: session ${id}${args.session ? '' : ` (continue it with: skein run --session ${id} "…")`}\n`);
    if (args.mode) io.err(`skein: approval mode ${snapshot.mode ?? args.mode}\n`);
    const watch = new TurnWatch(task, snapshot.state !== 'WaitingForUserInput');
    const renderer = new TextRenderer(snapshot.gauge);
    const following = await follow(connection, api, id, snapshot.lastSeq, (event) => {
      if (args.json) io.out(`${JSON.stringify(event)}\n`);
      else for (const line of renderer.lines(event)) io.out(`${line}\n`);
      return watch.see(event);
    });
    // Ctrl-C cancels the turn (its end is still streamed); a second one leaves at once.
    let interrupts = 0;
    const onInterrupt = () => {
      if (++interrupts > 1) process.exit(130);
      io.err('skein: cancelling the turn (Ctrl-C again to leave now)\n');
      api.cancel(id).catch(() => {});
    };
    process.on('SIGINT', onInterrupt);
    try {
      await api.send(id, task);
      await following.done;
    } finally {
      process.off('SIGINT', onInterrupt);
      following.close();
    }
    return watch.exitCode();
  } finally {
    await connection.close();
  }
}
