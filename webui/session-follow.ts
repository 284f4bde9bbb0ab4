// Following the open session live: its socket from the last seq the page
// holds, each frame applied to the timeline model and to what the shell shows
// beside it (snapshot, Changes, MCP servers, the list).
import type { SessionSnapshot } from '../shared/protocol.js';
import { SessionConnection, type ConnectionStatus } from './connection.js';
import type { TimelineModel } from './timeline-model.js';

export interface FollowHost {
  snapshot: SessionSnapshot | undefined;
  status: ConnectionStatus;
  notice: string;
  /** Bumped after each tool run: the Changes panel refetches. */
  changesVersion: number;
  refreshSoon(): void;
  refreshMcp(): Promise<void>;
  /** Renders the model's new version once per frame. */
  scheduleFlush(): void;
}

export function followSession(host: FollowHost, id: string, model: TimelineModel): SessionConnection {
  return new SessionConnection(id, model.lastSeq, {
    hello: (session) => {
      host.snapshot = session;
      model.endStream();
    },
    event: (event) => {
      model.ingest(event);
      // The Changes panel follows each tool run.
      if (event.kind === 'tool_result') host.changesVersion++;
      if (event.kind === 'user' || (event.kind === 'state' && event.to === 'WaitingForUserInput')) host.refreshSoon();
      if (event.kind === 'mcp' || event.kind === 'tools_changed') void host.refreshMcp();
      // The model and effort another tab (or the CLI) switched to: the pickers follow once the server applied it.
      const m = event as { kind: string; to?: unknown; effort?: unknown };
      if (m.kind === 'model' && typeof m.to === 'string' && host.snapshot) {
        host.snapshot = { ...host.snapshot, model: m.to, ...(typeof m.effort === 'string' && { effort: m.effort as SessionSnapshot['effort'] }) };
      }
      if (event.kind === 'mode' && host.snapshot) host.snapshot = { ...host.snapshot, mode: event.to };
      host.scheduleFlush();
    },
    delta: (frame) => {
      model.delta(frame);
      host.scheduleFlush();
    },
    status: (status) => (host.status = status),
    error: (message) => (host.notice = message),
  });
}
