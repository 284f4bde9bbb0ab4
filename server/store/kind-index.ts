// Where each kind of event sits in a session's events: a session's start asks
// for a few kinds (the last model, effort and limits, queued compactions,
// approved rules, the plan, the start of the instructions) and each pass over
// a 300,000-event log held the event loop 10 to 30 ms. The index is taken once,
// in slices off the loop after a log is read (build), or at the first question
// (a synchronous open); events are only ever appended, so it catches up with
// the events added since.
import { performance } from 'node:perf_hooks';
import type { SkeinEvent } from '../../shared/protocol.js';

const NONE: readonly number[] = Object.freeze([]);
/** Events indexed between two checks of the clock while building in slices. */
const CHECK_EVERY = 2048;

export type EventOfKind<K extends SkeinEvent['kind']> = Extract<SkeinEvent, { kind: K }>;

export class KindIndex {
  private readonly positions = new Map<string, number[]>();
  /** Tool results by tool name (the plan's start looks only at update_plan's). */
  private readonly results = new Map<string, number[]>();
  private indexed = 0;

  constructor(private readonly events: readonly SkeinEvent[]) {}

  /** Indexes the events up to `end` (all of them by default). */
  private catchUp(end = this.events.length): void {
    const events = this.events;
    // Events are only appended; a shorter array (a store that replaced its events) is indexed again.
    if (this.indexed > events.length) {
      this.positions.clear();
      this.results.clear();
      this.indexed = 0;
    }
    for (let i = this.indexed; i < end; i++) {
      const e = events[i]!;
      push(this.positions, e.kind, i);
      if (e.kind === 'tool_result') push(this.results, e.name, i);
    }
    this.indexed = Math.max(this.indexed, end);
  }

  /** Takes the index a slice of about `sliceMs` at a time, `yieldToLoop` between slices. */
  async build(sliceMs: number, yieldToLoop: () => Promise<void>): Promise<void> {
    let start = performance.now();
    while (this.indexed < this.events.length) {
      this.catchUp(Math.min(this.events.length, this.indexed + CHECK_EVERY));
      if (performance.now() - start >= sliceMs) {
        await yieldToLoop();
        start = performance.now();
      }
    }
  }

  /** Positions (in the events array, ascending) of the events of a kind. */
  of(kind: SkeinEvent['kind']): readonly number[] {
    this.catchUp();
    return this.positions.get(kind) ?? NONE;
  }

  /** Positions of the results of one tool, ascending. */
  resultsOf(name: string): readonly number[] {
    this.catchUp();
    return this.results.get(name) ?? NONE;
  }

  /** The events of a kind, in order. */
  eventsOf<K extends SkeinEvent['kind']>(kind: K): EventOfKind<K>[] {
    return this.of(kind).map((i) => this.events[i] as EventOfKind<K>);
  }

  /** The last event of a kind, in constant time. */
  last<K extends SkeinEvent['kind']>(kind: K): EventOfKind<K> | undefined {
    const at = this.of(kind);
    return at.length ? (this.events[at[at.length - 1]!] as EventOfKind<K>) : undefined;
  }
}

function push(map: Map<string, number[]>, key: string, at: number): void {
  const list = map.get(key);
  if (list) list.push(at);
  else map.set(key, [at]);
}
