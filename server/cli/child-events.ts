// `skein run`'s view of the children its turn starts (`task` calls): each
// child session's own events are followed while it runs and printed with the
// parent's, tagged with the child's id (`--json`: a `session` field on the
// event's line; text: lines indented under a `[agent session]` mark).
import type { EventOf, SkeinEvent } from '../../shared/protocol.js';
import type { Api } from './api.js';
import type { Connection } from './connection.js';
import { follow, type Follow } from './follow.js';

/** After the parent's turn, how long a child's stream may take to deliver its last events. */
const DRAIN_MS = 10_000;

export class ChildEvents {
  private readonly followed = new Map<string, Promise<Follow | undefined>>();

  constructor(
    private readonly connection: Connection,
    private readonly api: Api,
    /** One event of a child, in its order. */
    private readonly print: (started: EventOf<'subagent'>, event: SkeinEvent) => void,
  ) {}

  /** An event of the parent: a child that starts is followed until its turn ends. */
  see(event: SkeinEvent): void {
    if (event.kind !== 'subagent' || event.phase !== 'started' || this.followed.has(event.child)) return;
    let started = false;
    const following = follow(this.connection, this.api, event.child, 0, (childEvent) => {
      this.print(event, childEvent);
      if (childEvent.kind === 'user') started = true;
      return started && childEvent.kind === 'state' && childEvent.to === 'WaitingForUserInput';
    }).catch(() => undefined); // (a child that cannot be followed only misses its lines; the parent's turn goes on)
    this.followed.set(event.child, following);
  }

  /** Waits (a bounded time) for every child's turn end to be printed, then closes their streams. */
  async drain(): Promise<void> {
    const all = await Promise.all(this.followed.values());
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, DRAIN_MS).unref()));
    await Promise.race([Promise.all(all.map((f) => f?.done.catch(() => {}))), late]);
    clearTimeout(timer);
    this.close();
  }

  /** Stops following every child (a stopped run leaves at once). */
  close(): void {
    for (const following of this.followed.values()) void following.then((f) => f?.close());
  }
}
