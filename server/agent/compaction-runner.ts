// The agent's side of compaction: asks the triggers whether one is due, runs
// the pipeline at a safe point, and records it in the log. Holds the per-session
// state that compaction needs (estimator, circuit breaker, cadence counter).
import type { CompactionEvent, Gauge, WindowSource } from '../../shared/protocol.js';
import { ContextEstimator } from '../compaction/estimator.js';
import { answeredMessages, firstFoldable } from '../compaction/plan.js';
import { plain } from '../compaction/view.js';
import { requestTokens } from '../llm/tokens.js';
import { runPipeline, type CompactionStrategy } from '../compaction/pipeline.js';
import { BREAKER_LIMIT, CircuitBreaker, dueAfterResponse, dueBeforeRequest, type DueCompaction, type TriggerPolicy } from '../compaction/triggers.js';
import { costUsd, type ModelInfo } from '../llm/models.js';
import { hasProviderCompaction, type LlmRequest, type Provider } from '../llm/types.js';
import { estimatedGauge } from './gauge.js';
import { isAskedFor } from './pending-compactions.js';
import type { Session } from './session.js';

export interface CompactionSettings {
  policy: TriggerPolicy;
  contextWindow: number;
  targetRatio: number;
  summariserTimeoutMs: number;
  strategies: CompactionStrategy[];
}

export class CompactionRunner {
  readonly estimator = new ContextEstimator();
  private readonly breaker = new CircuitBreaker();
  private callsSinceCompaction = 0;
  /** At most one compaction per request: set by a compaction, cleared by the next response. */
  private compactedForRequest = false;
  /** Context size (provider tokens) when an automatic compaction found nothing to do. */
  private nothingToDoAt: number | undefined;
  /** A compaction of this turn already found nothing to fold: another one is not recorded (at most one per turn). */
  private nothingThisTurn = false;
  /** The previous turn's compaction found nothing: this turn's first automatic one is recorded only if it folds. */
  private retryQuietly = false;
  /** Compactions run so far (a request after one is not comparable with the one before). */
  runs = 0;

  constructor(
    private readonly session: Session,
    private readonly settings: CompactionSettings,
    private readonly deps: {
      base: () => Pick<LlmRequest, 'system' | 'tools'>;
      summariser: () => Provider;
      /** The session's model: provider_compact asks its API to compact (when it can). */
      provider?: () => Provider;
      info: () => ModelInfo;
      /** The summariser's prices (SKEIN_SUMMARIZER_MODEL's, or the session model's). */
      summariserInfo: () => ModelInfo;
      /** True when the session's own model writes the summaries (it then reads the conversation's cached prefix). */
      summariserIsSessionModel?: () => boolean;
      model: () => string;
      gauge: () => Gauge;
      windowSource?: () => WindowSource;
      /** The room kept free for the answer (shown by the gauge). */
      reserve?: () => number;
      /** The window is a guess (shown by the gauge). */
      windowGuess?: () => boolean;
      /** Keeps the calibrated ratio (provider tokens per counted token) for the next process. */
      keepRatio?: (ratio: number) => void;
    },
  ) {}

  /** The fixed part of every request: system prompt and tools. */
  base(): Pick<LlmRequest, 'system' | 'tools'> {
    return this.deps.base();
  }

  /**
   * Calibrated estimate of what compaction can never fold: system prompt,
   * tools and the message being answered (a first message that is not being
   * answered folds when it must).
   */
  headEstimate(): number {
    const view = this.session.view();
    // The turn's latest step folds at the last level: only the message being answered never does.
    const answered = answeredMessages(view, false);
    const head = view.filter((_, i) => i < firstFoldable(view) - 1 || answered.has(i));
    return Math.ceil(this.estimator.ratio * requestTokens({ ...this.deps.base(), messages: plain(head) }));
  }

  /** How the give-up names what cannot be folded besides the system prompt and tools. */
  headWords(): string {
    const view = this.session.view();
    return answeredMessages(view).has(firstFoldable(view) - 1) ? 'your first message' : 'the message being answered';
  }

  /**
   * A new turn: one compaction that finds nothing to fold may be recorded again. The last turn's steps are
   * no longer being read (they may fold now): one that found nothing before tries again, recorded only if it folds.
   */
  startTurn(): void {
    this.nothingThisTurn = false;
    this.retryQuietly = this.nothingToDoAt !== undefined;
    this.nothingToDoAt = undefined;
  }

