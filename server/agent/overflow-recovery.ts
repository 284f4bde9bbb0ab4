// What the agent does when the provider refuses a request as too long (or is
// seen cutting it): learn the window the refusal names, then either ask for
// less output (the prompt fits, the answer's room did not) or compact to the
// target of the learned window and retry. A refused retry folds harder
// (level 1: deterministic, smaller kept tail; level 2: every old tool result
// cleared, nothing recent kept), each attempt strictly smaller than the last.
// Every path is bounded: at most MAX_ATTEMPTS recoveries of one request, the
// check before sending included, so no value that fails to shrink can spin a
// session. The turn ends only when compacting truly cannot make the request
// fit, with an error whose numbers agree, or when the server keeps refusing
// what its own numbers say fits.
import { WINDOW_SOURCE_WORDS } from '../../shared/protocol.js';
import { ContextOverflowError, ProviderError, type LlmResponse } from '../llm/types.js';
import { outputFloor, unnamedWindow, windowMargin, type SessionWindow } from './window.js';

/**
 * Not a refusal: skein's own check before sending found that the request
 * cannot fit the window it knows (a server that cuts would drop the first
 * user message, one that refuses would refuse). Recovered from like a refusal,
 * without spending one of the server's.
 */
export class WouldOverflowError extends ContextOverflowError {}

/** An error the server did not word as "too long" (an unknown 400 near the window), taken for one once. */
export class GuessedOverflowError extends ContextOverflowError {}

/** Compaction levels: 0 the normal pipeline, 1 deterministic with a smaller tail, 2 clear everything old. */
export const MAX_LEVEL = 2;
/** Refusals of one request before the turn ends. */
export const MAX_REFUSALS = 4;
/** Recoveries of one request of any kind (refusals, skein's own check, output caps): the bound that holds on every path. */
export const MAX_ATTEMPTS = MAX_REFUSALS + MAX_LEVEL + 2;
/** An unrecognised refusal of a request at least this share of the known window is taken for an overflow (once). */
export const NEAR_WINDOW = 0.8;
/** Statuses an unrecognised refusal as too long may come with. */
const REFUSAL_STATUSES = new Set([400, 413, 422]);

export interface RecoveryHost {
  window: SessionWindow;
  model(): string;
  /** Enters Compacting (once per refusal). */
  enterCompacting(reason: string): void;
  compact(level: number): Promise<void>;
  /** Calibrated estimate of the next request's input, in the provider's tokens. */
  estimate(): number;
  /** The same for what can never be folded: system prompt, tools, the message being answered. */
  headEstimate(): number;
  /** What the head holds besides the system prompt and tools ("your first message", "the message being answered"). */
  headWords?(): string;
  /** SKEIN_COMPACT_PREFLIGHT: the check before sending is a pre-flight compaction too (off: requests go out as they are). */
  preflight?: () => boolean;
  /** A refusal named the prompt tokens the server counted for a request of `raw` tokens by our count (calibrates the estimate). */
  calibrate?: (raw: number, prompt: number) => void;
  /** Says in the timeline what skein does about an unrecognised refusal. */
  note?: (message: string) => void;
}

export interface SentRequest {
  /** Estimated input tokens (provider's units). */
  input: number;
  maxTokens: number;
  /** Our uncalibrated count of the request, for calibrating from a refusal that names the server's. */
  raw?: number;
}

export class OverflowRecovery {
  private refusals = 0;
  private attempts = 0;
  private smallestRefused = Infinity;
  /** An unrecognised refusal was already taken for an overflow for this request. */
  private guessed = false;
  /** The request already went again asking for the output floor only (a refusal that named no window). */
  private outputFloored = false;

  constructor(private readonly host: RecoveryHost) {}

  /** Set when compacting could not make a request fit the known window: it is sent anyway, and the server decides. */
  private sendAsIs = false;

  /** A request was answered: the next refusal starts a fresh recovery. */
  answered(): void {
    this.refusals = 0;
    this.attempts = 0;
    this.smallestRefused = Infinity;
    this.sendAsIs = false;
    this.guessed = false;
    this.outputFloored = false;
  }

