// One exchange with the model: the request built from the view (its shape
// changed first when the window asks), sent with retries, checked against the
// window (a refusal as too long is recovered from), and the answer logged.
import type { Usage } from '../../shared/protocol.js';
import { costUsd, type ModelInfo } from '../llm/models.js';
import { requestTokens } from '../llm/tokens.js';
import { ContextOverflowError, type LlmRequest, type LlmResponse, type Provider } from '../llm/types.js';
import type { CompactionRunner } from './compaction-runner.js';
import { gaugeFromUsage } from './gauge.js';
import { callModel } from './model-call.js';
import { emptyLengthOverflow, wroteNothingForLength, type OverflowRecovery } from './overflow-recovery.js';
import { headOf } from './request-head.js';
import type { RequestShape } from './request-shape.js';
import type { Session } from './session.js';
import type { SessionWindow } from './window.js';
import type { AgentSettings } from './agent-settings.js';
import type { Gauge } from '../../shared/protocol.js';

/** What an exchange needs of the agent. */
export interface AnswerHost {
  readonly session: Session;
  readonly settings: AgentSettings;
  readonly shape: RequestShape;
  readonly compaction: CompactionRunner;
  readonly recovery: OverflowRecovery;
  readonly window: SessionWindow;
  provider(): Provider;
  info(): ModelInfo;
  gauge(): Gauge;
  nextRequest(): LlmRequest;
  /** The request about to go out holds the log up to `seq`. */
  seen(seq: number): void;
}

export class ModelAnswer {
  /** Changes of the request's shape so far (a lineage mark for the window's reports). */
  private reshapes = 0;

  constructor(private readonly host: AnswerHost) {}

  /**
   * Sends the view; a refusal as too long (or a server seen cutting the
   * prompt) teaches the window and is retried with a smaller output budget,
   * or compacted (undefined: send again from the safe point).
   */
  async requestAnswer(signal: AbortSignal): Promise<{ request: LlmRequest; response: LlmResponse; trusted: boolean } | undefined> {
    for (;;) {
      const reshaped = this.host.shape.change(this.host.settings.contextWindow, this.host.session.log);
      if (reshaped) {
        this.host.session.append(reshaped);
        this.reshapes++;
      }
      const request = this.host.nextRequest();
      this.host.seen(this.host.session.log.lastSeq);
      const estimator = this.host.compaction.estimator;
      const raw = requestTokens(request);
      // With the largest ratio seen between the server's count and ours: the margin covers its tokenizer's spread.
      const estimate = Math.max(Math.ceil(estimator.ratio * raw), estimator.estimate(this.host.session.view(), this.host.compaction.base(), true));
      const sent = { input: estimate, maxTokens: request.maxOutputTokens, raw };
      try {
        // A request that cannot fit the known window is compacted harder before it goes out.
        this.host.recovery.check(estimate, request.maxOutputTokens);
        const response = await this.callModel(request, signal);
        if (wroteNothingForLength(response)) throw emptyLengthOverflow(response);
        const head = headOf(request);
        this.host.window.checkReported({ raw, lineage: this.host.compaction.runs + this.reshapes, lowerRatio: estimator.lowerRatio, ...(head && { head }) }, response.usage);
        this.host.recovery.answered();
        this.host.window.answered();
        // A request that may have passed the context of a server known to cut: kept (nothing proves the cut), not learned from.
        return { request, response, trusted: !this.host.window.mayHaveCut(Math.ceil(estimator.upperRatio * raw)) };
      } catch (err) {
        if (signal.aborted) throw err;
        const overflow = err instanceof ContextOverflowError ? err : this.host.recovery.unrecognised(err, sent);
        if (!overflow) throw err;
        if ((await this.host.recovery.recover(overflow, sent)) === 'compacted') return undefined;
      }
    }
  }

  /** One request to the model: its text streams to the subscribers; transient failures are retried, visibly. */
  private callModel(request: LlmRequest, signal: AbortSignal): Promise<LlmResponse> {
    return callModel(this.host.provider(), request, signal, this.host.settings.models?.retry ?? { max: 0, baseMs: 0 }, {
      afterSeq: this.host.session.log.lastSeq,
      broadcast: (frame) => this.host.session.broadcast(frame),
      retrying: (message) => this.host.session.append({ kind: 'error', message, code: 'retrying' }),
    });
  }

  /** The answer, its usage and the gauge it gives, and its tool calls (masked as logged), into the log. `continued`: a cut answer the turn goes on with. */
  recordResponse(response: LlmResponse, continued = false): void {
    const usage: Usage = { ...response.usage, costUsd: costUsd(this.host.info(), response.usage) };
    const { contextWindow, policy } = this.host.settings;
    const gauge = gaugeFromUsage(usage, this.host.gauge(), this.host.provider().model, contextWindow, policy.thresholdRatio);
    this.host.session.append({ kind: 'usage', gauge: { ...gauge, ...this.host.window.gaugeFields() } });
    // A defect the provider worked around (e.g. refused thinking, sent again without it) is recorded, never hidden.
    for (const note of response.notes ?? []) this.host.session.append({ kind: 'error', message: note.message, code: note.code });
    const reasoning = response.reasoning && { reasoning: response.reasoning };
    this.host.session.append({ kind: 'agent', text: response.text, model: this.host.provider().model, endOfTurn: response.toolCalls.length === 0 && !continued, usage, ...reasoning });
    for (const call of response.toolCalls) {
      const logged = this.host.session.append({ kind: 'tool_call', callId: call.id, name: call.name, input: call.input });
      // A call runs as logged: a secret the model rebuilt is masked there, and reaches no tool either.
      if (logged.kind === 'tool_call') call.input = logged.input;
    }
  }
}