  /** Called with every model response the agent kept (one from a prompt seen cut is never kept). */
  onResponse(estimatedRequest: number, contextTokens: number, output: number, seenSeq: number, trusted = true, head?: number): void {
    this.estimator.observe(estimatedRequest, contextTokens, output, seenSeq, trusted, head);
    // The data folder keeps the server's ratio: the next process's first request is estimated with it.
    if (trusted && this.estimator.calibrated) this.deps.keepRatio?.(this.estimator.ratio);
    this.callsSinceCompaction++;
    this.compactedForRequest = false;
  }

  /** Safe point before a request. A queued request comes first (it stays queued until it starts). */
  dueBeforeRequest(): DueCompaction | undefined {
    const pending = this.session.compactions.peek();
    if (pending) return pending;
    if (this.compactedForRequest || this.nothingThisTurn) return undefined;
    const byTokens = this.stillNothingToDo()
      ? undefined
      : dueBeforeRequest({ ...this.inputs(), estimateNext: () => this.estimator.estimate(this.session.view(), this.deps.base(), true) });
    if (byTokens) return byTokens;
    // A strategy with its own trigger (an event count, stale results worth clearing) runs alone:
    // no token trigger fired, so the others (a summary) have nothing to do yet.
    if (!this.settings.strategies.some((s) => s.due !== undefined)) return undefined;
    // The token trigger's threshold in counted tokens of the messages (the fixed part taken off).
    const threshold = (this.settings.policy.thresholdRatio * this.settings.contextWindow) / this.estimator.ratio - requestTokens({ ...this.deps.base(), messages: [] });
    const own = this.settings.strategies.filter((s) => s.due?.(this.session.view(), threshold));
    return own.length ? { trigger: 'strategy', only: own.map((s) => s.name) } : undefined;
  }

  /** Safe point after an answer that asks for no tool. */
  dueAfterResponse(): DueCompaction | undefined {
    const pending = this.session.compactions.peek();
    if (pending) return pending;
    return this.compactedForRequest || this.nothingThisTurn || this.stillNothingToDo() ? undefined : dueAfterResponse(this.inputs());
  }

