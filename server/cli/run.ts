// `skein run "task"`: one turn, headless. Starts (or continues, --session) a
// session, sends the task (with piped stdin appended), streams the timeline
// until the agent is done. Calls waiting for approval are answered
// (approval-prompt.ts); a signal or a closed stdout cancels the turn (stop.ts).
import type { ApprovalRequestEvent } from '../../shared/protocol.js';
import { Api } from './api.js';
import { answerApproval } from './approval-prompt.js';
import type { CliArgs } from './args.js';
import { connect } from './connection.js';
import { CliError, EXIT, type ExitCode } from './exit-codes.js';
import { follow } from './follow.js';
import { TextRenderer } from './render.js';
import type { Stop, StopReason } from './stop.js';
import { applySessionSettings, refusedSetting } from './session-settings.js';
import { STATE_WORDS } from './state-words.js';
import { composeTask } from './task.js';
import { TurnWatch } from './turn-watch.js';
import { ChildEvents } from './child-events.js';
import { childRequest } from '../acp/child-approval.js';

export interface Io {
  out: (text: string) => void;
  err: (text: string) => void;
  /** stdin's text when it is not a terminal (the task, or what is appended to it). */
  readStdin: () => Promise<string | undefined>;
}

export interface RunIo extends Io {
  /** Asks on the terminal (approvals); absent when stdin is not one. */
  ask?: (question: string) => Promise<string>;
  /** Signals and a closed stdout; absent in-process (tests of parts). */
  stop?: Stop;
  /** stdout is a terminal that takes styles (not NO_COLOR, not TERM=dumb): text mode renders the agent's Markdown. */
  styled?: boolean;
}

/** After a stop, how long the turn's end is awaited before leaving anyway (the server cancels it regardless). */
const STOP_GRACE_MS = 15_000;

function rethrow(err: unknown): never {
  throw err;
}

export async function runCommand(args: CliArgs, env: NodeJS.ProcessEnv, io: RunIo): Promise<ExitCode> {
  const task = composeTask(args.positionals, await io.readStdin());
  const connection = await connect(args, env);
  if (connection.note) io.err(connection.note);
  try {
    const api = new Api(connection);
    const asked = connection.settings;
    const model = asked.model;
    const id: string = args.session ?? (await api.createSession(connection.model).catch((err: unknown): never => (model ? refusedSetting(model, err) : rethrow(err))));
    // Before the task: its first call already meets the mode, model and effort asked for, read back from the server
    // (a running server's own SKEIN_APPROVAL never overrides them; the switch is the user's, with the token).
    const snapshot = await applySessionSettings(api, id, asked);
    io.err(`skein: session ${id}${args.session ? '' : ` (continue it with: skein run --session ${id} "…")`}\n`);
    if (asked.mode) io.err(`skein: approval mode ${snapshot.mode} (${asked.mode.source})\n`);
    if (snapshot.state !== 'WaitingForUserInput') io.err(`skein: the session is busy (${STATE_WORDS[snapshot.state]}): the task joins its current turn\n`);
    const watch = new TurnWatch(task, snapshot.state !== 'WaitingForUserInput');
    const renderer = new TextRenderer(snapshot.gauge, { styled: io.styled === true });
    let stopped: StopReason | undefined;
    let failure: CliError | undefined;
    let sent = false;
    const cancel = () => void api.cancel(id).catch(() => {});
    const out = (text: string) => void (stopped?.stdoutClosed || io.out(text));
    let leave!: () => void;
    const graceOver = new Promise<void>((resolve) => (leave = resolve));
    const stopTurn = () => {
      if (sent) cancel();
      setTimeout(leave, STOP_GRACE_MS).unref();
    };

    const onApproval = (request: ApprovalRequestEvent) => {
      answerApproval(request, args.approve, api, id, io)
        .catch((err: unknown) => (err instanceof CliError ? err : new CliError(EXIT.approvalNeeded, `${request.name} needs approval: ${(err as Error).message}`)))
        .then((refused) => {
          if (!refused || failure) return;
          failure = refused;
          stopTurn();
        });
    };
    // A child's events, tagged with its session id (`session` on each JSON line; indented lines in text).
    const childRenderers = new Map<string, TextRenderer>();
    const children = new ChildEvents(connection, api, (started, event) => {
      if (args.json) return out(`${JSON.stringify({ ...event, session: started.child })}\n`);
      let childRenderer = childRenderers.get(started.child);
      if (!childRenderer) childRenderers.set(started.child, (childRenderer = new TextRenderer(undefined, { styled: io.styled === true })));
      for (const line of childRenderer.lines(event)) out(`  │ [${started.agent} ${started.child}] ${line.replace(/\n/g, '\n  │ ')}\n`);
    });
    const following = await follow(connection, api, id, snapshot.lastSeq, (event) => {
      if (args.json) out(`${JSON.stringify(event)}\n`);
      else for (const line of renderer.lines(event)) out(`${line}\n`);
      children.see(event);
      // A child's call waiting for approval is answered as the turn's own (through this session's route: skein passes it down).
      if (event.kind === 'subagent' && event.phase === 'approval' && watch.inTurn && !stopped && !failure) {
        const request = childRequest(event);
        if (request) onApproval(request.event);
      }
      const over = watch.see(event);
      // A turn that began after the cancel was sent (the message was still queued) is cancelled too.
      if ((stopped || failure) && event.kind === 'state' && event.from === 'WaitingForUserInput') cancel();
      if (event.kind === 'approval_request' && watch.inTurn && !stopped && !failure) onApproval(event);
      return over;
    });
    io.stop?.handle((reason) => {
      stopped = reason;
      if (!reason.stdoutClosed) io.err(`skein: ${reason.why}: cancelling the turn${reason.code === EXIT.cancelled ? ' (Ctrl-C again to leave now)' : ''}\n`);
      stopTurn();
    });
    try {
      if (!stopped) {
        await api.send(id, task);
        sent = true;
        if (stopped || failure) cancel();
        await Promise.race([following.done, graceOver]);
      }
      if (!stopped && !failure) await children.drain();
    } finally {
      io.stop?.handle(undefined);
      following.close();
      children.close();
    }
    if (stopped) return stopped.code;
    if (failure) throw failure;
    return watch.exitCode();
  } finally {
    await connection.close();
  }
}
