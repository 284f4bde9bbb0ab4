// The agent's states and every legal transition, in one place. An illegal
// transition is a bug: it throws, and the tests walk the whole table.
import type { AgentState } from '../../shared/protocol.js';

/**
 * WaitingForUserInput    idle; the inbox is empty
 * SendingToLLM           a request is on its way to the model
 * ProcessingLLMResponse  a response arrived; recording text and tool calls
 * RunningTools           the response's tool calls are running
 * WaitingForApproval     a tool call waits for the user's decision (SKEIN_APPROVAL)
 * Compacting             folding old history into a summary (only at safe points)
 * EndOfTurn              the model answered without asking for a tool
 * Cancelled              the user stopped the turn
 * Error                  the turn failed; an error event says why
 */
export const TRANSITIONS: Readonly<Record<AgentState, readonly AgentState[]>> = {
  WaitingForUserInput: ['SendingToLLM', 'Compacting'],
  SendingToLLM: ['ProcessingLLMResponse', 'Compacting', 'Cancelled', 'Error'],
  // SendingToLLM: a cut answer is continued at once (when no compaction is needed first).
  ProcessingLLMResponse: ['SendingToLLM', 'RunningTools', 'Compacting', 'EndOfTurn', 'Error'],
  RunningTools: ['SendingToLLM', 'WaitingForApproval', 'Compacting', 'Cancelled', 'Error'],
  // Back to RunningTools once decided; Cancelled: the user stopped the turn while asked; Error: a turn that cannot go on.
  WaitingForApproval: ['RunningTools', 'Cancelled', 'Error'],
  // Cancelled: the user may stop a long summary; Error: compaction cannot continue the turn.
  Compacting: ['SendingToLLM', 'EndOfTurn', 'WaitingForUserInput', 'Cancelled', 'Error'],
  EndOfTurn: ['WaitingForUserInput'],
  Cancelled: ['WaitingForUserInput'],
  Error: ['WaitingForUserInput'],
};

export class IllegalTransitionError extends Error {
  constructor(
    readonly from: AgentState,
    readonly to: AgentState,
  ) {
    super(`illegal agent transition ${from} -> ${to}`);
  }
}

export function canTransition(from: AgentState, to: AgentState): boolean {
  return TRANSITIONS[from].includes(to);
}

export class StateMachine {
  constructor(
    private current: AgentState,
    private readonly onTransition: (from: AgentState, to: AgentState, reason: string) => void,
  ) {}

  get state(): AgentState {
    return this.current;
  }

  /**
   * Last resort, after a bug while closing a turn: back to waiting without a
   * recorded transition. A restart closes the turn the log shows as interrupted.
   */
  forceIdle(): void {
    this.current = 'WaitingForUserInput';
  }

  /**
   * Moves to `to` or throws IllegalTransitionError. The callback records the
   * state event first: if the log refuses it, the state does not change, so
   * the state in memory is always the last one the log holds.
   */
  transition(to: AgentState, reason: string): void {
    const from = this.current;
    if (!canTransition(from, to)) throw new IllegalTransitionError(from, to);
    this.onTransition(from, to, reason);
    this.current = to;
  }
}
