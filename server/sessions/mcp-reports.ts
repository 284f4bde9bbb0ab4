// MCP servers that fail or come back are shown in the timelines of the loaded sessions.
import type { LiveSession } from '../agent/live-session.js';

export class McpReports {
  /** The last MCP state change each server reported to the timelines. */
  private readonly lastMcp = new Map<string, { state: string; retryInMs?: number }>();

  constructor(private readonly live: ReadonlyMap<string, LiveSession>) {}

  /** An MCP server that failed, or became ready again, is shown in every live session's timeline. */
  report(change: { server: string; state: 'starting' | 'ready' | 'failed' | 'stopped'; message: string; retryInMs?: number }): void {
    if (change.state !== 'failed' && change.state !== 'ready') return;
    // A server that stays down is retried every minute for ever: once the pause stops growing, its timelines hear no more until it is back.
    const last = this.lastMcp.get(change.server);
    this.lastMcp.set(change.server, change);
    if (change.state === 'failed' && last?.state === 'failed' && last.retryInMs === change.retryInMs) return;
    for (const { session } of this.live.values()) {
      if (session.remote) continue; // the instance that runs it reports its own
      try {
        session.append({ kind: 'mcp', ...change });
      } catch {
        /* a log that refuses writes: the state is still in GET /api/mcp */
      }
    }
  }
}
