// When is "the turn" of `skein run` over, and how did it end? Read from the
// session's events only: the user event carrying our task, then the agent
// leaving and coming back to WaitingForUserInput.
import type { SkeinEvent } from '../../shared/protocol.js';
import { EXIT, type ExitCode } from './exit-codes.js';

export class TurnWatch {
  private userSeq: number | undefined;
  private started: boolean;
  private ending: 'EndOfTurn' | 'Cancelled' | 'Error' | undefined;
  private lastErrorCode: string | undefined;

  constructor(
    private readonly task: string,
    /** The session was mid-turn when the task was sent: the task joins that turn. */
    busy: boolean,
  ) {
    this.started = busy;
  }

  /** Our task has been seen: what follows belongs to its turn. */
  get inTurn(): boolean {
    return this.userSeq !== undefined;
  }

  /** Takes the next event; true once the turn is over. */
  see(event: SkeinEvent): boolean {
    if (this.userSeq === undefined) {
      if (event.kind === 'user' && event.text === this.task) this.userSeq = event.seq;
      return false;
    }
    if (event.kind === 'error' && event.code !== 'retrying') this.lastErrorCode = event.code;
    if (event.kind !== 'state') return false;
    if (event.from === 'WaitingForUserInput') this.started = true;
    if (event.to === 'EndOfTurn' || event.to === 'Cancelled' || event.to === 'Error') this.ending = event.to;
    return event.to === 'WaitingForUserInput' && this.started;
  }

  /** How the process should exit (a /compact that ran no turn counts as done). */
  exitCode(): ExitCode {
    if (this.ending === 'Cancelled') return EXIT.cancelled;
    if (this.ending === 'Error') return this.lastErrorCode === 'turn_limit' ? EXIT.turnLimit : EXIT.turnFailed;
    return EXIT.ok;
  }
}