  /**
   * Before sending: a request whose estimate leaves the answer less than its
   * floor in the known window throws a WouldOverflowError, so it is compacted
   * harder first rather than cut or refused.
   */
  check(estimate: number, maxTokens: number): void {
    const { window } = this.host;
    if (this.sendAsIs || this.host.preflight?.() === false || !window.tooLong(estimate)) return;
    throw new WouldOverflowError(
      `the next request (about ${fmt(estimate)} tokens) leaves less than ${fmt(outputFloor(window.contextWindow))} for the answer in a ${fmt(window.contextWindow)}-token window`,
      { window: window.contextWindow, prompt: estimate, maxTokens },
    );
  }

  /**
   * A failure the server did not word as "too long": a 400 (413, 422) on a
   * request near the known window is taken for an overflow once per request,
   * and the timeline says so. Undefined: a real error, for the user.
   */
  unrecognised(err: unknown, sent: SentRequest): ContextOverflowError | undefined {
    if (!(err instanceof ProviderError) || err.retryable || err.status === undefined || !REFUSAL_STATUSES.has(err.status) || this.guessed) return undefined;
    const window = this.host.window.contextWindow;
    if (sent.input + sent.maxTokens < NEAR_WINDOW * window) return undefined;
    this.guessed = true;
    this.host.note?.(
      `The server refused the request with ${err.status} (“${err.message.slice(0, 200)}”), which skein does not recognise as “too long”; ` +
        `but the request (about ${fmt(sent.input)} tokens, ${fmt(sent.maxTokens)} asked for the answer) is near the ${fmt(window)}-token window, so skein compacts and retries it once, asking for at most ${fmt(outputFloor(window))} tokens of answer.`,
    );
    return new GuessedOverflowError(err.message, {});
  }

  /** 'output': retry now with a smaller output budget; 'compacted': the view was made smaller, send again. Throws when nothing can fit. */
  async recover(err: ContextOverflowError, sent: SentRequest): Promise<'output' | 'compacted'> {
    const { window } = this.host;
    const refused = err.limits;
    const prompt = refused.prompt ?? sent.input;
    // The bound on every path, skein's own check included: a recovery that fails to shrink cannot spin.
    const spent = ++this.attempts > MAX_ATTEMPTS;
    if (err instanceof WouldOverflowError) {
      if (spent) {
        // skein's own check could not be satisfied in MAX_ATTEMPTS rounds: the request goes out, the server decides.
        return this.sendAnyway(undefined);
      }
      // skein's own check: when compacting cannot help, the server has the last word (the known window may be too low).
      try {
        return await this.compactHarder(err, prompt);
      } catch (giveUp) {
        if (!(giveUp instanceof ContextOverflowError)) throw giveUp;
        return this.sendAnyway(giveUp);
      }
    }
    if (spent) throw this.keepsRefusing(prompt, `skein tried ${MAX_ATTEMPTS} times to make this request fit`);
    this.refusals++;
    if (this.refusals > MAX_REFUSALS) throw this.keepsRefusing(prompt, `the provider refused ${MAX_REFUSALS} smaller and smaller requests`);
    // The server's count of what we sent: the estimate learns its tokenizer from it. A refusal that names only the
    // window still says the prompt was more than the window less the output asked for.
    // A guessed overflow names nothing: the known window stands in for the one it would have named.
    const named = refused.window ?? (err instanceof GuessedOverflowError ? window.contextWindow : undefined);
    const counted = refused.prompt ?? (named !== undefined ? named - (refused.maxTokens ?? sent.maxTokens) + 1 : undefined);
    // (A cut prompt's count says nothing, unless it reached num_ctx: then the request was at least that, a floor to learn from.)
    if (counted !== undefined && counted > 0 && sent.raw !== undefined && (!err.truncated || refused.prompt !== undefined)) this.host.calibrate?.(sent.raw, counted);
    // A guess names nothing to size the retry by: it goes compacted, and asking for the answer's floor only.
    if (err instanceof GuessedOverflowError) {
      window.capOutput(outputFloor(window.contextWindow));
      return this.compactHarder(err, prompt, sent.maxTokens);
    }
    const margin = windowMargin(refused.window ?? window.contextWindow);
    if (!err.truncated && refused.window !== undefined && refused.window - prompt - margin >= outputFloor(refused.window) && prompt + (refused.maxTokens ?? sent.maxTokens) > refused.window) {
      // The prompt fits; the room asked for the answer did not: ask for less, no compaction.
      window.learn(refused.window, err);
      window.capOutput(refused.window - prompt - margin);
      return 'output';
    }
    // No number named: the window is below what was asked for (input and output budget) and at least the largest
    // prompt the server read in full: skein takes the safe end of that range once a prompt was proven, so that the
    // next request is not refused again (refusals after the window is known: at most one).
    const asked = prompt + (refused.maxTokens ?? sent.maxTokens);
    const learned = window.learn(refused.window ?? unnamedWindow(Math.min(asked, window.contextWindow), window.provenPrompt), err);
    // A refusal that names nothing may have been about the output budget alone: the smaller window now clamps it,
    // and the prompt fits, so the same prompt goes again, asking for less, before anything is folded (each time
    // for strictly less output: bounded by MAX_REFUSALS).
    if (refused.window === undefined && learned && !err.truncated && !window.tooLong(prompt) && window.outputBudget(prompt) < sent.maxTokens) return 'output';
    return this.compactHarder(err, prompt, refused.window === undefined ? sent.maxTokens : undefined);
  }

