// What the llama.cpp rows of the mismatch bench count, from a session's log
// and the recording proxy's exchanges (llama-proxy.ts): pure functions, so
// the rules can be read and tested apart from the servers.
import type { SkeinEvent } from '../../shared/protocol.js';
import type { Exchange } from './llama-proxy.js';

export interface LlamaCounts {
  /** User messages sent. */
  turns: number;
  /** Compactions that finished. */
  compactions: number;
  /** context_overflow errors in the log: turns the user saw end because the context did not fit. */
  userOverflows: number;
  /** The server's own refusals (HTTP 400 exceed_context_size_error) of skein's requests. */
  refusals: number;
  /** Answers of turn requests that stopped with finish_reason "length". */
  cuts: number;
  /** Of those, the ones that filled the server's context (prompt + completion = n_ctx), the rest stopped at max_tokens. */
  cutsContextFull: number;
  /** Cut answers skein kept and showed (an agent event) with nothing in the timeline saying so. */
  cutsUnnamed: number;
  /** Cut answers skein dropped (no agent event before its next request): not presented as finished. */
  cutsDropped: number;
  /** Summary requests that stopped with "length". */
  summaryCuts: number;
  /** Turns in which a compaction folded the user message being answered. */
  foldedTurns: number;
}

/**
 * Whether `e` tells the user an answer was cut and why: skein's own
 * `answer_cut` event (the timeline's "The answer was cut: …"). Nothing else
 * counts: an unrelated error or notice near it does not name the cut.
 */
export function namesCut(e: SkeinEvent): boolean {
  return e.kind === 'answer_cut';
}

const at = (e: SkeinEvent) => Date.parse(e.ts);

/**
 * Each cut turn answer, judged by what the log shows between its end and the
 * next turn request (or the next user message, or the end of the log): kept
 * (an agent event) and named (namesCut), kept unnamed, or dropped.
 */
export function judgeCuts(events: readonly SkeinEvent[], exchanges: readonly Exchange[], nCtx: number): Pick<LlamaCounts, 'cuts' | 'cutsContextFull' | 'cutsUnnamed' | 'cutsDropped'> {
  const turns = exchanges.filter((x) => x.purpose === 'agent').sort((a, b) => a.started - b.started);
  let cuts = 0;
  let full = 0;
  let unnamed = 0;
  let dropped = 0;
  for (const [i, x] of turns.entries()) {
    if (x.finishReason !== 'length') continue;
    cuts++;
    if ((x.promptTokens ?? 0) + (x.completionTokens ?? 0) >= nCtx) full++;
    const nextRequest = turns[i + 1]?.started ?? Infinity;
    const nextUser = events.find((e) => e.kind === 'user' && at(e) >= x.ended);
    const until = Math.min(nextRequest, nextUser ? at(nextUser) : Infinity);
    const after = events.filter((e) => at(e) >= x.ended && at(e) <= until && e !== nextUser);
    if (!after.some((e) => e.kind === 'agent')) dropped++;
    else if (!after.some(namesCut)) unnamed++;
  }
  return { cuts, cutsContextFull: full, cutsUnnamed: unnamed, cutsDropped: dropped };
}

/**
 * Turns whose user message a request of that turn did not carry as itself:
 * judged from the request bodies the server received (the proxy's
 * userTexts), not from what skein's log says it kept. A turn is each user
 * event up to the next; its requests are the turn requests sent after it.
 */
export function foldedTurns(events: readonly SkeinEvent[], exchanges: readonly Exchange[]): number {
  const users = events.filter((e): e is Extract<SkeinEvent, { kind: 'user' }> => e.kind === 'user');
  let folded = 0;
  for (const [i, u] of users.entries()) {
    const from = at(u);
    const until = users[i + 1] ? at(users[i + 1]!) : Infinity;
    const requests = exchanges.filter((x) => x.purpose === 'agent' && x.started >= from && x.started < until && x.userTexts);
    if (requests.some((x) => !x.userTexts!.some((t) => t.includes(u.text)))) folded++;
  }
  return folded;
}

export function countLlama(events: readonly SkeinEvent[], exchanges: readonly Exchange[], nCtx: number): LlamaCounts {
  return {
    turns: events.filter((e) => e.kind === 'user').length,
    compactions: events.filter((e) => e.kind === 'compaction' && e.phase === 'finished').length,
    userOverflows: events.filter((e) => e.kind === 'error' && e.code === 'context_overflow').length,
    refusals: exchanges.filter((x) => x.errorType === 'exceed_context_size_error').length,
    ...judgeCuts(events, exchanges, nCtx),
    summaryCuts: exchanges.filter((x) => x.purpose === 'summary' && x.finishReason === 'length').length,
    foldedTurns: foldedTurns(events, exchanges),
  };
}
