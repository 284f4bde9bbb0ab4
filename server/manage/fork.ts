// Forking a session: the events up to a seq, and the saved full tool outputs
// they point to, copied for the new session. The original is only read.
import fs from 'node:fs';
import path from 'node:path';
import type { SavedMessage, SkeinEvent } from '../../shared/protocol.js';
import type { SessionLog as EventLog } from '../store/session-log.js';

/** A fork point that is not an event of the session (HTTP 400). */
export class ForkPointError extends Error {
  override readonly name = 'ForkPointError';
}

export function forkedEvents(log: EventLog, seq: number): SkeinEvent[] {
  if (!Number.isSafeInteger(seq) || seq < 1 || seq > log.lastSeq) throw new ForkPointError(`"seq" must be an event of the session: an integer from 1 to ${log.lastSeq}`);
  return log.all().filter((e) => e.seq <= seq);
}

/**
 * Edit and resend forks just before the message it edits: the event after
 * `seq` must be a message the user sent. Anything else (a model's answer, a
 * tool call, the session's end) is refused, nothing created.
 */
export function checkEditPoint(log: EventLog, seq: number): void {
  const next = log.all().find((e) => e.seq === seq + 1);
  if (next?.kind !== 'user') {
    const what = next ? `a ${next.kind} event` : 'nothing (the end of the session)';
    throw new ForkPointError(`"edit" forks just before the message being edited: the event after "seq" (${seq}) must be a user message, and it is ${what}`);
  }
}

/** Saved outputs are named `<tool_call seq>-<call id>.txt`: those of calls up to `seq` are copied. */
export function copySavedOutputs(sessionsDir: string, from: string, to: string, seq: number): void {
  const source = path.join(sessionsDir, from, 'outputs');
  if (!fs.existsSync(source)) return;
  const target = path.join(sessionsDir, to, 'outputs');
  for (const name of fs.readdirSync(source)) {
    const callSeq = Number(/^(\d+)-/.exec(name)?.[1] ?? NaN);
    if (!(callSeq <= seq)) continue;
    fs.mkdirSync(target, { recursive: true });
    fs.copyFileSync(path.join(source, name), path.join(target, name));
  }
}

/** A user message saved as a file (too large for the window): copied into the fork's folder (a file gone since stays named). */
export function copySavedMessage(saved: SavedMessage, targetDir: string): SavedMessage {
  const file = path.join(targetDir, path.basename(saved.file));
  try {
    fs.mkdirSync(targetDir, { recursive: true });
    fs.copyFileSync(saved.file, file);
  } catch {
    return saved;
  }
  return { ...saved, file };
}
