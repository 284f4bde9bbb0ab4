// The context window a session really has, and where it comes from. Asks the
// provider once per model (or reads the answer from the log or the server's
// cache), falls back to the model table, lets SKEIN_CONTEXT_WINDOW win, and
// learns a smaller window whenever the provider refuses a request as too long
// or is seen cutting the prompt. Every change is a `limits` event, so the
// gauge, the threshold and the compaction target follow at once and a restart
// knows it. The recovery from a refusal (how hard to compact) is in
// overflow-recovery.ts.
import type { LimitsEvent, ThinkingCapabilities, Usage, WindowSource } from '../../shared/protocol.js';
import type { KnownLimits, LimitsCache } from '../llm/limits/cache.js';
import { requestLimits } from '../llm/providers.js';
import type { ModelInfo } from '../llm/models.js';
import { ContextOverflowError, hasLimitsDiscovery, isCapabilityAware, type ModelLimits, type Provider } from '../llm/types.js';
import type { Session } from './session.js';
import { log } from '../log.js';

/** No request asks for less output than this: an answer needs room. */
export const OUTPUT_FLOOR = 1024;
/** In a tiny window (a local server's 4k) the floor is an eighth of it, at least this: a tool call or a short answer. */
export const MIN_OUTPUT_FLOOR = 256;

/** The output floor in a window: 1,024 from 8,192 tokens up, an eighth of the window below (at least 256), so a small window keeps room for the conversation. */
export function outputFloor(contextWindow: number): number {
  return Math.min(OUTPUT_FLOOR, Math.max(MIN_OUTPUT_FLOOR, Math.floor(contextWindow / 8)));
}

/** Room kept free beside the input estimate and the answer: the estimate's error. */
export function windowMargin(contextWindow: number): number {
  return Math.ceil(0.01 * contextWindow) + 16;
}
/**
 * Reported prompt tokens under this share of skein's estimate: the server
 * dropped part of the prompt. Before any real number has calibrated the
 * estimate, tokenizers alone differ by up to a fifth: 70%; once calibrated
 * (its error is a few percent), 90%.
 */
export const TRUNCATION_RATIO = 0.7;
export const CALIBRATED_TRUNCATION_RATIO = 0.9;
/** Assumed window after a refusal that names no number: the refused request (input + output budget) minus 10%. */
export const UNNAMED_SHRINK = 0.9;

export interface WindowHost {
  session: Session;
  provider(): Provider;
  /** The model table's entry for the current model (window and output before anything was learned). */
  tableInfo(): ModelInfo;
  /** Applies new limits to the agent (window, output budget). */
  apply(limits: ModelLimits): void;
  /** SKEIN_CONTEXT_WINDOW, when set. */
  setting: number | undefined;
  cache: LimitsCache | undefined;
}

export class SessionWindow {
  source: WindowSource = 'table';
  private limits: ModelLimits;
  /** The model whose limits were settled (asked, read from the log or the cache). */
  private settledFor: string | undefined;
  /** The server drops the start of a prompt that does not fit (Ollama) instead of refusing it. */
  private truncates = false;
  private lowReports = 0;
  /** The largest prompt the server reported reading whole: the window is at least this. */
  private largestRead = 0;
  /** The window the provider's model-info endpoint named (even when SKEIN_CONTEXT_WINDOW won). */
  private providerSaid: number | undefined;
  /** Set by an output-budget refusal: the next request asks for at most this much output. */
  private outputCap: number | undefined;
  /** The thinking capabilities the provider said for this model (carried into later limits events). */
  private thinking: ThinkingCapabilities | undefined;

  constructor(private readonly host: WindowHost) {
    this.limits = { contextWindow: host.tableInfo().contextWindow, maxOutputTokens: host.tableInfo().maxOutputTokens };
    this.reset();
  }

  get contextWindow(): number {
    return this.limits.contextWindow;
  }

  get maxOutputTokens(): number {
    return this.limits.maxOutputTokens;
  }

  /** How the model thinks as its provider said (undefined: it did not say; the model table holds). */
  get capabilities(): ThinkingCapabilities | undefined {
    return this.thinking;
  }

