// A session whose agent runs on another skein instance (several instances on
// one PostgreSQL database, see leases.ts). This copy
// shows what the owner commits; what a client asks of it is forwarded to the
// owner, or refused with the reason when no instance can run it.

/** What a client asked of a session on an instance that does not run it (it travels through the inbox table). */
export type { InboxCommand as ForwardedCommand } from './leases.js';
import type { InboxCommand as ForwardedCommand } from './leases.js';

export interface RemoteOwner {
  /** Why this instance does not run the session, for the snapshot ("runs on instance …", or why it is read-only). */
  readonly reason: string;
  /** True when no instance can run it from here (its folder is out of reach): commands are refused. */
  readonly readOnly: boolean;
  /** Hands the command to the owner; resolves once it is committed, rejects with ReadOnlySessionError. */
  forward(command: ForwardedCommand): Promise<void>;
}

/** No instance can run the session from here (HTTP 409). */
export class ReadOnlySessionError extends Error {
  override readonly name = 'ReadOnlySessionError';
}
