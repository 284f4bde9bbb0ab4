// One ACP session's view of its skein session: the WebSocket that replays the
// log after `since` and then carries every new event and streaming delta, in
// order. `caughtUp` resolves once the replay reached the log's end as the
// hello frame gave it, so session/load can answer after the history.
import WebSocket from 'ws';
import type { DeltaFrame, ServerFrame, SessionSnapshot, SkeinEvent } from '../../shared/protocol.js';
import type { Api } from '../cli/api.js';
import type { Connection } from '../cli/connection.js';

export interface StreamHandlers {
  /** The session as the stream opened, before any event of it. */
  hello(snapshot: SessionSnapshot): void;
  /** `live`: after the log's end when the stream opened (not history). */
  event(event: SkeinEvent, live: boolean): void;
  delta(frame: DeltaFrame): void;
  /** The socket closed without being asked to (the server went away). */
  lost(reason: string): void;
}

export interface SessionStream {
  snapshot: SessionSnapshot;
  caughtUp: Promise<void>;
  close(): void;
}

export function openStream(connection: Connection, api: Api, session: string, since: number, handlers: StreamHandlers): Promise<SessionStream> {
  const url = new URL('/ws', connection.url.replace(/^http/, 'ws'));
  url.searchParams.set('session', session);
  url.searchParams.set('since', String(since));
  const ws = new WebSocket(url, { headers: api.headers(), maxPayload: 64 * 1024 * 1024 });
  let closing = false;
  let endSeq = Infinity;
  let markCaughtUp!: () => void;
  const caughtUp = new Promise<void>((resolve) => (markCaughtUp = resolve));
  return new Promise((resolve, reject) => {
    ws.on('unexpected-response', (_req, res) => reject(new Error(res.statusCode === 404 ? `no skein session ${session}` : `the skein server refused the WebSocket (${res.statusCode})`)));
    ws.on('error', (err) => reject(new Error(`WebSocket to ${connection.url}: ${err.message}`)));
    ws.on('close', (code, reason) => {
      markCaughtUp();
      if (!closing) handlers.lost(`the skein server closed the session's stream (${code}${reason.length ? ` ${reason.toString()}` : ''})`);
    });
    ws.on('message', (data) => {
      const frame = JSON.parse(data.toString()) as ServerFrame;
      if (frame.type === 'hello') {
        endSeq = frame.session.lastSeq;
        handlers.hello(frame.session);
        if (endSeq <= since) markCaughtUp();
        resolve({ snapshot: frame.session, caughtUp, close: () => ((closing = true), ws.close()) });
        return;
      }
      if (frame.type === 'delta') return handlers.delta(frame);
      if (frame.type !== 'event') return;
      handlers.event(frame.event, frame.event.seq > endSeq);
      if (frame.event.seq >= endSeq) markCaughtUp();
    });
  });
}
