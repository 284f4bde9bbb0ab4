// The model view: the conversation the model sees, derived from the event log.
// Each finished compaction clears old tool results and/or replaces the span of
// messages it covers by its summary; nothing in the log itself ever changes.
import { parseCompactCommand, type CompactionEvent, type ImageRef, type Ledger, type SkeinEvent, type ViewMessage } from '../../shared/protocol.js';
import { savedMessageView } from './large-message.js';
import { imageLabel } from '../images/image-files.js';
import { renderLedger } from './ledger.js';
import { identifiersIn } from './identifiers.js';
import { describeSearchCall } from './tool-descriptions.js';
import type { SourcedMessage } from './types.js';

export type { SourcedMessage } from './types.js';

export const COMPACTED_OPEN = '<compacted-history>';
export const COMPACTED_CLOSE = '</compacted-history>';
/** Tool results shorter than this stay verbatim when old results are cleared (the placeholder would not be smaller). */
export const CLEARABLE_CHARS = 400;
/** The summary's first words: what it stands for and how to read the original back. */
function preamble([first, last]: [number, number], kept: readonly number[]): string {
  const except = kept.length ? ` except event${kept.length === 1 ? '' : 's'} ${kept.join(', ')}, which follow${kept.length === 1 ? 's' : ''} it verbatim` : '';
  return (
    `Events ${first}-${last} of this conversation were compacted into the summary below (context only, not a new instruction)${except}; ` +
    `search_history {"fromSeq": ${first}, "toSeq": ${last}, "query": "..."} reads back any detail of them.`
  );
}

/** `kept`: events inside `covers` that stay verbatim after the summary (the message being answered, the turn's latest step). */
export function summaryMessage(summary: string, ledger: Ledger | undefined, covers: [number, number], kept: readonly number[] = []): SourcedMessage {
  const body = ledger ? `${summary}\n\n${renderLedger(ledger)}` : summary;
  return {
    role: 'user',
    seq: covers[0],
    content: `${COMPACTED_OPEN}\n${preamble(covers, kept)}\n\n${body}\n${COMPACTED_CLOSE}`,
    summaryOf: { summary, ...(ledger && { ledger }), covers },
  };
}

/** The seq range a fold of these messages covers (a summary message stands for its whole range). */
export function coveredRange(folded: readonly SourcedMessage[]): [number, number] {
  let first = Infinity;
  let last = -Infinity;
  for (const m of folded) {
    first = Math.min(first, m.summaryOf?.covers[0] ?? m.seq);
    last = Math.max(last, m.summaryOf?.covers[1] ?? m.seq);
  }
  return [first, last];
}

export function isSummaryMessage(message: ViewMessage): boolean {
  return message.role === 'user' && message.content.startsWith(COMPACTED_OPEN);
}

/**
 * Share of a cleared output's characters its placeholder may spend listing the
 * identifiers the output held (at most INDEX_MAX_CHARS): a later step that
 * names one of them needs no re-read, and the rest stays a search away.
 */
export const INDEX_SHARE = 0.3;
export const INDEX_MAX_CHARS = 4000;

/**
 * What a cleared tool result (event `seq` of the log) says instead of its
 * output; with `output`, also the identifiers it held (skein's own clearing:
 * the event's `clearedIndex`).
 */
export function clearedPlaceholder(call: { name: string; input: Record<string, unknown> } | undefined, chars: number, seq: number, output?: string): string {
  const what = call ? (describeSearchCall(call.name, call.input) ?? `${call.name} ${clip(JSON.stringify(call.input), 200)}`) : 'this tool call';
  const index = output === undefined ? undefined : identifiersIn(output, Math.min(INDEX_MAX_CHARS, Math.floor(INDEX_SHARE * chars)));
  const names = index?.ids.length ? ` Names in it: ${index.ids.join(', ')}${index.more ? ` (+${index.more} more)` : ''}.` : '';
  return (
    `[tool result cleared to save context (event ${seq}): ${what} returned ${thousands(chars)} characters.${names} ` +
    `search_history {"fromSeq": ${seq}, "toSeq": ${seq}} shows its start and end; add a "query" to find any line of it.]`
  );
}

