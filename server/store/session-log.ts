// What a session needs of its event log, whichever store keeps it: the JSONL
// file (EventLog, the embedded default) or PostgreSQL (PgEventLog). Both
// assign the seq in memory at append (one owner per session), make events
// durable in groups (one fdatasync, or one INSERT transaction, per tick) and
// say so through onDurable; nobody is shown an event before that.
import type { NewEvent, SkeinEvent } from '../../shared/protocol.js';
import type { LogHeader } from './types.js';
import type { KindIndex } from './kind-index.js';

export interface SessionLog {
  /** The session's JSONL path: the log itself (JSONL), or where its saved outputs sit beside (PostgreSQL). */
  readonly file: string;
  readonly header: LogHeader;
  readonly lastSeq: number;
  readonly durableSeq: number;
  since(since: number): SkeinEvent[];
  all(): readonly SkeinEvent[];
  last<K extends SkeinEvent['kind']>(kind: K): Extract<SkeinEvent, { kind: K }> | undefined;
  /** Where each kind of event sits (a start's questions without a pass over every event). */
  readonly kinds: KindIndex;
  onDurable(listener: (upTo: number) => void): () => void;
  /** Gives the event its seq and ts and queues it for the next group; throws if the store refuses at once. */
  append(event: NewEvent): SkeinEvent;
  /** No more appends; what is queued is still made durable (see flushed). */
  close(): void;
  /** Resolves once everything appended is durable (JSONL: at once after close). */
  flushed?(): Promise<void>;
}
