// The context window a session really has, and where it comes from. Asks the
// provider once per model (or reads the answer from the log or the server's
// cache), falls back to the model table, lets SKEIN_CONTEXT_WINDOW win, and
// learns a smaller window whenever the provider refuses a request as too long
// or is seen cutting the prompt. Every change is a `limits` event, so the
// gauge, the threshold and the compaction target follow at once and a restart
// knows it. The recovery from a refusal (how hard to compact) is in
// overflow-recovery.ts.
import type { ThinkingCapabilities, Usage, WindowSource } from '../../shared/protocol.js';
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
/** OpenCode budgets the next request against the window minus 20k: skein keeps at most that much free for the answer. */
export const OUTPUT_RESERVE_CAP = 20_000;

/** The room kept free for the answer before a request goes out: the request's output budget, at most 20k, at least the floor. */
export function outputReserve(contextWindow: number, maxOutputTokens: number): number {
  return Math.max(outputFloor(contextWindow), Math.min(maxOutputTokens, OUTPUT_RESERVE_CAP));
}

/**
 * Silent truncation is concluded only from evidence that holds whatever the
 * server's tokenizer: between two requests on the same view (no compaction in
 * between) that grew by at least PLATEAU_MIN_GROWTH of our tokens, the
 * reported count grew by less than PLATEAU_SHARE of that growth. Every
 * tokenizer counts added text as at least half of ours: a count that stands
 * still while the content grows was cut.
 */
export const PLATEAU_MIN_GROWTH = 256;
export const PLATEAU_SHARE = 0.25;
/**
 * No server runs a chat model in a context this small: a count that stands
 * still below it is usage the server does not really report (a proxy or a
 * stub that answers the same numbers every time), not a plateau at its context.
 */
export const MIN_PLATEAU_CONTEXT = 512;
/** Answered requests kept for the plateau check. */
const HISTORY = 16;
/** Heads (system prompt, tools, first message) whose count is kept: a few reshapes of the system prompt. */
const HEADS = 8;
/** Assumed window after a refusal that names no number, when nothing was answered yet: the refused request (input + output budget) minus 10%. */
export const UNNAMED_SHRINK = 0.9;

/**
 * The window to assume after a refusal that names no number, of a request of
 * `asked` tokens (input and output budget) when the server already read a
 * prompt of `proven` tokens in full: the window lies between the two. Before
 * anything was answered, the refused request minus 10% (the first refusal is
 * often the output budget alone). After, the largest prompt read in full when
 * it is at least half of the refused request (a session grows a little at a
 * time: the window is then certainly not passed again, at the cost of a few
 * tokens), else halfway between them.
 */
export function unnamedWindow(asked: number, proven: number): number {
  if (proven <= 0) return Math.floor(UNNAMED_SHRINK * asked);
  if (proven >= asked / 2) return Math.min(proven, Math.floor(UNNAMED_SHRINK * asked));
  return Math.floor((proven + asked) / 2);
}