  /** A new model (start, or a switch): the table or the setting, unless the log already knows better. */
  reset(): void {
    const model = this.host.provider().model;
    this.settledFor = undefined;
    this.truncates = false;
    this.lowReports = 0;
    this.largestRead = 0;
    this.providerSaid = undefined;
    this.outputCap = undefined;
    this.thinking = undefined;
    this.source = this.host.setting !== undefined ? 'setting' : 'table';
    this.set(requestLimits(this.host.tableInfo(), this.host.setting ?? this.host.tableInfo().contextWindow));
    // The log knows (a restart); the server's cache is read, and written to this log, at the first turn.
    const logged = this.host.session.log.all().filter((e): e is LimitsEvent => e.kind === 'limits' && e.model === model).at(-1);
    if (logged) {
      const { seq, ts, kind, message, ...known } = logged;
      this.adoptKnown(known);
      this.settledFor = model;
      if (!this.host.cache?.get(model)) this.host.cache?.set(known);
    }
  }

  /** Before a turn's first request: asks the provider, once per model. Never throws (but for a cancel). */
  async settle(signal: AbortSignal): Promise<void> {
    const provider = this.host.provider();
    if (this.settledFor === provider.model) return;
    this.settledFor = provider.model;
    const cached = this.host.cache?.get(provider.model);
    if (cached) return this.record({ ...cached }, undefined);
    if (!hasLimitsDiscovery(provider)) return;
    const found = await provider.discoverLimits(signal);
    signal.throwIfAborted();
    const table = this.host.tableInfo();
    if ('failed' in found) {
      log.info(`${provider.model}: the provider did not say its limits (${found.failed}); using ${this.source === 'setting' ? 'SKEIN_CONTEXT_WINDOW' : 'the model table'}`, { session: this.host.session.id });
      return this.record({ model: provider.model, ...this.limits, source: this.source, via: `asked the provider: ${found.failed}` }, undefined);
    }
    this.truncates = found.truncates === true;
    const reported = { ...(found.contextWindow && { contextWindow: found.contextWindow }), ...(found.maxOutputTokens && { maxOutputTokens: found.maxOutputTokens }) };
    const window = this.host.setting ?? found.contextWindow ?? table.contextWindow;
    const source: WindowSource = this.host.setting !== undefined ? 'setting' : found.contextWindow ? 'provider' : 'table';
    const limits = requestLimits({ contextWindow: window, maxOutputTokens: found.maxOutputTokens ?? table.maxOutputTokens }, window);
    log.info(`${provider.model}: window ${window} tokens (${source}; the provider said ${JSON.stringify(reported)} via ${found.via})`, { session: this.host.session.id });
    this.record({ model: provider.model, ...limits, source, via: found.via, reported, ...(this.truncates && { truncates: true }), ...(found.thinking && { thinking: found.thinking }) }, undefined);
  }

  /** The output budget of the next request: what fits beside `inputEstimate` in the window, at least OUTPUT_FLOOR. */
  outputBudget(inputEstimate: number): number {
    const room = this.limits.contextWindow - inputEstimate - windowMargin(this.limits.contextWindow);
    const wanted = Math.min(this.limits.maxOutputTokens, this.outputCap ?? Infinity);
    return Math.max(outputFloor(this.limits.contextWindow), Math.min(wanted, room));
  }

  /** The request of `inputEstimate` tokens leaves the answer less than the floor in the window known so far. */
  tooLong(inputEstimate: number): boolean {
    const w = this.limits.contextWindow;
    return inputEstimate + outputFloor(w) + windowMargin(w) > w;
  }

  /** A response arrived: a later request may ask for the full budget again. */
  answered(): void {
    this.outputCap = undefined;
  }

  /**
   * The provider's reported prompt tokens against skein's estimate of what was
   * sent: far fewer means the server dropped the start of the prompt (Ollama
   * does this silently). Once is enough for a server known to do it, twice in
   * a row otherwise. Throws the ContextOverflowError to recover from; returns
   * false for a first low report (not to be trusted for calibration).
   */
  checkReported(estimate: number, usage: Pick<Usage, 'input' | 'cacheRead' | 'cacheWrite'>, calibrated: boolean): boolean {
    const reported = usage.input + usage.cacheRead + usage.cacheWrite;
    // Anthropic, Gemini and OpenAI's Responses API refuse a prompt that is too long (and with thinking their
    // estimate shifts after a compaction): only other servers (Chat Completions, Ollama, unknown ones) may cut it.
    const table = this.host.tableInfo();
    const refusesInstead = table.provider === 'anthropic' || table.provider === 'gemini' || table.thinking?.mode === 'responses';
    if (refusesInstead && !this.truncates) return true;
    // A server that kept under 1,024 tokens could not serve an agent at all: such a count is the provider's own accounting, not a cut.
    if (reported < OUTPUT_FLOOR || reported >= (calibrated ? CALIBRATED_TRUNCATION_RATIO : TRUNCATION_RATIO) * estimate) {
      this.lowReports = 0;
      this.largestRead = Math.max(this.largestRead, reported);
      return true;
    }
    this.lowReports++;
    if (!this.truncates && this.lowReports < 2) return false;
    this.lowReports = 0;
    // The server drops whole messages, so what it kept understates its window: the number its
    // model-info endpoint gave (num_ctx), else the largest prompt it read whole, is better evidence.
    const window = this.providerSaid !== undefined && this.providerSaid < this.limits.contextWindow ? this.providerSaid : Math.max(reported, this.largestRead);
    throw new ContextOverflowError(
      `the server read only ${reported.toLocaleString('en-US')} of about ${Math.round(estimate).toLocaleString('en-US')} prompt tokens: it was cutting the start of the conversation`,
      { window, prompt: Math.round(estimate) },
      true,
    );
  }

