// A session's title when nobody named it: its first message's first line; for
// a fork, what differs from the session it was copied from (its first own
// message, or where it branched off), never "… (fork) (fork)". The loaded
// session (server/agent/session.ts) and the log scan (server/store/log-scan.ts)
// both feed it the user messages in order, so a title reads the same whether
// the session is loaded or only indexed.

/** Where a fork branched off (the header's forkOf): the last event it copied; `edit`: made by Edit and resend. */
export interface ForkPoint {
  seq: number;
  edit?: boolean;
}

const MAX = 80;

function firstLine(text: string, room = MAX): string {
  const line = text.trim().split('\n', 1)[0] ?? '';
  return line.length > room ? `${line.slice(0, room - 1)}…` : line;
}

/** Fed the session's user messages (no /compact) in order; `title()` says the title they make. */
export class TitleFacts {
  private first: string | undefined;
  private firstOwn: string | undefined;
  /** User messages the fork copied (at or before its fork point). */
  private copied = 0;

  constructor(private readonly forkOf: ForkPoint | undefined) {}

  user(seq: number, text: string): void {
    this.first ??= text;
    if (!this.forkOf) return;
    if (seq <= this.forkOf.seq) this.copied++;
    else this.firstOwn ??= text;
  }

  title(): string {
    if (!this.forkOf) return firstLine(this.first ?? '') || 'New session';
    const own = this.firstOwn === undefined ? '' : firstLine(this.firstOwn, MAX - 10);
    if (this.forkOf.edit) return own ? `↳ edited: ${own}` : `↳ editing message ${this.copied + 1}`;
    return own ? `↳ ${own}` : this.copied ? `↳ from message ${this.copied}` : '↳ fork';
  }
}
