// Stands between a replayed session and the replay model (the server's
// wrapProvider) and measures every policy the same way, from outside skein:
//  - recall: a recorded step that uses an identifier found only in original
//    content the view no longer shows pays for getting it back (a re-read at
//    that step's cache state and one extra request; README, "Recall has a price").
//    Two rules, both charged on the same run: strict (the primary one,
//    recall/evidence.ts: the lines holding the name must be in view; a name
//    alone is a hint, charged as a targeted re-read) and lenient (a name in
//    view counts as the lines it names);
//  - the neutral identifier measure over the content each rewrite of the view removed;
//  - real user messages and harness notices in the view at every request;
//  - one summary-size model for every policy (Claude Code's published
//    compaction, 22,000 tokens in and 1,400 out, capped by the policy's own
//    summary limit): the summary is padded to that size with prose free of identifiers;
//  - a peer's own cut of a long tool output (its source's rule, not skein's cap).
import type { Usage, ViewMessage } from '../../../shared/protocol.js';
import { tokensOf } from '../../../server/llm/tokens.js';
import { hasRecordedTools, hasScriptedUser, type LlmRequest, type LlmResponse, type Provider, type RecordedTools, type ScriptedUser, type StreamHandlers } from '../../../server/llm/types.js';
import { linesOf, strictWaiver, targetedTokens, type MessageLines } from './evidence.js';
import { identifiersOf, normalise, viewHas } from './identifiers.js';

/** Claude Code's compaction as published: 22,000 tokens in, 1,400 out. */
export const SUMMARY_OUT_PER_IN = 1400 / 22_000;
/** Tokens of the recall call itself (a search_history or re-run call and its framing). */
export const RECALL_CALL_TOKENS = 40;
/** mini-swe-agent's own notices (format errors, timeouts), sent in the user role. */
export const HARNESS_NOTICE = /^(Please always provide EXACTLY ONE action|The last command .{0,200}timed out)/;

export type Price = (u: { input: number; cacheRead: number; cacheWrite: number; output: number }) => number;

/** Recall charged under the strict rule (recall/evidence.ts): a name without its lines is a hint, and a hint is a targeted re-read. */
export interface StrictRecall {
  /** Steps that needed something back: one extra request each. */
  rereads: number;
  /** Of those, steps that needed only targeted re-reads (every name was in view, not its lines). */
  targeted: number;
  /** Names re-read by a targeted read (grep, ranged read). */
  targetedNames: number;
  /** Whole messages read back (the name was nowhere in view). */
  rereadMessages: number;
  rereadTokens: number;
  rereadUsd: number;
}

export function emptyStrictRecall(): StrictRecall {
  return { rereads: 0, targeted: 0, targetedNames: 0, rereadMessages: 0, rereadTokens: 0, rereadUsd: 0 };
}

export interface MeterStats {
  steps: number;
  /** Strict recall (the primary rule): the lines the step needs must be in view. */
  strict: StrictRecall;
  /** The fields below up to rereadUsd are the lenient rule's: a name in view counts as the lines it names. */
  /** Steps that needed something back: one extra request each. */
  rereads: number;
  /** Original messages read back (one step may need several). */
  rereadMessages: number;
  rereadTokens: number;
  /** The extra requests, plus the re-read content carried in later requests until the next rewrite. */
  rereadUsd: number;
  /** Neutral identifiers of content removed by a rewrite of the view / of those, still in the view after it. */
  idsTotal: number;
  idsKept: number;
  rewrites: number;
  realUserTotal: number;
  realUserKept: number;
  noticeTotal: number;
  noticeKept: number;
  /** Summary output tokens as modelled (what the policy's summariser was charged). */
  summaryTokens: number;
}

export function emptyMeterStats(): MeterStats {
  return { steps: 0, strict: emptyStrictRecall(), rereads: 0, rereadMessages: 0, rereadTokens: 0, rereadUsd: 0, idsTotal: 0, idsKept: 0, rewrites: 0, realUserTotal: 0, realUserKept: 0, noticeTotal: 0, noticeKept: 0, summaryTokens: 0 };
}

export interface MeterOptions {
  price: Price;
  window: number;
  /** The recording's file: what it yields is prepared once per file and process. */
  file?: string;
  /** The peer's own cut of a tool output (undefined: none). */
  cut?: ((output: string) => string) | undefined;
}

interface Prepared {
  /** Each message's lines, split when a step first needs them. */
  linesAt: (MessageLines | undefined)[];
  normalisedAt: string[];
  idsAt: Set<string>[];
  holders: Map<string, number[]>;
}

const PREPARED = new Map<string, Prepared>();

function prepare(recording: readonly ViewMessage[]): Prepared {
  const normalisedAt = recording.map((m) => normalise(originalText(m)));
  const idsAt = normalisedAt.map((t) => identifiersOf(t, true));
  const holders = new Map<string, number[]>();
  idsAt.forEach((ids, i) => {
    // The recording's own system prompt is not part of any policy's view.
    if (recording[i]!.role === 'system') return;
    for (const id of ids) (holders.get(id) ?? holders.set(id, []).get(id)!).push(i);
  });
  return { linesAt: new Array(recording.length), normalisedAt, idsAt, holders };
}

