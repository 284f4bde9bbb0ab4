// The editor's session ids and the skein sessions open for them: the ACP
// session id is skein's own, one open session per id. session/new and
// session/load open one; a second load of an id closes the first (its stream
// and questions) before the new one opens; a request naming an id not open
// here is "session not found", as is a load of an id the server does not know.
import { CliError, EXIT } from '../cli/exit-codes.js';

export class SessionMap<S extends { close(): void }> {
  private readonly open = new Map<string, S>();

  /** The open session of this id, or undefined (the caller answers "session not found"). */
  get(id: string): S | undefined {
    return this.open.get(id);
  }

  /** Opens `id` again: the one open for it is closed first, then `make` opens the new one. */
  replace(id: string, make: () => S): S {
    this.open.get(id)?.close();
    const made = make();
    this.open.set(id, made);
    return made;
  }

  /** The connection ended: every session's stream closes. */
  closeAll(): void {
    for (const s of this.open.values()) s.close();
    this.open.clear();
  }
}

/** Whether a session/load failed because skein has no session of that id (the stream's 404, or the API's not found). */
export function isUnknownSession(err: unknown): boolean {
  if (err instanceof CliError) return err.code === EXIT.notFound;
  return err instanceof Error && err.message.startsWith('no skein session');
}
