// Switching a session's model or effort: checked when asked (POST /model),
// applied at the next safe point, with a compaction first when the view does
// not fit the new model's window.
import type { Gauge, ReasoningEffort } from '../../shared/protocol.js';
import type { ModelInfo } from '../llm/models.js';
import { requestTokens } from '../llm/tokens.js';
import type { LlmRequest, Provider } from '../llm/types.js';
import { ReadOnlySessionError } from '../cluster/remote-owner.js';
import type { CompactionRunner } from './compaction-runner.js';
import { estimatedGauge } from './gauge.js';
import { needsCompactionAfterSwitch } from './model-switch.js';
import type { Session } from './session.js';
import type { SessionWindow } from './window.js';
import type { AgentSettings } from './agent-settings.js';

/** What switching needs of the agent. */
export interface SwitchHost {
  readonly session: Session;
  readonly settings: AgentSettings;
  readonly compaction: CompactionRunner;
  readonly window: SessionWindow;
  provider(): Provider;
  info(): ModelInfo;
  /** From now on the session runs on this provider, with this model's table entry and window. */
  use(provider: Provider, info: ModelInfo): void;
  gauge(): Gauge;
  nextRequest(): LlmRequest;
  wake(): void;
}

export class ModelSwitching {
  /** A model switch asked for, applied at the next safe point. */
  private pendingModel: string | undefined;
  /** An effort switch asked for (with or without a model switch). */
  private pendingEffort: ReasoningEffort | undefined;

  constructor(private readonly host: SwitchHost) {}

  /** POST /model: checks the model now (throws UnknownModelError), switches at the next safe point. */
  switchModel(model: string, effort?: ReasoningEffort): void {
    if (this.host.session.remote) throw new ReadOnlySessionError(`this session ${this.host.session.remote.reason}: switch its model there`);
    if (!this.host.settings.models) throw new Error('this server cannot switch models');
    if (model !== this.host.provider().model || this.pendingModel) this.host.settings.models.create(model);
    this.pendingModel = model;
    if (effort) this.pendingEffort = effort;
    this.host.wake();
  }

  /** At a safe point: moves to the model asked for, and compacts first when the view does not fit its window. */
  apply(): void {
    const to = this.pendingModel;
    const effort = this.pendingEffort;
    this.pendingModel = undefined;
    this.pendingEffort = undefined;
    if (!to || !this.host.settings.models) return;
    if (to === this.host.provider().model) {
      // Only the effort changed: recorded so that it survives a restart.
      if (effort && effort !== this.host.session.effort) {
        this.host.session.effort = effort;
        this.host.session.append({ kind: 'model', from: to, to, contextWindow: this.host.info().contextWindow, effort });
      }
      return;
    }
    if (effort) this.host.session.effort = effort;
    const { provider, info } = this.host.settings.models.create(to);
    const from = this.host.provider().model;
    this.host.use(provider, info);
    this.host.session.model = to;
    this.host.session.append({ kind: 'model', from, to, contextWindow: info.contextWindow, ...(effort && { effort }) });
    this.host.window.reset();
    // The last real numbers, and the calibration, came from the old model's tokenizer (the data folder may know the new one's).
    this.host.compaction.estimator.reset(this.host.settings.models.window?.cache.ratio(to));
    const estimate = requestTokens(this.host.nextRequest());
    const { thresholdRatio } = this.host.settings.policy;
    const gauge = estimatedGauge(estimate, this.host.gauge(), to, this.host.settings.contextWindow, thresholdRatio);
    this.host.session.append({ kind: 'usage', gauge: { ...gauge, ...this.host.window.gaugeFields() } });
    // Applied only at a safe point where a compaction can start: it runs first, before anything else queued.
    if (needsCompactionAfterSwitch(estimate, this.host.info(), thresholdRatio)) this.host.session.compactions.add({ trigger: 'model_switch' }, true);
  }
}
