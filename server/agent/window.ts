// The context window a session really has, and where it comes from: each
// session asks its provider once (again at later requests while the server
// cannot be reached), starting from its log or what the data folder learned,
// else the model table (a guess for an unknown model, said once); SKEIN_CONTEXT_WINDOW
// wins; a refusal or a cut prompt teaches a smaller one; each change is a `limits` event.
import type { Gauge, LimitsEvent, ThinkingCapabilities, Usage, WindowSource } from '../../shared/protocol.js';
import { RetryBackoff } from '../llm/limits/backoff.js';
import type { KnownLimits, LimitsCache } from '../llm/limits/cache.js';
import { requestLimits, unknownModelWarning } from '../llm/providers.js';
import type { ModelInfo } from '../llm/models.js';
import { ContextOverflowError, hasLimitsDiscovery, isCapabilityAware, type DiscoveryFailure, type ModelLimits, type Provider } from '../llm/types.js';
import type { Session } from './session.js';
import { log } from '../log.js';
import { refusalStands, sameLimits, wasUnanswered } from './window-known.js';
import { cutWithinMessage, learnedMessage, serverNowSays, settingOverServer } from './window-words.js';
export { withLimits } from './window-known.js';
export { MIN_PLATEAU_CONTEXT, PLATEAU_MIN_GROWTH, PLATEAU_SHARE, type SentEstimate } from './prompt-cut-evidence.js';
import { cutEvidence, type SentEstimate } from './prompt-cut-evidence.js';
export { MIN_OUTPUT_FLOOR, OUTPUT_FLOOR, OUTPUT_RESERVE_CAP, outputFloor, outputReserve, UNNAMED_SHRINK, unnamedWindow, windowMargin } from './window-budget.js';
import { outputFloor, outputReserve, windowMargin } from './window-budget.js';

/** Answered requests kept for the plateau check. */
const HISTORY = 16;
/** Heads (system prompt, tools, first message) whose count is kept: a few reshapes of the system prompt. */
const HEADS = 8;
export interface WindowHost {
  session: Session;
  provider(): Provider;
  /** The model table's entry for the current model (window and output before anything was learned). */
  tableInfo(): ModelInfo;
  /** Applies new limits to the agent (window, output budget). */
  apply(limits: ModelLimits): void;
  /** SKEIN_CONTEXT_WINDOW, when set. */
  setting: number | undefined;
  /** SKEIN_MAX_OUTPUT_TOKENS: no request asks for more answer. */
  maxOutput?: number;
  cache: LimitsCache | undefined;
}

export class SessionWindow {
  source: WindowSource = 'table';
  private limits: ModelLimits;
  /** The model whose limits were settled (asked, read from the log or the cache). */
  private settledFor: string | undefined;
  /** When a model-info request that found the server unreachable may go again. */
  private readonly asking = new RetryBackoff();
  /** A failed ask is in the log for this model (said once). */
  private failureLogged = false;
  /** The unknown-model warning was said for this model. */
  private warned = false;
  /** What the data folder learned about this model at this server before (learned-limits.json). */
  private remembered: KnownLimits | undefined;
  /** The server drops the start of a prompt that does not fit (Ollama) instead of refusing it. */
  private truncates = false;
  /** The answered requests since the view last changed other than by appending (our count, the server's), for the plateau check. */
  private history: { raw: number; reported: number; lineage: number }[] = [];
  /** The largest prompt the server read in full: the window is at least this, whatever a refusal implies. */
  private proven = 0;
  /** What the server counted for a request that was a head alone, by the head's key (see SentEstimate.head). */
  private heads = new Map<string, number>();
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