  /**
   * The request goes out although it leaves the answer less than its floor:
   * a server that refuses decides (the known window may be too low). Not to a
   * server known to cut at a context (num_ctx) the request passes: it would
   * drop the start of the conversation, the first message with it, and answer
   * from the rest; the user is told instead (`giveUp`, or why it cannot fit).
   */
  private sendAnyway(giveUp: ContextOverflowError | undefined): 'compacted' {
    const { window } = this.host;
    const numCtx = window.cutsAt;
    const next = this.host.estimate();
    if (numCtx !== undefined && next > numCtx) {
      throw giveUp ?? this.cannotFit(`compacting as hard as skein can still leaves about ${fmt(next)} tokens, more than the ${fmt(numCtx)} the server reads before it cuts the start of the conversation`);
    }
    this.sendAsIs = true;
    return 'compacted';
  }

  /** Compacts, harder at each refusal, until the request is strictly smaller than every refused one and fits the known window. */
  /**
   * `outputAsked`: a refusal that named no window (or was guessed to be one) may have been about the output
   * budget: when compacting cannot make the request smaller, it goes again once asking for the floor only,
   * before skein gives up.
   */
  private async compactHarder(err: ContextOverflowError, prompt: number, outputAsked?: number): Promise<'compacted'> {
    const { window } = this.host;
    this.smallestRefused = Math.min(this.smallestRefused, prompt);
    this.host.enterCompacting(`overflow: ${err.message}`);
    let next = this.host.estimate();
    // A prompt the server already read in full cannot be too long for it, whatever window skein assumes (one a
    // refusal that named no number only bounds): a request no larger is sent, never given up on.
    const proven = window.provenPrompt;
    for (let level = Math.min(this.attempts - 1, MAX_LEVEL); level <= MAX_LEVEL; level++) {
      const head = this.host.headEstimate();
      const w = window.contextWindow;
      const floor = outputFloor(w);
      if (head + floor + windowMargin(w) > w && head > proven) {
        throw this.cannotFit(`the system prompt, the tools and ${this.host.headWords?.() ?? 'your first message'} alone take about ${fmt(head)} tokens, ${this.andTheAnswer(head)}`);
      }
      await this.host.compact(level);
      next = this.host.estimate();
      // Strictly smaller than every refused request, and within the known window; the output budget is clamped to what is left.
      if (next < this.smallestRefused && !window.tooLong(next)) return 'compacted';
    }
    const w = window.contextWindow;
    if (window.tooLong(next) && next <= proven && next < this.smallestRefused) {
      this.sendAsIs = true;
      return 'compacted';
    }
    if (window.tooLong(next)) {
      throw this.cannotFit(`compacting as hard as skein can still leaves about ${fmt(next)} tokens, ${this.andTheAnswer(next)}`);
    }
    // Nothing folded, and the server never said its window: the output budget may be what passed it. Once, ask for the floor.
    if (outputAsked !== undefined && outputAsked > outputFloor(w) && !this.outputFloored) {
      this.outputFloored = true;
      window.capOutput(outputFloor(w));
      this.sendAsIs = true;
      return 'compacted';
    }
    // It fits by skein's count but is no smaller than what the server refused: skein's count is below the server's.
    throw this.keepsRefusing(next, `compacting cannot make it smaller than the ${fmt(this.smallestRefused)} tokens the server refused`);
  }

