// What the agent does when the provider refuses a request as too long (or is
// seen cutting it): learn the window the refusal names, then either ask for
// less output (the prompt fits, the answer's room did not) or compact to the
// target of the learned window and retry. A refused retry folds harder
// (level 1: deterministic, smaller kept tail; level 2: every old tool result
// cleared, nothing recent kept), each attempt strictly smaller than the last.
// Only when even the system prompt, the tools and the first user message
// cannot fit does the turn end, with an error that says what to do.
import { WINDOW_SOURCE_WORDS } from '../../shared/protocol.js';
import { ContextOverflowError } from '../llm/types.js';
import { outputFloor, UNNAMED_SHRINK, windowMargin, type SessionWindow } from './window.js';

/**
 * Not a refusal: skein's own check before sending found that the request
 * cannot fit the window it knows (a server that cuts would drop the first
 * user message, one that refuses would refuse). Recovered from like a refusal,
 * without spending one of the server's.
 */
export class WouldOverflowError extends ContextOverflowError {}

/** Compaction levels: 0 the normal pipeline, 1 deterministic with a smaller tail, 2 clear everything old. */
export const MAX_LEVEL = 2;
/** Refusals of one request before the turn ends. */
export const MAX_REFUSALS = 4;

export interface RecoveryHost {
  window: SessionWindow;
  model(): string;
  /** Enters Compacting (once per refusal). */
  enterCompacting(reason: string): void;
  compact(level: number): Promise<void>;
  /** Calibrated estimate of the next request's input, in the provider's tokens. */
  estimate(): number;
  /** The same for what can never be folded: system prompt, tools, first user message. */
  headEstimate(): number;
  /** SKEIN_COMPACT_PREFLIGHT: the check before sending is a pre-flight compaction too (off: requests go out as they are). */
  preflight?: () => boolean;
}

export interface SentRequest {
  /** Estimated input tokens (provider's units). */
  input: number;
  maxTokens: number;
}

export class OverflowRecovery {
  private refusals = 0;
  private smallestRefused = Infinity;

  constructor(private readonly host: RecoveryHost) {}

  /** Set when compacting could not make a request fit the known window: it is sent anyway, and the server decides. */
  private sendAsIs = false;

  /** A request was answered: the next refusal starts a fresh recovery. */
  answered(): void {
    this.refusals = 0;
    this.smallestRefused = Infinity;
    this.sendAsIs = false;
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

  /** 'output': retry now with a smaller output budget; 'compacted': the view was made smaller, send again. Throws when nothing can fit. */
  async recover(err: ContextOverflowError, sent: SentRequest): Promise<'output' | 'compacted'> {
    const { window } = this.host;
    this.refusals++;
    const refused = err.limits;
    const prompt = refused.prompt ?? sent.input;
    if (err instanceof WouldOverflowError) {
      // skein's own check: when compacting cannot help, the server has the last word (the known window may be too low).
      try {
        return await this.compactHarder(err, prompt);
      } catch (giveUp) {
        if (!(giveUp instanceof ContextOverflowError)) throw giveUp;
        this.sendAsIs = true;
        return 'compacted';
      }
    }
    if (this.refusals > MAX_REFUSALS) throw this.giveUp(prompt, `the provider refused ${MAX_REFUSALS} smaller and smaller requests`);
    const margin = windowMargin(refused.window ?? window.contextWindow);
    if (!err.truncated && refused.window !== undefined && refused.window - prompt - margin >= outputFloor(refused.window) && prompt + (refused.maxTokens ?? sent.maxTokens) > refused.window) {
      // The prompt fits; the room asked for the answer did not: ask for less, no compaction.
      window.learn(refused.window, err);
      window.capOutput(refused.window - prompt - margin);
      return 'output';
    }
    // No number named: the window is at most what was asked for (input and output budget) minus 10%, shrinking on each refusal.
    const asked = prompt + (refused.maxTokens ?? sent.maxTokens);
    window.learn(refused.window ?? Math.floor(UNNAMED_SHRINK * Math.min(asked, window.contextWindow)), err);
    return this.compactHarder(err, prompt);
  }

  /** Compacts, harder at each refusal, until the request is strictly smaller than every refused one. */
  private async compactHarder(err: ContextOverflowError, prompt: number): Promise<'compacted'> {
    const { window } = this.host;
    this.smallestRefused = Math.min(this.smallestRefused, prompt);
    this.host.enterCompacting(`overflow: ${err.message}`);
    for (let level = Math.min(this.refusals - 1, MAX_LEVEL); level <= MAX_LEVEL; level++) {
      const head = this.host.headEstimate();
      const floor = outputFloor(window.contextWindow);
      if (head + floor + windowMargin(window.contextWindow) > window.contextWindow) {
        throw this.giveUp(prompt, `even the system prompt, the tools and your first message take about ${fmt(head)} tokens, plus ${fmt(floor)} for the answer`);
      }
      await this.host.compact(level);
      const next = this.host.estimate();
      // Strictly smaller than every refused request; the output budget is clamped to what is left.
      if (next < this.smallestRefused) return 'compacted';
    }
    throw this.giveUp(prompt, `compacting as hard as skein can leaves about ${fmt(this.host.estimate())} tokens`);
  }

  private giveUp(sent: number, why: string): ContextOverflowError {
    const { window } = this.host;
    const message =
      `The conversation cannot fit ${this.host.model()}'s context window: it accepts ${fmt(window.contextWindow)} tokens (${WINDOW_SOURCE_WORDS[window.source]}), ` +
      `the refused request had about ${fmt(sent)}, and ${why}. Start a new session with a shorter first message, give the server a larger context ` +
      `(llama.cpp: -c; Ollama: SKEIN_LOCAL_CONTEXT, num_ctx or OLLAMA_CONTEXT_LENGTH; vLLM: --max-model-len), or switch to a model with a larger window.`;
    // Recorded as an error event with code context_overflow; the session waits for the user.
    return new ContextOverflowError(message, {});
  }
}

function fmt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}
