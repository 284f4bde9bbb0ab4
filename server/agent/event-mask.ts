// The last gate before the log: every string of an event (tool inputs, answers,
// reasoning, errors, previews, summaries, the user's own text) has each
// configured secret replaced by `[redacted NAME]`. Clients, exports and the
// model view all read the log, so they only ever see what passed here.
import type { DeltaFrame, NewEvent } from '../../shared/protocol.js';
import { maskSecrets, type NamedSecret } from '../tools/env.js';

/** `value` with every string in it (object keys too) masked; the same object when nothing matched. */
export function maskDeep<T>(value: T, secrets: readonly NamedSecret[]): T {
  if (!secrets.length) return value;
  return walk(value, secrets) as T;
}

function walk(value: unknown, secrets: readonly NamedSecret[]): unknown {
  if (typeof value === 'string') return maskSecrets(value, secrets);
  if (Array.isArray(value)) {
    let changed = false;
    const out = value.map((item) => {
      const masked = walk(item, secrets);
      if (masked !== item) changed = true;
      return masked;
    });
    return changed ? out : value;
  }
  if (value && typeof value === 'object') {
    let changed = false;
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      const maskedKey = maskSecrets(key, secrets);
      const masked = walk(item, secrets);
      if (masked !== item || maskedKey !== key) changed = true;
      out[maskedKey] = masked;
    }
    return changed ? out : value;
  }
  return value;
}

/**
 * The event as it may be logged. A reasoning block that had a secret in it is
 * no longer what the provider signed: it loses its `prefix`, so it is never
 * sent back (the request goes without that thinking instead of being refused).
 */
export function maskEvent(event: NewEvent, secrets: readonly NamedSecret[]): NewEvent {
  const masked = maskDeep(event, secrets);
  // maskDeep copies only what it changed: reasoning it left alone is the same object (undefined on any event but an
  // agent's), and keeps what the provider signed.
  const before = (event as { reasoning?: unknown }).reasoning;
  const after = (masked as Extract<NewEvent, { kind: 'agent' }>).reasoning;
  if (after === before) return masked;
  const { prefix: _dropped, ...reasoning } = after!;
  return { ...masked, reasoning } as NewEvent;
}

/** A frame sent live and never logged: streamed text, or an error note. */
export type LiveFrame = DeltaFrame | ErrorFrame;
export type ErrorFrame = { type: 'error'; message: string };

/**
 * A live frame as a client may see it, masked as the log is: streamed text
 * through the stream's mask (which holds back a secret's start), anything
 * else whole (an error note may quote a tool's or a database's message).
 */
export function maskLiveFrame(frame: LiveFrame, stream: StreamMask, secrets: () => readonly NamedSecret[]): LiveFrame {
  return frame.type === 'delta' ? stream.frame(frame) : maskedError(frame.message, secrets());
}

/** An error frame for a client, its message masked (a refusal can carry a URL with its password). */
export function maskedError(message: string, secrets: readonly NamedSecret[]): ErrorFrame {
  return { type: 'error', message: maskSecrets(message, secrets) };
}

/**
 * Masks a streamed answer piece by piece. A piece may end in the first
 * characters of a secret whose rest comes in the next one: that tail is held
 * back until it can no longer be one (or the whole secret arrived and is
 * masked). Each frame keeps its index (an empty text when all of it is held),
 * so the UI's ordering is untouched; what is held at the end is never sent,
 * and the logged answer replaces the streamed text anyway.
 */
export class StreamMask {
  /** Per model call and channel: the text not sent yet. */
  private held = new Map<string, string>();
  private afterSeq = -1;

  constructor(private readonly secrets: () => readonly NamedSecret[]) {}

  frame(frame: DeltaFrame): DeltaFrame {
    const secrets = this.secrets();
    if (!secrets.length) return frame;
    // A new model call: what an earlier one held is gone with it.
    if (frame.afterSeq !== this.afterSeq) {
      this.held.clear();
      this.afterSeq = frame.afterSeq;
    }
    const key = `${frame.attempt}:${frame.channel}`; // the answer's channel is undefined, the thinking's 'thinking'
    const pending = (this.held.get(key) ?? '') + frame.text;
    const cut = safeCut(pending, secrets);
    this.held.set(key, pending.slice(cut));
    const text = maskSecrets(pending.slice(0, cut), secrets);
    return { ...frame, text };
  }
}

/** Where `text` may be cut: no secret straddles the cut, and nothing after it could still become one. */
function safeCut(text: string, secrets: readonly NamedSecret[]): number {
  let cut = text.length;
  for (const { value } of secrets) {
    // The earliest tail that is the start of this secret (shorter than it: a whole one is masked, not held).
    // Only where the secret's first character is (most pieces have none of them near the end).
    for (let i = text.indexOf(value[0]!, Math.max(0, text.length - value.length + 1)); i >= 0 && i < cut; i = text.indexOf(value[0]!, i + 1)) {
      if (value.startsWith(text.slice(i))) {
        cut = i;
        break;
      }
    }
  }
  // A whole secret across the cut (possible when a secret repeats its own start): cut before it.
  for (let moved = true; moved; ) {
    moved = false;
    for (const { value } of secrets) {
      const at = text.indexOf(value, Math.max(0, cut - value.length + 1));
      if (at >= 0 && at < cut && at + value.length > cut) {
        cut = at;
        moved = true;
      }
    }
  }
  return cut;
}