const FILLER = ' The work so far is described above in prose.';

/** The recorded text of a message as the original agent saw it: its content and its calls. */
function originalText(m: ViewMessage): string {
  return [m.content, ...(m.toolCalls ?? []).map((c) => JSON.stringify(c.input))].join('\n');
}


export class MeteredProvider implements Provider, RecordedTools, ScriptedUser {
  readonly stats = emptyMeterStats();
  private cursor: number;
  private readonly firstUser: number;
  /** Identifiers of each recorded message (normalised), and for each identifier the messages holding it. */
  private readonly idsAt: Set<string>[];
  private readonly holders: Map<string, number[]>;
  private readonly normalisedAt: string[];
  private readonly linesAt: (MessageLines | undefined)[];
  /** Under the strict rule: what was read back since the last rewrite ("i" a whole message, "i:id" a targeted read), and its tokens. */
  private strictReadBack = new Set<string>();
  private strictCarried = 0;
  /** Identifiers of the original content up to the cursor, and how far that set reaches. */
  private readonly original = new Set<string>();
  private originalTo = 0;
  private previous: ViewMessage[] | undefined;
  /** Recorded messages read back since the last rewrite, and their tokens (carried in every later request). */
  private readBack = new Set<number>();
  private carried = 0;
  private readonly memo = new Map<string, string>();

  constructor(
    private readonly inner: Provider,
    private readonly recording: readonly ViewMessage[],
    private readonly options: MeterOptions,
  ) {
    this.firstUser = recording.findIndex((m) => m.role === 'user');
    this.cursor = this.firstUser + 1;
    // The same recording is replayed under every policy and window: prepared once per file.
    const prepared = (options.file && PREPARED.get(options.file)) || prepare(recording);
    if (options.file) PREPARED.set(options.file, prepared);
    ({ normalisedAt: this.normalisedAt, idsAt: this.idsAt, holders: this.holders, linesAt: this.linesAt } = prepared);
  }

  get model(): string {
    return this.inner.model;
  }

  get limits() {
    return this.inner.limits;
  }

  async complete(request: LlmRequest, signal: AbortSignal, stream?: StreamHandlers): Promise<LlmResponse> {
    if (request.purpose === 'summary') return this.summary(request, await this.inner.complete(request, signal, stream));
    const next = this.recording[this.cursor];
    const response = await this.inner.complete(request, signal, stream);
    if (next?.role !== 'assistant') return response;
    this.step(request, next, response.usage);
    this.cursor++;
    while (this.recording[this.cursor]?.role === 'tool') this.cursor++;
    return response;
  }

  recordedToolResult(callId: string): { output: string; isError: boolean } | undefined {
    if (!hasRecordedTools(this.inner)) return undefined;
    const result = this.inner.recordedToolResult(callId);
    return result && this.options.cut ? { ...result, output: this.options.cut(result.output) } : result;
  }

  nextUserMessage(): string | undefined {
    const text = hasScriptedUser(this.inner) ? this.inner.nextUserMessage() : undefined;
    if (text !== undefined) this.cursor++;
    return text;
  }

  /** The summary padded to the modelled size (never cut: a longer deterministic text stays as it is). */
  private summary(request: LlmRequest, response: LlmResponse): LlmResponse {
    const prompt = response.usage.input + response.usage.cacheRead + response.usage.cacheWrite;
    const target = Math.min(request.maxOutputTokens, Math.round(prompt * SUMMARY_OUT_PER_IN));
    let text = response.text;
    if (tokensOf(text) < target) {
      const missing = target - tokensOf(text);
      const per = tokensOf(FILLER);
      text = `${text}\n${FILLER.repeat(Math.ceil(missing / per)).trim()}`;
    }
    const output = tokensOf(text);
    this.stats.summaryTokens += output;
    return { ...response, text, usage: { ...response.usage, output } };
  }

  private step(request: LlmRequest, next: ViewMessage, usage: Usage): void {
    const { stats, options } = this;
    stats.steps++;
    const view = this.viewText(request);
    this.rewrite(request.messages, view);
    this.userMessages(view);
    const prompt = usage.input + usage.cacheRead + usage.cacheWrite;
    const used = identifiersOf(normalise(originalText(next)), true);
    this.strictStep(view, used, prompt);
    // Content read back earlier stays in the context (read from the cache) until the next rewrite.
    if (this.carried) stats.rereadUsd += options.price({ input: 0, cacheRead: this.carried, cacheWrite: 0, output: 0 });
    const needed = new Set<number>();
    for (const id of used) {
      const source = this.latestHolder(id);
      if (source === undefined || this.readBack.has(source) || viewHas(view, id)) continue;
      needed.add(source);
    }
    if (!needed.size) return;
    // A re-read returns at most what one tool result may hold (a fifth of the window).
    const tokens = [...needed].reduce((n, i) => n + this.wholeReread(i), 0);
    stats.rereads++;
    stats.rereadMessages += needed.size;
    stats.rereadTokens += tokens;
    // The extra request: the prompt just sent (now cached), the recall call and what it returned written to the cache.
    stats.rereadUsd += options.price({ input: 0, cacheRead: prompt, cacheWrite: tokens + RECALL_CALL_TOKENS, output: RECALL_CALL_TOKENS });
    for (const i of needed) this.readBack.add(i);
    this.carried += tokens + RECALL_CALL_TOKENS;
  }