  /** Runs the pipeline and records started / finished (or failed) events. Throws only when cancelled. */
  async run(due: DueCompaction, signal: AbortSignal): Promise<void> {
    this.compactedForRequest = true;
    const asked = isAskedFor(due.trigger);
    const extra = {
      ...(due.instructions !== undefined && { instructions: due.instructions }),
      ...(due.preserveRecentGroups !== undefined && { preserveRecentGroups: due.preserveRecentGroups }),
    };
    this.runs++;
    // After one that found nothing this turn, an automatic compaction is recorded only if it folds something.
    const quiet = !asked && (this.nothingThisTurn || this.retryQuietly);
    this.retryQuietly = false;
    const announce = () => this.session.append({ kind: 'compaction', phase: 'started', trigger: due.trigger, ...extra });
    if (!quiet) announce();
    this.session.compactions.started(due);
    const started = Date.now();
    const ratio = this.estimator.ratio;
    // Overflow recovery folds harder at each level: deterministic, a smaller target, nothing old kept.
    const level = due.level ?? 0;
    const own = this.deps.provider?.();
    try {
      const view = this.session.view();
      const strategies = due.only ? this.settings.strategies.filter((s) => due.only!.includes(s.name)) : this.settings.strategies;
      const result = await runPipeline(strategies, view, {
        base: this.deps.base(),
        contextWindow: this.settings.contextWindow,
        windowTokens: Math.floor(this.settings.contextWindow / ratio),
        targetTokens: Math.floor(this.targetTokens(ratio) * (level >= 2 ? 0.35 : level === 1 ? 0.6 : 1)),
        summariser: this.deps.summariser(),
        // The largest ratio seen: the summary request must fit the server's count, not only ours.
        ...(this.deps.summariserIsSessionModel?.() && { inPlace: { view, ratio: this.estimator.upperRatio } }),
        summariserTimeoutMs: this.settings.summariserTimeoutMs,
        ...(own && hasProviderCompaction(own) && { compactor: own }),
        trigger: due.trigger,
        ...extra,
        force: asked || level > 0,
        // One you ask for tries the summariser even with the breaker open; only its success closes the breaker.
        // Overflow recovery past level 0 folds deterministically.
        skipSummariser: (this.breaker.open && !asked) || level > 0,
        ...(level > 0 && { level }),
        signal,
      });
      if (result.strategy === 'none' && !asked && !result.summariserUsage) {
        this.nothingThisTurn = true;
        if (quiet) {
          this.nothingToDoAt = result.tokensBefore;
          return;
        }
      }
      if (quiet) announce();
      const { tokensBefore, tokensAfter, providerError, ...fields } = result;
      const summariserUsage = result.summariserUsage;
      const event: Omit<CompactionEvent, 'seq' | 'ts'> = {
        kind: 'compaction',
        phase: 'finished',
        trigger: due.trigger,
        ...extra,
        ...fields,
        tokensBefore: Math.round(tokensBefore * ratio),
        tokensAfter: Math.round(tokensAfter * ratio),
        durationMs: Date.now() - started,
      };
      // The provider's compaction failed and skein's own strategies folded instead: worth knowing, not an error of the turn.
      if (providerError !== undefined) this.session.append({ kind: 'error', code: 'provider_compact_failed', message: `The provider could not compact (${providerError}); skein's own strategies compacted instead.` });
      this.session.append(event);
      this.callsSinceCompaction = 0;
      this.nothingToDoAt = result.strategy === 'none' && !asked ? event.tokensBefore : undefined;
      // Only a compaction that tried the summariser tells the breaker anything.
      const triedSummariser = (asked || !this.breaker.open) && (result.strategies.includes('summarize') || result.error !== undefined);
      if (triedSummariser && this.breaker.record(result.error !== undefined)) {
        this.session.append({
          kind: 'error',
          code: 'compaction_breaker_open',
          message: `The summariser failed ${BREAKER_LIMIT} times in a row; automatic compactions now fold deterministically (ledger only) until a /compact succeeds.`,
        });
      }
      if (result.strategy !== 'none' || summariserUsage) {
        this.estimator.invalidate();
        // The provider's own compaction is billed at the session model's prices, a summary at the summariser's.
        const priced = result.provider && !result.strategies.includes('summarize') ? this.deps.info() : this.deps.summariserInfo();
        const cost = summariserUsage ? costUsd(priced, summariserUsage) : 0;
        const gauge = estimatedGauge(event.tokensAfter!, this.deps.gauge(), this.deps.model(), this.settings.contextWindow, this.settings.policy.thresholdRatio, cost);
        this.session.append({ kind: 'usage', gauge: { ...gauge, ...(this.deps.windowSource && { windowSource: this.deps.windowSource() }), ...(this.deps.reserve && { reserve: this.deps.reserve() }), ...(this.deps.windowGuess?.() && { windowGuess: true }) } });
      }
    } catch (err) {
      const message = signal.aborted ? 'cancelled by the user' : err instanceof Error ? err.message : String(err);
      if (quiet) announce();
      this.session.append({ kind: 'compaction', phase: 'failed', trigger: due.trigger, ...extra, error: message, fallback: 'none' });
      if (signal.aborted) throw err;
    }
  }

  /**
   * The target in gpt-tokenizer counts (the pipeline's unit; `ratio` converts
   * from the provider's). Held below the threshold, so a compaction that meets
   * it cannot trigger the next one at once.
   */
  private targetTokens(ratio: number): number {
    const share = Math.min(this.settings.targetRatio, 0.9 * this.settings.policy.thresholdRatio);
    return Math.floor((share * this.settings.contextWindow) / ratio);
  }

  /**
   * An automatic compaction that found nothing to fold is not tried again
   * until the context has grown by 5% of the window: compaction cannot loop.
   */
  private stillNothingToDo(): boolean {
    if (this.nothingToDoAt === undefined) return false;
    const now = this.estimator.estimate(this.session.view(), this.deps.base());
    if (now >= this.nothingToDoAt + 0.05 * this.settings.contextWindow) this.nothingToDoAt = undefined;
    return this.nothingToDoAt !== undefined;
  }

  private inputs() {
    return {
      policy: this.settings.policy,
      contextWindow: this.settings.contextWindow,
      // The room kept for the answer (the window's output reserve), not the model's whole output budget.
      maxOutputTokens: this.deps.reserve?.() ?? this.deps.info().maxOutputTokens,
      lastReportedContext: this.lastReportedContext(),
      callsSinceCompaction: this.callsSinceCompaction,
    };
  }

  /** The last provider-reported context, unless a compaction ran since. */
  private lastReportedContext(): number | undefined {
    const usage = this.session.log.last('usage');
    if (!usage || usage.gauge.estimated) return undefined;
    const compaction = this.session.log.last('compaction');
    if (compaction && compaction.seq > usage.seq && compaction.phase !== 'queued') return undefined;
    return usage.gauge.contextTokens;
  }
}
