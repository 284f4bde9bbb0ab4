// What the approval gate uses of a session, in memory: the log's events with
// their seq, and subscribers told of each event once it is "durable" (on a
// microtask here, after the disk write in a Session), each subscription
// replaying the durable events after its seq first, as Session.subscribe does.
// No disk and no agent: the gate's tests run in milliseconds.
import type { NewEvent, SkeinEvent } from '../../shared/protocol.js';
import type { ApprovalSession } from '../../server/agent/approvals.js';
import { KindIndex } from '../../server/store/kind-index.js';

type Subscriber = (event: SkeinEvent) => void;

export class MemorySession implements ApprovalSession {
  readonly events: SkeinEvent[] = [];
  private delivered = 0;
  private readonly subscribers = new Map<Subscriber, number>();

  readonly log = {
    all: (): readonly SkeinEvent[] => this.events,
    last: <K extends SkeinEvent['kind']>(kind: K) => this.events.findLast((e): e is Extract<SkeinEvent, { kind: K }> => e.kind === kind),
    // The store's index (it catches up with appended events when asked), as a log on disk has.
    kinds: new KindIndex(this.events),
  };

  append(event: NewEvent): SkeinEvent {
    const full = { seq: this.events.length + 1, ts: new Date(0).toISOString(), ...event } as SkeinEvent;
    this.events.push(full);
    queueMicrotask(() => this.deliver(full.seq));
    return full;
  }

  subscribe(since: number, subscriber: Subscriber): () => void {
    // As a Session: the replay comes first, and a subscriber that throws during it is never registered.
    for (const event of this.events) if (event.seq > since && event.seq <= this.delivered) subscriber(event);
    this.subscribers.set(subscriber, since);
    return () => this.subscribers.delete(subscriber);
  }

  /** Subscriptions still open (a wait that ended must leave none). */
  get subscriptions(): number {
    return this.subscribers.size;
  }

  private deliver(upTo: number): void {
    const fresh = this.events.filter((e) => e.seq > this.delivered && e.seq <= upTo);
    this.delivered = Math.max(this.delivered, upTo);
    for (const event of fresh) {
      for (const [subscriber, since] of this.subscribers) {
        if (event.seq <= since) continue;
        try {
          subscriber(event);
        } catch {
          // A Session keeps going past a broken subscriber.
        }
      }
    }
  }
}
