// What both session logs (JSONL file, PostgreSQL) keep in memory: the events
// in seq order, their lookups, and the durable mark with its listeners. Each
// store only decides how an appended event is made durable.
import type { SkeinEvent } from '../../shared/protocol.js';
import { KindIndex } from './kind-index.js';

export abstract class LoadedEvents {
  protected readonly events: SkeinEvent[];
  /** Every event up to this seq is on stable storage (or was loaded from it). */
  protected durable: number;
  private readonly durableListeners = new Set<(upTo: number) => void>();

  protected constructor(events: SkeinEvent[], durable: number, kinds?: KindIndex) {
    this.events = events;
    this.durable = durable;
    this.kinds = kinds ?? new KindIndex(events);
  }

  /** The highest seq in the log (seqs only grow; a skipped damaged line may leave a gap). */
  get lastSeq(): number {
    return this.events.at(-1)?.seq ?? 0;
  }

  /** The highest seq known to be on stable storage. */
  get durableSeq(): number {
    return this.durable;
  }

  /** All events with seq > since, in order (a binary search: seqs are increasing, not always index + 1). */
  since(since: number): SkeinEvent[] {
    let lo = 0;
    let hi = this.events.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.events[mid]!.seq <= since) lo = mid + 1;
      else hi = mid;
    }
    return this.events.slice(lo);
  }

  all(): readonly SkeinEvent[] {
    return this.events;
  }

  /** Where each kind of event sits (kind-index.ts): given already built by a read, or taken at the first question. */
  readonly kinds: KindIndex;

  /** The last event of a kind, in constant time (a start asks for several kinds a log may never hold). */
  last<K extends SkeinEvent['kind']>(kind: K): Extract<SkeinEvent, { kind: K }> | undefined {
    return this.kinds.last(kind);
  }

  /** Calls `listener(upTo)` each time events up to `upTo` become durable, in seq order. */
  onDurable(listener: (upTo: number) => void): () => void {
    this.durableListeners.add(listener);
    return () => this.durableListeners.delete(listener);
  }

  protected madeDurable(upTo: number): void {
    if (upTo <= this.durable) return;
    this.durable = upTo;
    for (const listener of this.durableListeners) listener(upTo);
  }
}