  /** A new model (start, or a switch): the table or the setting, unless the log (or the data folder) already knows better. */
  reset(): void {
    const model = this.host.provider().model;
    this.settledFor = undefined;
    this.asking.reset();
    this.failureLogged = false;
    this.remembered = undefined;
    this.truncates = false;
    this.history = [];
    this.proven = 0;
    this.heads.clear();
    this.providerSaid = undefined;
    this.outputCap = undefined;
    this.thinking = undefined;
    this.source = this.host.setting !== undefined ? 'setting' : 'table';
    this.set(requestLimits(this.host.tableInfo(), this.host.setting ?? this.host.tableInfo().contextWindow));
    this.warned = this.host.session.log.kinds.eventsOf('error').some((e) => e.code === 'unknown_model' && e.message.includes(`"${model}"`));
    // The log knows (a restart); the server's cache is read, and written to this log, at the first turn.
    // From the end, among the limits events only (kind-index.ts).
    const logged = this.host.session.log.kinds.eventsOf('limits').findLast((e) => e.model === model);
    // What the log knew is the start; the server is still asked once by this process (it may have been restarted
    // with another context since).
    if (logged && !wasUnanswered(logged)) {
      const { seq, ts, kind, message, unanswered, ...known } = logged;
      this.adoptKnown(known);
      return;
    }
    // Asked before and not answered (the failure was said): asked again at the next request.
    if (logged) this.failureLogged = true;
    // What an earlier process learned about this server and model: the start, until the server says.
    const remembered = this.host.cache?.remembered(model);
    if (remembered) {
      this.remembered = remembered;
      this.adoptKnown(remembered);
    } else if (logged) {
      const { seq, ts, kind, message, unanswered, ...known } = logged;
      this.adoptKnown(known);
    }
  }

  /** The window is a guess: a model not in skein's table whose server has not said its window. */
  get guess(): boolean {
    return this.source === 'table' && this.host.tableInfo().unknown === true;
  }

  /** What the gauge says about the window: where it comes from, the room kept for the answer, a guess. */
  gaugeFields(): Pick<Gauge, 'windowSource' | 'reserve' | 'windowGuess'> {
    return { windowSource: this.source, reserve: this.reserve, ...(this.guess && { windowGuess: true }) };
  }

  /**
   * Before each request: asks the provider, once per model. A server that
   * could not be reached is asked again at a later request (backoff.ts) until
   * it answers. Never throws (but for a cancel).
   */
  async settle(signal: AbortSignal): Promise<void> {
    const provider = this.host.provider();
    const model = provider.model;
    if (this.settledFor === model || !this.asking.due) return;
    const cached = this.host.cache?.get(model);
    // Each session asks once (a GET): a local server restarted with another context is seen by the next session.
    // What this process was told before stands in only when the server cannot answer now.
    if (!hasLimitsDiscovery(provider)) {
      this.settledFor = model;
      if (cached) this.record({ ...cached }, undefined);
      return;
    }
    const found = await provider.discoverLimits(signal);
    signal.throwIfAborted();
    const logged = this.host.session.log.kinds.eventsOf('limits').findLast((e) => e.model === model && !wasUnanswered(e));
    if ('failed' in found && cached) {
      this.settledFor = model;
      return this.record({ ...cached }, undefined);
    }
    // Not answered now: what the log knew (adopted at the start) stands, and nothing new is said.
    if ('failed' in found && logged) {
      this.settledFor = model;
      return;
    }
    if ('failed' in found) return this.unanswered(model, found);
    if (this.stillRefused(model, found.contextWindow, cached ?? logged)) return;
    this.settledFor = model;
    const before = { window: this.limits.contextWindow, guessed: this.asking.failed > 0 || this.remembered !== undefined };
    this.asking.reset();
    const table = this.host.tableInfo();
    this.truncates = found.truncates === true;
    const reported = { ...(found.contextWindow && { contextWindow: found.contextWindow }), ...(found.maxOutputTokens && { maxOutputTokens: found.maxOutputTokens }) };
    // A server that cuts what does not fit its context gives no more than that, whatever SKEIN_CONTEXT_WINDOW says.
    const cutsBelowSetting = this.truncates && found.contextWindow !== undefined && this.host.setting !== undefined && found.contextWindow < this.host.setting;
    const setting = cutsBelowSetting ? undefined : this.host.setting;
    const window = setting ?? found.contextWindow ?? table.contextWindow;
    const source: WindowSource = setting !== undefined ? 'setting' : found.contextWindow ? 'provider' : 'table';
    const limits = requestLimits({ contextWindow: window, maxOutputTokens: found.maxOutputTokens ?? table.maxOutputTokens }, window);
    log.info(`${model}: window ${window} tokens (${source}; the provider said ${JSON.stringify(reported)} via ${found.via})`, { session: this.host.session.id });
    // Said in the timeline when the window in use was a fallback (the server did not answer) or remembered, and the server names another.
    // A session the log knew (a restart) is told when the server now names another window than the one it used.
    const changed = (before.guessed || logged !== undefined) && window !== before.window;
    const message = changed ? serverNowSays(window, found.via, before.window) : undefined;
    const known: KnownLimits = { model, ...limits, source, via: found.via, reported, ...(this.truncates && { truncates: true }), ...(found.thinking && { thinking: found.thinking }) };
    // The same answer as the log's last: nothing new to say (a restart of a session adds no event).
    const overServer = logged && sameLimits(logged, known) ? undefined : settingOverServer(setting, found.contextWindow, found.via);
    if (logged && !message && !overServer && sameLimits(logged, known)) {
      this.adoptKnown(known);
      this.host.cache?.set(known, true);
      return;
    }
    if (overServer) log.warn(`${model}: ${overServer}`, { session: this.host.session.id });
    this.record(known, [message, overServer].filter(Boolean).join(' ') || undefined, true);
  }

