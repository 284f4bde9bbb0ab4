// When is a prompt's turn over, and which ACP stop reason ends it? Read from
// the session's events only (as `skein run` does): the user event carrying the
// prompt, then the agent leaving WaitingForUserInput and coming back to it.
import type { StopReason } from '@agentclientprotocol/sdk';
import type { AgentState, SkeinEvent } from '../../shared/protocol.js';

export type TurnEnding = { stopReason: StopReason; error?: undefined } | { error: string; code: string | undefined };

/**
 * Cancelled: `cancelled`; a turn limit (SKEIN_MAX_STEPS_PER_TURN,
 * SKEIN_MAX_TURN_COST_USD): `max_turn_requests`; the provider refused the
 * request (a 4xx other than a rate limit, or a prompt too long even after
 * compaction): `refusal`; a turn that ended on an answer left cut (skein
 * stopped continuing it): `max_tokens`; any other failure is an error of
 * session/prompt.
 */
export function endingOf(via: 'EndOfTurn' | 'Cancelled' | 'Error' | undefined, code: string | undefined, message: string | undefined, leftCut = false): TurnEnding {
  if (via === 'Cancelled') return { stopReason: 'cancelled' };
  if (via !== 'Error') return { stopReason: leftCut ? 'max_tokens' : 'end_turn' };
  if (code === 'turn_limit') return { stopReason: 'max_turn_requests' };
  if (code === 'context_overflow' || (code !== undefined && /^provider_4\d\d$/.test(code) && code !== 'provider_429')) return { stopReason: 'refusal' };
  return { error: message ?? 'the turn ended in an error', code };
}

export class TurnWatch {
  private userSeq: number | undefined;
  private started: boolean;
  private via: 'EndOfTurn' | 'Cancelled' | 'Error' | undefined;
  private errorCode: string | undefined;
  private errorMessage: string | undefined;
  /** The last answer of the turn was cut and not continued (an answer_cut event without a note). */
  private leftCut = false;

  /** `busy`: the session was mid-turn when the prompt was sent (the prompt joins that turn). */
  constructor(
    private readonly text: string,
    busy: boolean,
  ) {
    this.started = busy;
  }

  /** Takes the next event; the ending once the turn is over. */
  see(event: SkeinEvent): TurnEnding | undefined {
    if (this.userSeq === undefined) {
      if (event.kind === 'user' && event.text === this.text) this.userSeq = event.seq;
      return undefined;
    }
    if (event.kind === 'answer_cut' && !event.again) this.leftCut = event.text === undefined;
    if (event.kind === 'error' && event.code !== 'retrying') {
      this.errorCode = event.code;
      this.errorMessage = event.message;
    }
    if (event.kind !== 'state') return undefined;
    if (event.from === 'WaitingForUserInput') this.started = true;
    if (event.to === 'EndOfTurn' || event.to === 'Cancelled' || event.to === 'Error') this.via = event.to;
    if (event.to !== 'WaitingForUserInput' || !this.started) return undefined;
    return endingOf(this.via, this.errorCode, this.errorMessage, this.leftCut);
  }
}

export const IDLE: AgentState = 'WaitingForUserInput';