  /** A refusal names a window (or implies one): adopt it when it is smaller than the one in use. Returns whether it changed. */
  learn(window: number, err: ContextOverflowError): boolean {
    const learned = Math.floor(window);
    if (learned >= this.limits.contextWindow) return false;
    const model = this.host.provider().model;
    const limits = requestLimits({ contextWindow: learned, maxOutputTokens: this.host.tableInfo().maxOutputTokens }, learned);
    const tokens = learned.toLocaleString('en-US');
    const message = err.truncated
      ? `The server only keeps ${tokens} tokens of context: it was silently cutting the start of the conversation. skein now uses a ${tokens}-token window and compacts to fit; for Ollama set SKEIN_LOCAL_CONTEXT (skein then asks for that much context on each request) or raise \`num_ctx\` (the model's num_ctx parameter or OLLAMA_CONTEXT_LENGTH).`
      : `The provider refused a request as too long; its window is ${err.limits.window !== undefined ? '' : 'at most '}${tokens} tokens, not ${this.limits.contextWindow.toLocaleString('en-US')}. skein now uses ${tokens} and compacts to fit.`;
    const via = err.truncated ? 'the server reported fewer prompt tokens than were sent' : `refusal: ${err.message.slice(0, 300)}`;
    this.record({ model, ...limits, source: 'refusal', via, ...(err.truncated && { truncated: true }), ...(this.truncates && { truncates: true }), ...(this.thinking && { thinking: this.thinking }) }, message);
    return true;
  }

  /** An output-budget refusal (the prompt fits, the answer's room did not): the next request asks for at most `cap`. */
  capOutput(cap: number): void {
    this.outputCap = Math.max(outputFloor(this.limits.contextWindow), Math.floor(cap));
  }

  private adoptKnown(known: KnownLimits): void {
    // SKEIN_CONTEXT_WINDOW wins over what the provider said, not over what it refused.
    if (this.host.setting !== undefined && known.source !== 'refusal') {
      this.source = 'setting';
      this.set(requestLimits({ contextWindow: this.host.setting, maxOutputTokens: known.maxOutputTokens }, this.host.setting));
    } else {
      this.source = known.source;
      this.set({ contextWindow: known.contextWindow, maxOutputTokens: known.maxOutputTokens });
    }
    if (known.truncates || known.truncated) this.truncates = true;
    if (known.reported?.contextWindow) this.providerSaid = known.reported.contextWindow;
    // The Models API's capabilities win over the model table's thinking settings (also after a restart: the log says them).
    if (known.thinking) {
      this.thinking = known.thinking;
      const provider = this.host.provider();
      if (isCapabilityAware(provider)) provider.adoptCapabilities(known.thinking);
    }
  }

  private record(known: KnownLimits, message: string | undefined): void {
    this.adoptKnown(known);
    this.host.cache?.set(known);
    this.host.session.append({ kind: 'limits', ...known, ...(message && { message }) });
  }

  private set(limits: ModelLimits): void {
    this.limits = limits;
    this.host.apply(limits);
  }
}

/** The session's provider as its own summariser: same calls, the limits learned so far (the summariser chunks against them). */
export function withLimits(provider: Provider, limits: ModelLimits): Provider {
  return {
    model: provider.model,
    limits: { contextWindow: limits.contextWindow, maxOutputTokens: limits.maxOutputTokens },
    complete: (request, signal, stream) => provider.complete(request, signal, stream),
  };
}