  /** A refusal's window stands while the server says what it said before; another answer means a restarted server. */
  private stillRefused(model: string, said: number | undefined, before: KnownLimits | LimitsEvent | undefined): boolean {
    const prior = before ?? this.remembered;
    if (!refusalStands(prior, said)) return false;
    this.settledFor = model;
    this.asking.reset();
    const { seq: _s, ts: _t, kind: _k, message: _m, unanswered: _u, ...known } = prior as LimitsEvent;
    this.adoptKnown(known);
    this.host.cache?.set(known);
    return true;
  }

  /** The provider did not say its limits: what is known stays; a server that may answer later is asked again. */
  private unanswered(model: string, found: DiscoveryFailure): void {
    const using = this.remembered ? 'what this data folder learned before' : this.source === 'setting' ? 'SKEIN_CONTEXT_WINDOW' : 'the model table';
    if (found.transient) {
      const wait = this.asking.fail();
      log.info(`${model}: the provider did not say its limits (${found.failed}); using ${using}, asking again ${wait ? `in ${Math.round(wait / 1000)} s or later` : 'at the next request'}`, { session: this.host.session.id });
    } else {
      this.settledFor = model;
      log.info(`${model}: the provider does not say its limits (${found.failed}); using ${using}`, { session: this.host.session.id });
    }
    this.warnGuess(found.transient ? 'its server has not said its window yet (skein asks again at a later request)' : 'its server does not say its window', found.failed);
    // Said once per model in the log (the via says why): a server that stays down adds nothing more.
    if (this.failureLogged) return;
    this.failureLogged = true;
    const via = `${this.remembered ? `learned earlier (${this.remembered.via}); ` : ''}asked the provider: ${found.failed}`;
    const known: KnownLimits = { ...this.remembered, model, ...this.limits, source: this.source, via };
    // Only a lasting answer ("it does not say") is the process's to keep: a passing one is asked again.
    if (!found.transient) this.host.cache?.set(known);
    this.host.session.append({ kind: 'limits', ...known, ...(found.transient && { unanswered: true }) });
  }

  /** A window that is a guess is said once, in the timeline and the log, when asking did not replace it. */
  private warnGuess(why: string, detail: string): void {
    if (!this.guess || this.warned) return;
    this.warned = true;
    const message = unknownModelWarning(this.host.provider().model, this.limits.contextWindow, why, detail);
    log.info(message, { session: this.host.session.id });
    this.host.session.append({ kind: 'error', message, code: 'unknown_model' });
  }

  /** The output budget of the next request: what fits beside `inputEstimate` in the window, at least OUTPUT_FLOOR. */
  outputBudget(inputEstimate: number): number {
    const room = this.limits.contextWindow - inputEstimate - windowMargin(this.limits.contextWindow);
    return Math.max(Math.min(outputFloor(this.limits.contextWindow), this.host.maxOutput ?? Infinity), Math.min(this.wanted, room));
  }

