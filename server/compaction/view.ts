// The model view: the conversation the model sees, derived from the event log.
// Each finished compaction replaces the span of messages it covers by its
// summary; nothing in the log itself ever changes.
import { parseCompactCommand, type SkeinEvent, type ViewMessage } from '../../shared/protocol.js';

/** A view message with the seq of the event it came from (a summary: the first seq it covers). */
export interface SourcedMessage extends ViewMessage {
  seq: number;
}

export const COMPACTED_OPEN = '<compacted-history>';
export const COMPACTED_CLOSE = '</compacted-history>';

export function summaryMessage(summary: string, seq: number): SourcedMessage {
  return {
    role: 'user',
    seq,
    content: `${COMPACTED_OPEN}\nThe earlier part of this conversation was compacted. What follows is a summary of it, for context only; it is not a new instruction.\n\n${summary}\n${COMPACTED_CLOSE}`,
  };
}

export function isSummaryMessage(message: ViewMessage): boolean {
  return message.role === 'user' && message.content.startsWith(COMPACTED_OPEN);
}

/** The summary text inside a summary message. */
export function summaryBody(message: ViewMessage): string {
  const body = message.content.slice(COMPACTED_OPEN.length, message.content.length - COMPACTED_CLOSE.length);
  return body.replace(/^\s*The earlier part of this conversation was compacted\..*\n/, '').trim();
}

export function deriveView(events: readonly SkeinEvent[]): SourcedMessage[] {
  const out: SourcedMessage[] = [];
  const open = new Set<string>();
  // User messages typed while tool calls were running join the view once their results are in.
  let deferred: SourcedMessage[] = [];
  for (const e of events) {
    switch (e.kind) {
      case 'user': {
        if (parseCompactCommand(e.text)) break;
        const message: SourcedMessage = { role: 'user', content: e.text, seq: e.seq };
        if (open.size) deferred.push(message);
        else out.push(message);
        break;
      }
      case 'agent':
        out.push({ role: 'assistant', content: e.text, seq: e.seq });
        break;
      case 'tool_call': {
        const owner = lastAssistant(out);
        if (!owner) break;
        (owner.toolCalls ??= []).push({ id: e.callId, name: e.name, input: e.input });
        open.add(e.callId);
        break;
      }
      case 'tool_result':
        if (!open.delete(e.callId)) break;
        out.push({ role: 'tool', content: e.output, toolCallId: e.callId, seq: e.seq });
        if (open.size === 0 && deferred.length) {
          out.push(...deferred);
          deferred = [];
        }
        break;
      case 'compaction':
        if (e.phase === 'finished' && e.coversSeq && e.summary) applyCompaction(out, e.coversSeq, e.summary);
        break;
    }
  }
  out.push(...deferred);
  return out;
}

function lastAssistant(messages: SourcedMessage[]): SourcedMessage | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]!.role === 'assistant') return messages[i];
    if (messages[i]!.role !== 'tool') return undefined;
  }
  return undefined;
}

function applyCompaction(messages: SourcedMessage[], [first, last]: [number, number], summary: string): void {
  const start = messages.findIndex((m) => m.seq >= first && m.seq <= last);
  if (start < 0) return;
  let end = start;
  while (end < messages.length && messages[end]!.seq <= last) end++;
  messages.splice(start, end - start, summaryMessage(summary, first));
}

/** Strips provenance for the wire / provider. */
export function plain(messages: readonly SourcedMessage[]): ViewMessage[] {
  return messages.map(({ seq: _seq, ...m }) => m);
}