/** What the agent tells the window about a request it sent. */
export interface SentEstimate {
  /** gpt-tokenizer's count of the whole request (uncalibrated). */
  raw: number;
  /** Increments each time the view changed other than by appending (a compaction, a new system prompt). */
  lineage: number;
  /** The smallest ratio (server / ours) seen lately: how few tokens the server can count for what we count. */
  lowerRatio: number;
  /**
   * The request's head (system prompt, tools, first message) as a key, and
   * whether the request was that head alone: what the server counted for it
   * is a floor of every later request that carries it.
   */
  head?: { key: string; only: boolean };
}

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

  /** A new model (start, or a switch): the table or the setting, unless the log already knows better. */
  reset(): void {
    const model = this.host.provider().model;
    this.settledFor = undefined;
    this.truncates = false;
    this.history = [];
    this.proven = 0;
    this.heads.clear();
    this.providerSaid = undefined;
    this.outputCap = undefined;
    this.thinking = undefined;
    this.source = this.host.setting !== undefined ? 'setting' : 'table';
    this.set(requestLimits(this.host.tableInfo(), this.host.setting ?? this.host.tableInfo().contextWindow));
    // The log knows (a restart); the server's cache is read, and written to this log, at the first turn.
    // From the end, among the limits events only (kind-index.ts).
    const logged = this.host.session.log.kinds.eventsOf('limits').findLast((e) => e.model === model);
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
    // A server that cuts what does not fit its context gives no more than that, whatever SKEIN_CONTEXT_WINDOW says.
    const cutsBelowSetting = this.truncates && found.contextWindow !== undefined && this.host.setting !== undefined && found.contextWindow < this.host.setting;
    const setting = cutsBelowSetting ? undefined : this.host.setting;
    const window = setting ?? found.contextWindow ?? table.contextWindow;
    const source: WindowSource = setting !== undefined ? 'setting' : found.contextWindow ? 'provider' : 'table';
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

  /** The room kept free for the answer (the gauge shows it): compaction starts before a request would leave less. */
  get reserve(): number {
    return outputReserve(this.limits.contextWindow, Math.min(this.limits.maxOutputTokens, this.outputCap ?? Infinity));
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
    const tokens = (n: number) => Math.round(n).toLocaleString('en-US');
    const numCtx = this.cutsAt;
    if (numCtx !== undefined && reported >= numCtx) return `it read ${tokens(reported)} prompt tokens, all of its ${tokens(numCtx)}-token context (num_ctx)`;
    // Whatever its tokenizer, a server counts a request at least as high as a part of it: the same system prompt,
    // tools and first message, sent alone, were counted higher. (A server that reports no usage reports 0: not evidence.)
    const headCount = sent.head && !sent.head.only ? this.heads.get(sent.head.key) : undefined;
    if (headCount !== undefined && reported > 0 && reported < headCount) {
      return `it counted ${tokens(reported)} prompt tokens for a request whose start alone (system prompt, tools and first message) it had counted at ${tokens(headCount)}`;
    }
    // A server known to cut at a known context: the request, counted as low as its tokenizer was ever seen to count, could not fit.
    const leastWhole = sent.lowerRatio * sent.raw;
    if (numCtx !== undefined && leastWhole > numCtx && reported < leastWhole) {
      return `at least about ${tokens(leastWhole)} prompt tokens were sent to its ${tokens(numCtx)}-token context, and it read ${tokens(reported)}`;
    }
    for (const before of earlier) {
      const grown = sent.raw - before.raw;
      if (grown < PLATEAU_MIN_GROWTH) continue;
      if (reported >= MIN_PLATEAU_CONTEXT && reported - before.reported < PLATEAU_SHARE * grown) {
        return `about ${tokens(grown)} tokens were added since an earlier request, yet the count it reported went from ${tokens(before.reported)} to only ${tokens(reported)}`;
      }
      // A server known to cut, whose context is known: the added text, counted as low as its tokenizer was ever seen to count, could not fit.
      const least = before.reported + sent.lowerRatio * grown;
      if (numCtx !== undefined && least > numCtx && reported < least) {
        return `at least about ${tokens(least)} prompt tokens were sent to its ${tokens(numCtx)}-token context, and it read ${tokens(reported)}`;
      }
    }
    return undefined;
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
    const tokens = learned.toLocaleString('en-US');
    const message = err.truncated
      ? `The server only keeps ${tokens} tokens of context: it was silently cutting the start of the conversation (${err.message.replace(/^the server was cutting the start of the conversation: /, '')}). skein now uses a ${tokens}-token window and compacts to fit; for Ollama set SKEIN_LOCAL_CONTEXT (skein then asks for that much context on each request) or raise \`num_ctx\` (the model's num_ctx parameter or OLLAMA_CONTEXT_LENGTH).`
      : `The provider refused a request as too long; its window is ${err.limits.window !== undefined ? '' : 'at most '}${tokens} tokens, not ${this.limits.contextWindow.toLocaleString('en-US')}. skein now uses ${tokens} and compacts to fit.`;
    const via = err.truncated ? 'the server reported fewer prompt tokens than were sent' : `refusal: ${err.message.slice(0, 300)}`;
    this.record({ model, ...limits, source: 'refusal', via, ...(err.truncated && { truncated: true }), ...(this.truncates && { truncates: true }), ...(this.thinking && { thinking: this.thinking }) }, message);
    return true;
  }

  /**
   * A cut seen while the window in use is already the server's context: the
   * window stays, and the timeline still says what happened (the answer to the
   * cut prompt was dropped), in a limits event like any cut.
   */
  private cutWithin(model: string, err: ContextOverflowError): void {
    const tokens = this.limits.contextWindow.toLocaleString('en-US');
    const message =
      `The server silently cut the start of the conversation (${err.message.replace(/^the server was cutting the start of the conversation: /, '')}): a request passed its ${tokens}-token context. ` +
      `skein dropped the answer to the cut prompt and compacts to fit ${tokens} tokens; for Ollama set SKEIN_LOCAL_CONTEXT or raise \`num_ctx\` for more room.`;
    const reported = this.providerSaid !== undefined ? { reported: { contextWindow: this.providerSaid } } : {};
    this.record({ model, ...this.limits, source: 'refusal', via: 'the server cut a prompt that passed its context', truncated: true, ...reported, ...(this.truncates && { truncates: true }), ...(this.thinking && { thinking: this.thinking }) }, message);
  }

  /** The context the provider's model-info endpoint named (llama.cpp's n_ctx), even when SKEIN_CONTEXT_WINDOW won. */
  get serverContext(): number | undefined {
    return this.providerSaid;
  }

  /** An answer cut when prompt and answer filled the server's context: the window is `filled` when smaller (never below a prompt read in full). */
  learnFromCut(filled: number, message: string): boolean {
    const learned = Math.max(Math.floor(filled), this.proven);
    if (learned >= this.limits.contextWindow) return false;
    const limits = requestLimits({ contextWindow: learned, maxOutputTokens: this.host.tableInfo().maxOutputTokens }, learned);
    const via = `an answer cut for length at ${learned} tokens of prompt and answer`;
    this.record({ model: this.host.provider().model, ...limits, source: 'refusal', via, ...(this.truncates && { truncates: true }), ...(this.thinking && { thinking: this.thinking }) }, message);
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