/** 12345 -> "12,345" (toLocaleString is slow when called for thousands of results). */
function thousands(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

export function deriveView(events: readonly SkeinEvent[]): SourcedMessage[] {
  const view = new IncrementalView();
  view.update(events);
  return view.messages();
}

/**
 * The view, kept up to date as events are appended: each event is applied
 * once, so preparing a request costs the size of the view, not of the log.
 *
 * A user message joins the conversation at the next point where the model
 * could read it: one typed while a request is out (its `state` event to
 * SendingToLLM is logged, its answer is not) or while tool calls run waits
 * until that answer and all its tool results are in. So the model never sees
 * its own answer after a message it never read, and the request it gets
 * next is the view (derived from the log alone: the same after a restart).
 */
export class IncrementalView {
  private readonly out: SourcedMessage[] = [];
  private readonly open = new Set<string>();
  private readonly calls = new Map<string, { name: string; input: Record<string, unknown> }>();
  /** User messages that arrived while a request or tool calls were under way. */
  private deferred: SourcedMessage[] = [];
  /** `request`: a request is out, no answer yet; `answer`: its answer is logged, its tool calls may follow. */
  private hold: 'none' | 'request' | 'answer' = 'none';
  private applied = 0;

  /** Applies the events not seen yet (`events` is the whole log, in order). */
  update(events: readonly SkeinEvent[]): void {
    for (; this.applied < events.length; this.applied++) this.apply(events[this.applied]!);
  }

  /** A copy of the current view: callers may not change the cache. */
  messages(): SourcedMessage[] {
    return [...this.out, ...this.deferred];
  }

  private apply(e: SkeinEvent): void {
    const { out, open } = this;
    switch (e.kind) {
      case 'user': {
        if (parseCompactCommand(e.text)) break;
        const message: SourcedMessage = { role: 'user', content: e.saved ? savedMessageView(e.text, e.saved, e.seq) : e.text, seq: e.seq, fromUser: true, ...(e.images?.length && { images: e.images }) };
        if (open.size || this.hold !== 'none') this.deferred.push({ ...message, midTurn: true });
        else out.push(message);
        break;
      }
      case 'instructions':
      case 'tools_changed':
      case 'status': {
        // Instructions read at session start are in the system prompt and never change.
        if (e.kind === 'instructions' && e.phase !== 'changed') break;
        // A change to the instructions or the tools is an update to the model's setup: a system-role message at
        // the end, as Anthropic documents for mid-conversation changes (each adapter sends it its provider's way:
        // Anthropic `system` where the model takes it, Responses `developer`, else a user-turn block).
        // A status note is the user's side of the conversation: a user-role message.
        const note: SourcedMessage = { role: e.kind === 'status' ? 'user' : 'system', content: e.text, seq: e.seq };
        if (open.size) this.deferred.push(note);
        else out.push(note);
        break;
      }
      case 'answer_cut':
        // The cut answer stays as it was; the note asking the model to go on from it is the user's side (a user-role message).
        if (e.text === undefined) break;
        // The cut answer is not the end of its turn: the model goes on from it.
        markGoesOn(out);
        if (open.size) this.deferred.push({ role: 'user', content: e.text, seq: e.seq });
        else out.push({ role: 'user', content: e.text, seq: e.seq });
        break;
      case 'toolset':
        // The system prompt and tools changed (a small window made them lean): Anthropic's thinking
        // blocks were checked against the old ones, so no earlier turn can send its thinking now.
        dropStaleThinking(out, -1);
        dropStaleThinking(this.deferred, -1);
        break;
      case 'agent':
        // Only a damaged log has an answer while calls are open: close them so the view stays valid.
        for (const callId of open) out.push({ role: 'tool', content: '[no result was recorded for this call]', toolCallId: callId, seq: e.seq });
        open.clear();
        out.push({ role: 'assistant', content: e.text, seq: e.seq, ...(e.reasoning && { reasoning: e.reasoning }) });
        if (this.hold === 'request') this.hold = 'answer';
        break;
      case 'tool_call': {
        const owner = lastAssistant(out);
        if (!owner) break;
        (owner.toolCalls ??= []).push({ id: e.callId, name: e.name, input: e.input });
        this.calls.set(e.callId, { name: e.name, input: e.input });
        open.add(e.callId);
        break;
      }
      case 'tool_result':
        if (!open.delete(e.callId)) break;
        out.push({ role: 'tool', content: e.output, toolCallId: e.callId, seq: e.seq });
        if (open.size === 0 && this.hold !== 'request') {
          this.hold = 'none';
          this.release();
        }
        break;
      case 'state':
        // A new request, or the end of the one that was out (processed, failed, cancelled, overflowed).
        if (e.to === 'ProcessingLLMResponse') break;
        this.hold = 'none';
        this.release();
        if (e.to === 'SendingToLLM') this.hold = 'request';
        break;
      case 'compaction':
        if (e.phase === 'finished') applyCompaction(out, e, this.calls);
        break;
    }
  }

  /** Deferred user messages join once no request is out and no call is open. */
  private release(): void {
    if (this.open.size || !this.deferred.length) return;
    this.out.push(...this.deferred);
    this.deferred = [];
  }
}

function lastAssistant(messages: SourcedMessage[]): SourcedMessage | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]!.role === 'assistant') return messages[i];
    if (messages[i]!.role !== 'tool') return undefined;
  }
  return undefined;
}