  /** The room kept free for the answer (the gauge shows it): compaction starts before a request would leave less. */
  get reserve(): number {
    return outputReserve(this.limits.contextWindow, this.wanted);
  }
  /** The most answer a request asks for: the model's, a refusal's cap, SKEIN_MAX_OUTPUT_TOKENS. */
  private get wanted(): number {
    return Math.min(this.limits.maxOutputTokens, this.outputCap ?? Infinity, this.host.maxOutput ?? Infinity);
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
   * The provider's reported prompt tokens for a request it answered. Fewer
   * than skein estimated is normal (another tokenizer); silent truncation is
   * concluded only from evidence that holds whatever the tokenizer: the count
   * stood still while the content grew (a plateau), the count reached a known
   * num_ctx, or content that cannot have fit the known context of a server
   * known to cut came back counted as if it did. Throws the ContextOverflowError
   * to recover from (the answer is dropped); else records what was proven.
   */
  checkReported(sent: SentEstimate, usage: Pick<Usage, 'input' | 'cacheRead' | 'cacheWrite'>): void {
    const reported = usage.input + usage.cacheRead + usage.cacheWrite;
    const earlier = this.history.filter((h) => h.lineage === sent.lineage);
    const cut = this.cutEvidence(sent, reported, earlier);
    if (!cut) {
      this.history = [...earlier, { raw: sent.raw, reported, lineage: sent.lineage }].slice(-HISTORY);
      this.proven = Math.max(this.proven, reported);
      if (sent.head?.only && reported > 0) {
        this.heads.delete(sent.head.key);
        this.heads.set(sent.head.key, reported);
        if (this.heads.size > HEADS) this.heads.delete(this.heads.keys().next().value as string);
      }
      return;
    }
    this.history = [];
    // What it kept is a lower bound of its window; the number its model-info endpoint gave (num_ctx) is better evidence.
    // (The request passed that context: the window in use, when it is that context, stays.)
    const window = this.providerSaid !== undefined && this.providerSaid <= this.limits.contextWindow ? this.providerSaid : Math.max(reported, this.proven);
    // A count that reached num_ctx is a floor of the server's count of the whole request: the estimate may learn from it.
    const numCtx = this.cutsAt;
    const floor = numCtx !== undefined && reported >= numCtx ? { prompt: reported } : {};
    throw new ContextOverflowError(`the server was cutting the start of the conversation: ${cut}`, { window, ...floor }, true);
  }

  /** Why the answered request must have been cut, or undefined when nothing says so. */
  private cutEvidence(sent: SentEstimate, reported: number, earlier: readonly { raw: number; reported: number }[]): string | undefined {
    // Anthropic, Gemini and OpenAI's Responses API refuse a prompt that is too long: only other servers may cut it.
    const table = this.host.tableInfo();
    const refusesInstead = table.provider === 'anthropic' || table.provider === 'gemini' || table.thinking?.mode === 'responses';
    if (refusesInstead && !this.truncates) return undefined;
    const headCount = sent.head && !sent.head.only ? this.heads.get(sent.head.key) : undefined;
    return cutEvidence(sent, reported, earlier, this.cutsAt, headCount);
  }

  /** The context (num_ctx) of a server known to cut a prompt that does not fit it, when it said it. */
  get cutsAt(): number | undefined {
    return this.truncates ? this.providerSaid : undefined;
  }

  /**
   * A request of about `estimate` tokens (at the largest ratio seen) may have
   * been cut by a server known to cut: what it reports for it says nothing
   * sure about its tokenizer, so the estimate does not learn from it.
   */
  mayHaveCut(estimate: number): boolean {
    const numCtx = this.cutsAt;
    return numCtx !== undefined && estimate > numCtx;
  }

  /** The largest prompt the server read in full (its own count): its window is at least this. */
  get provenPrompt(): number {
    return this.proven;
  }

  /** A refusal names a window (or implies one): adopt it when it is smaller than the one in use. Returns whether it changed. */
  learn(window: number, err: ContextOverflowError): boolean {
    // Never below what a request the server answered in full already proved.
    const learned = Math.max(Math.floor(window), this.proven);
    const model = this.host.provider().model;
    if (learned >= this.limits.contextWindow) {
      if (err.truncated) this.cutWithin(model, err);
      return false;
    }
    const limits = requestLimits({ contextWindow: learned, maxOutputTokens: this.host.tableInfo().maxOutputTokens }, learned);
    const message = learnedMessage(err, learned, this.limits.contextWindow);
    const via = err.truncated ? 'the server reported fewer prompt tokens than were sent' : `refusal: ${err.message.slice(0, 300)}`;
    this.record({ model, ...limits, source: 'refusal', via, ...this.saidBefore(), ...(err.truncated && { truncated: true }), ...(this.truncates && { truncates: true }), ...(this.thinking && { thinking: this.thinking }) }, message, true);
    return true;
  }

  /** What the provider's model-info endpoint said, kept with a learned window (see stillRefused). */
  private saidBefore = (): Pick<KnownLimits, 'reported'> => (this.providerSaid !== undefined ? { reported: { contextWindow: this.providerSaid } } : {});

  /** A cut while the window in use is already the server's context: the window stays, the timeline says what happened. */
  private cutWithin(model: string, err: ContextOverflowError): void {
    const message = cutWithinMessage(err, this.limits.contextWindow);
    this.record({ model, ...this.limits, source: 'refusal', via: 'the server cut a prompt that passed its context', truncated: true, ...this.saidBefore(), ...(this.truncates && { truncates: true }), ...(this.thinking && { thinking: this.thinking }) }, message, true);
  }

  /** The context the provider's model-info endpoint named (llama.cpp's n_ctx), even when SKEIN_CONTEXT_WINDOW won. */
  get serverContext(): number | undefined { return this.providerSaid; }

  /** An answer cut when prompt and answer filled the server's context: the window is `filled` when smaller (never below a prompt read in full). */
  learnFromCut(filled: number, message: string): boolean {
    const learned = Math.max(Math.floor(filled), this.proven);
    if (learned >= this.limits.contextWindow) return false;
    const limits = requestLimits({ contextWindow: learned, maxOutputTokens: this.host.tableInfo().maxOutputTokens }, learned);
    const via = `an answer cut for length at ${learned} tokens of prompt and answer`;
    this.record({ model: this.host.provider().model, ...limits, source: 'refusal', via, ...this.saidBefore(), ...(this.truncates && { truncates: true }), ...(this.thinking && { thinking: this.thinking }) }, message, true);
    return true;
  }

  /** An output-budget refusal (the prompt fits, the answer's room did not): the next request asks for at most `cap`. */
  capOutput(cap: number): void {
    this.outputCap = Math.max(outputFloor(this.limits.contextWindow), Math.floor(cap));
  }

  private adoptKnown(known: KnownLimits): void {
    // SKEIN_CONTEXT_WINDOW wins over what the provider said, not over what it refused, nor over a smaller context a server cuts to.
    const cutsBelow = (known.truncates || known.truncated) && known.reported?.contextWindow !== undefined && this.host.setting !== undefined && known.reported.contextWindow < this.host.setting;
    if (this.host.setting !== undefined && known.source !== 'refusal' && !cutsBelow) {
      this.source = 'setting';
      this.set(requestLimits({ contextWindow: this.host.setting, maxOutputTokens: known.maxOutputTokens }, this.host.setting));
    } else {
      this.source = known.source;
      this.set({ contextWindow: known.contextWindow, maxOutputTokens: known.maxOutputTokens });
    }
    if (known.truncates || known.truncated) this.truncates = true;
    if (known.reported?.contextWindow) this.providerSaid = known.reported.contextWindow;
    // The Models API's capabilities win over the model table's thinking settings (also after a restart: the log says them).
    if (known.thinking) this.thinking = known.thinking;
    const provider = this.host.provider();
    if (known.thinking && isCapabilityAware(provider)) provider.adoptCapabilities(known.thinking);
  }

  /** `learned`: the provider just said (or refused): the data folder keeps it too. */
  private record(known: KnownLimits, message: string | undefined, learned = false): void {
    this.adoptKnown(known);
    this.host.cache?.set(known, learned);
    this.host.session.append({ kind: 'limits', ...known, ...(message && { message }) });
  }

  private set(limits: ModelLimits): void {
    this.limits = limits;
    this.host.apply(limits);
  }
}
