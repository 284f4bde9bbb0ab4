// Follows a session's events over its WebSocket (/ws?session=ID&since=N):
// every event after N exactly once, in order, until the caller stops.
import WebSocket from 'ws';
import type { ServerFrame, SkeinEvent } from '../../shared/protocol.js';
import type { Api } from './api.js';
import type { Connection } from './connection.js';
import { CliError, EXIT } from './exit-codes.js';

export interface Follow {
  /** Resolves when `onEvent` returns true; rejects when the connection is lost first. */
  done: Promise<void>;
  close(): void;
}

/** Resolves once the socket is open and the replay has begun (the hello frame). */
export function follow(connection: Connection, api: Api, session: string, since: number, onEvent: (event: SkeinEvent) => boolean): Promise<Follow> {
  const url = new URL('/ws', connection.url.replace(/^http/, 'ws'));
  url.searchParams.set('session', session);
  url.searchParams.set('since', String(since));
  const ws = new WebSocket(url, { headers: api.headers() });
  let finished = false;
  let resolveDone!: () => void;
  let rejectDone!: (err: Error) => void;
  const done = new Promise<void>((resolve, reject) => {
    resolveDone = resolve;
    rejectDone = reject;
  });
  // The caller may not await `done` before a failure: never an unhandled rejection.
  done.catch(() => {});
  const handle: Follow = { done, close: () => ws.close() };
  return new Promise((resolve, reject) => {
    ws.on('unexpected-response', (_req, res) => {
      const code = res.statusCode === 404 ? EXIT.notFound : EXIT.server;
      reject(new CliError(code, res.statusCode === 404 ? 'no such session' : `${connection.url} refused the WebSocket (${res.statusCode}): check the token (SKEIN_TOKEN or --token)`));
    });
    ws.on('error', (err) => {
      const failure = new CliError(EXIT.server, `WebSocket to ${connection.url}: ${err.message}`);
      reject(failure);
      rejectDone(failure);
    });
    ws.on('close', (code, reason) => {
      if (!finished) rejectDone(new CliError(EXIT.server, `the server closed the connection (${code}${reason.length ? ` ${reason.toString()}` : ''}) before the turn ended`));
    });
    ws.on('message', (data) => {
      const frame = JSON.parse(data.toString()) as ServerFrame | { type: 'delta' };
      if (frame.type === 'hello') return resolve(handle);
      if (frame.type !== 'event' || finished) return;
      if (onEvent(frame.event)) {
        finished = true;
        ws.close();
        resolveDone();
      }
    });
  });
}