  /** A re-read returns at most what one tool result may hold (a fifth of the window). */
  private wholeReread(i: number): number {
    return Math.min(tokensOf(this.recording[i]!.content), Math.floor(0.2 * this.options.window));
  }

  private lines(i: number): MessageLines {
    return (this.linesAt[i] ??= linesOf(originalText(this.recording[i]!)));
  }

  /** The strict rule: a name without its lines is a hint (a targeted re-read), no name at all a whole re-read. */
  private strictStep(view: string, used: Set<string>, prompt: number): void {
    const { options } = this;
    const strict = this.stats.strict;
    if (this.strictCarried) strict.rereadUsd += options.price({ input: 0, cacheRead: this.strictCarried, cacheWrite: 0, output: 0 });
    const whole = new Set<number>();
    const targeted = new Map<string, number>();
    for (const id of used) {
      const source = this.latestHolder(id);
      if (source === undefined || this.strictReadBack.has(String(source)) || this.strictReadBack.has(`${source}:${id}`)) continue;
      const waiver = strictWaiver(view, this.lines(source), id);
      if (waiver === 'in view') continue;
      if (waiver === 'absent') whole.add(source);
      else targeted.set(`${source}:${id}`, targetedTokens(this.lines(source), id));
    }
    // A targeted read of a message also read whole is not made.
    for (const key of targeted.keys()) if (whole.has(Number(key.split(':')[0]))) targeted.delete(key);
    if (!whole.size && !targeted.size) return;
    const tokens = [...whole].reduce((n, i) => n + this.wholeReread(i), 0) + [...targeted.values()].reduce((n, t) => n + Math.min(t, Math.floor(0.2 * options.window)), 0);
    strict.rereads++;
    if (!whole.size) strict.targeted++;
    strict.targetedNames += targeted.size;
    strict.rereadMessages += whole.size;
    strict.rereadTokens += tokens;
    strict.rereadUsd += options.price({ input: 0, cacheRead: prompt, cacheWrite: tokens + RECALL_CALL_TOKENS, output: RECALL_CALL_TOKENS });
    for (const i of whole) this.strictReadBack.add(String(i));
    for (const key of targeted.keys()) this.strictReadBack.add(key);
    this.strictCarried += tokens + RECALL_CALL_TOKENS;
  }

  /** The whole request as the model reads it, normalised (each message once: most stay the same from request to request). */
  private viewText(request: LlmRequest): string {
    return [request.system, ...request.messages.map(originalText)].map((t) => this.normalised(t)).join(' ');
  }

  private normalised(text: string): string {
    let n = this.memo.get(text);
    if (n === undefined) this.memo.set(text, (n = normalise(text)));
    return n;
  }

  /** The newest recorded message before the step that holds the identifier. */
  private latestHolder(id: string): number | undefined {
    const list = this.holders.get(id);
    if (!list) return undefined;
    for (let k = list.length - 1; k >= 0; k--) if (list[k]! < this.cursor) return list[k];
    return undefined;
  }

  /** When the view is not the previous one plus new messages, what left it is measured against what stays. */
  private rewrite(messages: readonly ViewMessage[], view: string): void {
    const before = this.previous;
    this.previous = [...messages];
    if (!before) return;
    const appended = before.length <= messages.length && before.every((m, i) => m.content === messages[i]!.content && m.role === messages[i]!.role);
    if (appended) return;
    this.stats.rewrites++;
    this.readBack = new Set();
    this.carried = 0;
    this.strictReadBack = new Set();
    this.strictCarried = 0;
    const still = new Set(messages.map((m) => m.content));
    for (; this.originalTo < this.cursor; this.originalTo++) if (this.recording[this.originalTo]!.role !== 'system') for (const id of this.idsAt[this.originalTo]!) this.original.add(id);
    const removed = new Set<string>();
    for (const m of before) {
      if (still.has(m.content)) continue;
      for (const id of identifiersOf(this.normalised(originalText(m)), true)) if (this.original.has(id)) removed.add(id);
    }
    for (const id of removed) {
      this.stats.idsTotal++;
      if (viewHas(view, id)) this.stats.idsKept++;
    }
  }

  private userMessages(view: string): void {
    for (let i = this.firstUser; i < this.cursor; i++) {
      if (this.recording[i]!.role !== 'user') continue;
      const present = view.includes(this.normalisedAt[i]!.trim());
      if (i === this.firstUser || !HARNESS_NOTICE.test(this.recording[i]!.content)) {
        this.stats.realUserTotal++;
        if (present) this.stats.realUserKept++;
      } else {
        this.stats.noticeTotal++;
        if (present) this.stats.noticeKept++;
      }
    }
  }
}