  /**
   * The rest of a give-up's arithmetic, so that the numbers it names add up to
   * more than the window it names: the answer's floor, and (when it is what
   * tips the sum over) the room kept for the estimate's error.
   */
  private andTheAnswer(input: number): string {
    const w = this.host.window.contextWindow;
    const floor = outputFloor(w);
    const margin = windowMargin(w);
    if (Math.round(input) + floor > w) return `and the answer needs at least ${fmt(floor)} more`;
    return `the answer needs at least ${fmt(floor)} more and skein keeps ${fmt(margin)} free for the error of its estimate: ${fmt(Math.round(input) + floor + margin)} in all`;
  }

  /** The request cannot fit the window whatever skein folds: `why` names numbers whose sum passes it. */
  private cannotFit(why: string): ContextOverflowError {
    const { window } = this.host;
    return giveUpError(
      `The conversation cannot fit ${this.host.model()}'s context window of ${fmt(window.contextWindow)} tokens (${WINDOW_SOURCE_WORDS[window.source]}): ${why}. ` +
        // The message stays in the log; once it is no longer being answered it folds out of the view (plan.ts, fold.ts).
        `Send a shorter message (or the same in parts): this one stays in the history and folds out of the model's view once it is not the one being answered. Or give the server a larger context ` +
        `(llama.cpp: -c; Ollama: SKEIN_LOCAL_CONTEXT, num_ctx or OLLAMA_CONTEXT_LENGTH; vLLM: --max-model-len), or switch to a model with a larger window.`,
    );
  }

  /** The server refuses what skein's count says fits: skein's count and the server's disagree more than skein could learn. */
  private keepsRefusing(estimate: number, why: string): ContextOverflowError {
    const { window } = this.host;
    return giveUpError(
      `${this.host.model()}'s server keeps refusing this request as too long: ${why}. By skein's count it takes about ${fmt(estimate)} tokens of the ${fmt(window.contextWindow)}-token window ` +
        `(${WINDOW_SOURCE_WORDS[window.source]}), so the server counts tokens differently or its window is smaller than it says. ` +
        `Set SKEIN_CONTEXT_WINDOW below the server's real context, or start a new session.`,
    );
  }
}

/**
 * The server saying so without an error: an answer with nothing written that
 * stopped for length with 0 output tokens (LMDeploy does this when the prompt
 * and max_tokens pass its session length) had no room left in its context.
 */
export function wroteNothingForLength(response: LlmResponse): boolean {
  return response.stopReason === 'max_tokens' && !response.text && response.toolCalls.length === 0 && response.usage.output === 0 && !response.reasoning;
}

export function emptyLengthOverflow(response: LlmResponse): ContextOverflowError {
  const prompt = response.usage.input + response.usage.cacheRead + response.usage.cacheWrite;
  return new ContextOverflowError(`the server stopped for length before writing anything (0 output tokens, ${fmt(prompt)} prompt tokens): its context is full`, prompt > 0 ? { prompt } : {});
}

/** Recorded as an error event with code context_overflow; the session waits for the user. */
function giveUpError(message: string): ContextOverflowError {
  return new ContextOverflowError(message, {});
}

function fmt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}