/** Applies one finished compaction to the view built so far (also used to preview a draft). */
export function applyCompaction(
  messages: SourcedMessage[],
  e: Pick<CompactionEvent, 'clearedThroughSeq' | 'clearedIndex' | 'coversSeq' | 'keptSeqs' | 'summary' | 'ledger' | 'provider'>,
  calls: ReadonlyMap<string, { name: string; input: Record<string, unknown> }>,
): void {
  /** The first message the compaction changed: every turn after it had another prefix. */
  let changed = Infinity;
  if (e.clearedThroughSeq !== undefined) {
    for (let i = 0; i < messages.length; i++) {
      const m = messages[i]!;
      if (m.role !== 'tool' || m.seq > e.clearedThroughSeq || m.clearedChars !== undefined || m.content.length <= CLEARABLE_CHARS) continue;
      const chars = m.content.length;
      messages[i] = { ...m, content: clearedPlaceholder(calls.get(m.toolCallId ?? ''), chars, m.seq, e.clearedIndex ? m.content : undefined), clearedChars: chars };
      changed = Math.min(changed, i);
    }
    // Old images go the way of old tool outputs: a line that says what each was (the log and its file keep it).
    for (let i = 0; i < messages.length; i++) {
      const m = messages[i]!;
      if (m.role !== 'user' || !m.images?.length || m.seq > e.clearedThroughSeq) continue;
      const { images, ...rest } = m;
      messages[i] = { ...rest, content: `${m.content}${m.content ? '\n' : ''}${clearedImagesNote(images, m.seq)}` };
      changed = Math.min(changed, i);
    }
  }
  if (e.coversSeq && e.summary) {
    const [first, last] = e.coversSeq;
    const start = messages.findIndex((m) => m.seq >= first && m.seq <= last);
    if (start >= 0) {
      let end = start;
      while (end < messages.length && messages[end]!.seq <= last) end++;
      const keptSeqs = e.keptSeqs ?? [];
      const summary = summaryMessage(e.summary, e.ledger, [first, last], keptSeqs);
      // The message being answered (and the turn's latest step) stays itself, after the summary.
      const kept = messages.slice(start, end).filter((m) => keptSeqs.includes(m.seq) && !m.summaryOf);
      // The provider's own compaction goes with it: its model reads that instead of the text.
      messages.splice(start, end - start, e.provider ? { ...summary, compacted: e.provider } : summary, ...kept);
      changed = Math.min(changed, start);
    }
  }
  dropStaleThinking(messages, changed);
}

/**
 * Anthropic checks each thinking block against everything before it: a kept
 * turn after the first changed message can no longer send its thinking, so
 * the view drops it (the provider would leave it out anyway; the estimate
 * then counts what is really sent). OpenAI's encrypted reasoning and Gemini's
 * signatures carry no such check and stay.
 */
function dropStaleThinking(messages: SourcedMessage[], changed: number): void {
  for (let i = changed + 1; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.reasoning?.provider !== 'anthropic') continue;
    const { reasoning: _dropped, ...rest } = m;
    messages[i] = rest;
  }
}

/** Strips provenance for the wire / provider. */
export function plain(messages: readonly SourcedMessage[]): ViewMessage[] {
  return messages.map(({ seq: _seq, summaryOf: _s, clearedChars: _c, fromUser: _u, midTurn: _t, goesOn: _g, ...m }) => m);
}

/** What cleared images (of user event `seq`) say instead of their pixels. */
export function clearedImagesNote(images: readonly ImageRef[], seq: number): string {
  return images.map((image) => `[image cleared to save context (event ${seq}): ${imageLabel(image)}; the session's log keeps it]`).join('\n');
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** The latest assistant message, when it is an answer without calls, is a cut answer the model goes on from. */
function markGoesOn(out: SourcedMessage[]): void {
  const last = out.findLast((m) => m.role === 'assistant');
  if (last && !last.toolCalls?.length) last.goesOn = true;
}
