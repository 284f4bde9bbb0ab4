// How a turn ends: finished, cancelled or failed, closed back to
// WaitingForUserInput with its open work answered; after a restart, a turn
// that was running is closed as interrupted (or a fork's copy as "forked
// here"); a refused log write pauses the loop and is tried again.
import { FORKED_HERE, type AgentState, type SkeinEvent } from '../../shared/protocol.js';
import type { ToolCall } from '../llm/types.js';
import { log } from '../log.js';
import { ApprovalSuspended, unansweredCalls, type ApprovalGate } from './approvals.js';
import { LogWriteError, type Session } from './session.js';
import { canTransition, type StateMachine } from './state-machine.js';
import { closeOpenWork, turnEndFor, type TurnEnd } from './turn-end.js';
import type { WriteBackoff } from './write-backoff.js';

/** What closing turns needs of the agent. */
export interface ClosingHost {
  readonly session: Session;
  readonly machine: StateMachine;
  readonly approvals: ApprovalGate;
  readonly writes: WriteBackoff;
  /** Fires at shutdown (a write pause stops waiting). */
  readonly stopped: AbortSignal;
  state(): AgentState;
  /** The running turn was cancelled (its abort signal fired). */
  aborted(): boolean;
  /** The turn is over: its abort controller goes. */
  turnOver(): void;
  wake(): void;
  /** Calls logged before a restart, waiting for approval: the loop goes on from them. */
  resume(calls: ToolCall[]): void;
  /** The messages so far are given up (never answered). */
  skipUnseen(): void;
}

export class TurnClosing {
  /** A turn to close once the log takes writes again. */
  unfinished: TurnEnd | undefined;
  /** Turns in a row that failed before their first transition. */
  startFailures = 0;

  constructor(private readonly host: ClosingHost) {}

  /**
   * After a restart: a turn that was running when the process died is closed
   * as interrupted. `forked`: the log is a fork's copy (see closeForked).
   */
  recoverInterrupted(reason = 'interrupted: the server restarted', forked = false): void {
    if (forked) return this.closeForked();
    // Waiting for a decision is not interrupted work: the request stays pending and the buttons come back.
    if (this.host.approvals.pendingInLog()) {
      this.host.resume(unansweredCalls(this.host.session.log.all()));
      this.host.wake();
      return;
    }
    const end: TurnEnd = { reason, via: 'Error', code: 'interrupted' };
    try {
      this.closeTurn(end);
    } catch (err) {
      if (!(err instanceof LogWriteError)) throw err;
      // The disk is full at start: the session still loads, and the loop closes the turn once writes succeed.
      this.unfinished = end;
      this.host.wake();
    }
  }

  /**
   * A fork's copy: nothing failed, the user chose a point. After a finished
   * turn the copy just waits; a turn the point cut is closed with a plain
   * "forked here" (its open calls answered so, a call waiting for approval
   * denied: the original still waits for its own decision).
   */
  private closeForked(): void {
    const state = this.host.state();
    if (state === 'WaitingForUserInput') return;
    if (state === 'EndOfTurn' || answeredTurn(this.host.session.log.all())) {
      this.finishTurn('forked after a finished turn', 'EndOfTurn');
      return;
    }
    this.host.approvals.denyForFork();
    closeOpenWork(this.host.session, `not run: ${FORKED_HERE}`);
    this.finishTurn(FORKED_HERE, 'Cancelled');
  }

  /** Ends a turn through `via` (EndOfTurn, Cancelled or Error) back to WaitingForUserInput. */
  finishTurn(reason: string, via: 'EndOfTurn' | 'Cancelled' | 'Error'): void {
    const state = this.host.state();
    if (state === 'WaitingForUserInput') return;
    if (state !== 'EndOfTurn' && state !== 'Cancelled' && state !== 'Error') {
      this.host.machine.transition(canTransition(state, via) ? via : 'Error', reason);
    }
    this.host.machine.transition('WaitingForUserInput', reason);
    this.host.turnOver();
  }

  /** Closes a turn that failed or was cancelled; throws if the log refuses, and can be called again. */
  closeTurn(end: TurnEnd): void {
    const state = this.host.state();
    if (state === 'WaitingForUserInput') return;
    closeOpenWork(this.host.session, end.via === 'Cancelled' ? 'cancelled by the user before it ran' : end.reason);
    if (end.via === 'Error' && !end.recorded && state !== 'EndOfTurn' && state !== 'Cancelled' && state !== 'Error') {
      this.host.session.append({ kind: 'error', message: end.reason, ...(end.code && { code: end.code }) });
    }
    end.recorded = true;
    this.finishTurn(end.reason, end.via);
  }

  /**
   * Any failure: the turn is closed with its reason and the session waits for
   * the user. When the log refuses the writes, the loop waits (longer each
   * time) and tries again; the clients are told once.
   */
  async recover(err: unknown): Promise<void> {
    // Shutting down while a call waits for approval: the log keeps it pending for the restart.
    if (err instanceof ApprovalSuspended) return;
    if (this.host.state() !== 'WaitingForUserInput') this.unfinished ??= turnEndFor(err, this.host.aborted());
    let refused = err instanceof LogWriteError ? err : undefined;
    try {
      if (this.unfinished) this.closeTurn(this.unfinished);
      else if (!refused) this.failedBeforeStart(err);
      this.unfinished = undefined;
    } catch (inner) {
      if (inner instanceof LogWriteError) refused = inner;
      else {
        // A bug while closing: go back to waiting; a restart closes the turn the log shows as interrupted.
        log.error(`cannot close the turn: ${String(inner)}`, { session: this.host.session.id });
        this.host.machine.forceIdle();
        this.unfinished = undefined;
      }
    }
    if (!refused) return this.host.writes.succeeded();
    if (!this.host.writes.failing) log.error(`cannot write the log: ${refused.message}`, { session: this.host.session.id });
    await this.host.writes.pause(refused, this.host.stopped);
  }

  /** A failure before a turn's first transition is recorded; the same failure twice in a row gives up its messages (no loop). */
  private failedBeforeStart(err: unknown): void {
    log.error('a turn could not start', { session: this.host.session.id, error: err });
    this.host.session.append({ kind: 'error', message: `the turn could not start: ${err instanceof Error ? err.message : String(err)}`, code: 'internal' });
    if (++this.startFailures >= 2) this.host.skipUnseen();
  }
}

/** The log ends with the model's final answer (only usage or notes after it): the turn is done. */
function answeredTurn(events: readonly SkeinEvent[]): boolean {
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i]!;
    if (e.kind === 'usage' || e.kind === 'status' || e.kind === 'limits' || e.kind === 'mode' || e.kind === 'worktree') continue;
    return e.kind === 'agent' && e.endOfTurn;
  }
  return false;
}
