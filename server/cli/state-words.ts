// The agent's states as the command line says them (`skein sessions`, `skein
// run`): words, not the wire's names. The wire names stay in --json output.
import type { AgentState } from '../../shared/protocol.js';

export const STATE_WORDS: Record<AgentState, string> = {
  WaitingForUserInput: 'waiting for you',
  SendingToLLM: 'thinking',
  ProcessingLLMResponse: 'reading the answer',
  RunningTools: 'running tools',
  WaitingForApproval: 'waiting for your approval',
  Compacting: 'compacting',
  EndOfTurn: 'finishing the turn',
  Cancelled: 'cancelled',
  Error: 'stopped by an error',
};

/** The widest of the words: the state column of `skein sessions` is this wide. */
export const STATE_WIDTH = Math.max(...Object.values(STATE_WORDS).map((w) => w.length));
