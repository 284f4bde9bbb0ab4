// An answer the provider stopped before its end (finish_reason "length",
// stop_reason "max_tokens", Gemini's MAX_TOKENS, a Responses "incomplete"):
// never taken for a finished one. Each cut is an `answer_cut` event saying why:
// a full context (prompt and answer reached the window, or the server's
// n_ctx) teaches the window when skein believed a larger one, and the turn
// goes on once compaction made room; the output budget alone (max_tokens)
// is said too, and the turn goes on as it is. The cut text stays in the log
// and the view, and a note asks the model to continue from the cut (a
// continuation, not a restart). At most MAX_CONTINUATIONS per turn, so an
// answer that never ends cannot loop.
import { CUT_NOTE_CLOSE, CUT_NOTE_OPEN, type AnswerCutEvent } from '../../shared/protocol.js';
import type { ModelInfo } from '../llm/models.js';
import type { LlmRequest, LlmResponse } from '../llm/types.js';
import type { Session } from './session.js';
import type { SessionWindow } from './window.js';

/** Continuations of cut answers one turn asks for before it leaves the answer cut (Claude Code's recovery allows as many). */
export const MAX_CONTINUATIONS = 3;
/** No server runs a chat model in a context this small: a smaller sum is usage not really reported, never a window to learn. */
const MIN_LEARNED_WINDOW = 512;

export interface CutHost {
  session: Session;
  window: SessionWindow;
  /** The model table's entry (its provider: hosted APIs refuse a prompt that does not fit instead of cutting the answer short). */
  info(): ModelInfo;
}

/** A cut answer, before its event is logged. */
export interface CutAnswer {
  reason: AnswerCutEvent['reason'];
  input: number;
  output: number;
  maxTokens: number;
  /** The turn asks the model to go on (false once MAX_CONTINUATIONS were asked for). */
  continues: boolean;
}

export class CutAnswers {
  private continued = 0;
  /** The continuation asked for and not answered yet: its note's event, sent again if a compaction folds it. */
  private pending: (Omit<AnswerCutEvent, 'seq' | 'ts'> & { seq: number }) | undefined;

  constructor(private readonly host: CutHost) {}

  startTurn(): void {
    this.continued = 0;
    this.pending = undefined;
  }

  /** A response arrived: the continuation (if one was asked for) was read. */
  answered(): void {
    this.pending = undefined;
  }

  /**
   * At the safe point before a request: a compaction that folded the note
   * asking to continue took it out of the view, so it is sent again (the
   * model would otherwise answer a summary, not go on from its cut).
   */
  beforeRequest(): void {
    const pending = this.pending;
    if (!pending) return;
    const folded = this.host.session.log.since(pending.seq).some((e) => e.kind === 'compaction' && e.phase === 'finished' && e.coversSeq !== undefined && e.coversSeq[1] >= pending.seq);
    if (!folded) return;
    const { seq: _seq, ...again } = pending;
    this.pending = { ...again, again: true, seq: this.host.session.append({ ...again, again: true }).seq };
  }

  /** The response was cut, and why (undefined: it ended, or it asks for tools). Logs nothing. */
  classify(request: LlmRequest, response: LlmResponse): CutAnswer | undefined {
    if (response.stopReason !== 'max_tokens' || response.toolCalls.length) return undefined;
    const { usage } = response;
    const input = usage.input + usage.cacheRead + usage.cacheWrite;
    const output = usage.output;
    const maxTokens = request.maxOutputTokens;
    const filled = input + output;
    const { window } = this.host;
    const contexts = [window.contextWindow, window.serverContext].filter((c): c is number => c !== undefined);
    const reachedWindow = input > 0 && contexts.some((c) => filled >= c);
    // Stopped for length before its output budget: nothing but the context bounds it (llama.cpp stops at n_ctx).
    // Hosted APIs refuse what does not fit instead, so there it says nothing about the window.
    const provider = this.host.info().provider;
    const hosted = provider === 'anthropic' || provider === 'gemini' || this.host.info().thinking?.mode === 'responses';
    const beforeBudget = !hosted && input > 0 && output > 0 && output < maxTokens;
    // An answer that used its whole budget stopped at max_tokens, whatever window skein believed (a setting below the
    // server's real one would read it as a full context); only the server saying so makes it a full context.
    const usedBudget = output >= maxTokens;
    const reason = response.contextFull || (!usedBudget && (reachedWindow || beforeBudget)) ? 'context' : 'max_tokens';
    return { reason, input, output, maxTokens, continues: this.continued < MAX_CONTINUATIONS };
  }

  /** Logs the cut (after the answer's own event), learning the window from a full context. */
  record(cut: CutAnswer): void {
    const { window } = this.host;
    const before = window.contextWindow;
    const filled = cut.input + cut.output;
    let learned = '';
    if (cut.reason === 'context' && filled >= MIN_LEARNED_WINDOW && filled < before) {
      const message = `The server's context is ${fmt(filled)} tokens, not ${fmt(before)}: an answer stopped for length when prompt (${fmt(cut.input)}) and answer (${fmt(cut.output)}) filled it. skein now uses ${fmt(filled)} and compacts to fit.`;
      if (window.learnFromCut(filled, message)) learned = `; skein believed the window was ${fmt(before)} tokens and now uses ${fmt(window.contextWindow)}`;
    }
    if (cut.continues) this.continued++;
    const why =
      cut.reason === 'context'
        ? `prompt and answer filled the ${fmt(window.contextWindow)}-token context window (${fmt(cut.input)} prompt + ${fmt(cut.output)} answer tokens${learned})`
        : `the answer reached its max_tokens limit of ${fmt(cut.maxTokens)} (${filled > 0 ? `${fmt(cut.input)} prompt + ${fmt(cut.output)} answer tokens` : 'the server reported no usage'}, in a ${fmt(window.contextWindow)}-token window)`;
    const next = !cut.continues
      ? `skein stopped asking the model to continue after ${MAX_CONTINUATIONS} continuations in this turn: send “continue” to go on.`
      : cut.reason === 'context'
        ? 'skein makes room (compacting if needed) and asks the model to continue from where it stopped.'
        : 'skein asks the model to continue from where it stopped.';
    const message = `The answer was cut: ${why}. ${next}`;
    const event = {
      kind: 'answer_cut' as const,
      reason: cut.reason,
      input: cut.input,
      output: cut.output,
      maxTokens: cut.maxTokens,
      contextWindow: window.contextWindow,
      message,
      ...(cut.continues && { text: continuationNote(cut) }),
    };
    const logged = this.host.session.append(event);
    this.pending = cut.continues ? { ...event, seq: logged.seq } : undefined;
  }
}

/** What the model reads after its cut answer: go on from the cut, without starting again. */
export function continuationNote(cut: Pick<CutAnswer, 'reason' | 'maxTokens'>): string {
  const why = cut.reason === 'context' ? 'the context window was full (older history may have been compacted since)' : `it reached the limit of ${fmt(cut.maxTokens)} output tokens`;
  return (
    `${CUT_NOTE_OPEN}Automatic note from skein (not a message from the user): your previous answer was cut because ${why}. ` +
    'Continue exactly where it stopped, mid-sentence if that is where it was cut: no apology, no recap, do not repeat what you already wrote. ' +
    `If you were about to call a tool, call it now.${CUT_NOTE_CLOSE}`
  );
}

function fmt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}
