// WebSocket endpoint /ws?session=ID&since=N: hello, replay of events after N,
// then live events, each exactly once. Client frames are validated; a bad one
// gets an error frame and never harms the session.
// A peer can do anything to its connection at any moment (reset it, stop
// reading, stop answering): every socket has an 'error' listener from the
// first moment, dead peers are dropped by a heartbeat, and a peer that stops
// reading is closed with CLOSE_RESUME once it is a bounded number of bytes behind.
import { projectGone } from './project-gone.js';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { CLOSE_RESUME, CLOSE_SESSION_DELETED, MAX_FRAME_BYTES, parseClientFrame, type ServerFrame } from '../../shared/protocol.js';
import { NoPendingApprovalError } from '../agent/approvals.js';
import { maskedError } from '../agent/event-mask.js';
import { decideApproval } from '../subagents/child-approvals.js';
import { LogWriteError } from '../agent/session.js';
import type { Sessions } from '../sessions/sessions.js';
import type { Access } from './access.js';
import { parseRequestUrl } from './access.js';
import { serveSessionList } from './list-channel.js';
import { log } from '../log.js';
import { ImageError } from '../images/image-files.js';

export interface HubOptions {
  /** A ping goes to every client this often; one that has not answered the previous ping is dropped. */
  heartbeatMs?: number;
  /** Bytes queued for one client (beyond the replay it asked for) past which it is closed with CLOSE_RESUME. */
  maxBufferedBytes?: number;
}

export const HEARTBEAT_MS = 30_000;
export const MAX_BUFFERED_BYTES = 8 * 1024 * 1024;

export interface Hub {
  close(): Promise<void>;
  /** WebSocket clients connected now. */
  clients(): number;
}

export function attachHub(server: Server, sessions: Sessions, access: Access, options: HubOptions = {}): Hub {
  const maxBuffered = options.maxBufferedBytes ?? MAX_BUFFERED_BYTES;
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });
  wss.on('error', (err) => log.error('websocket server error', { error: err.message }));
  const alive = new WeakMap<WebSocket, boolean>();

  const heartbeat = setInterval(() => {
    for (const ws of wss.clients) {
      if (alive.get(ws) === false) {
        ws.terminate();
        continue;
      }
      alive.set(ws, false);
      ws.ping();
    }
  }, options.heartbeatMs ?? HEARTBEAT_MS);
  heartbeat.unref();

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    // The http server stops watching the socket for errors once it is an upgrade.
    socket.on('error', () => socket.destroy());
    // A session not in memory is read first (its log in slices, or its rows from PostgreSQL); the rest is synchronous.
    const asked = parseRequestUrl(req.url)?.searchParams.get('session');
    if (asked && !sessions.isLoaded(asked)) {
      void sessions.open(asked).then(
        () => upgrade(req, socket, head),
        () => refuse(socket, 503, 'Service Unavailable'),
      );
      return;
    }
    upgrade(req, socket, head);
  });

  const upgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const url = parseRequestUrl(req.url);
    if (!url) return refuse(socket, 400, 'Bad Request');
    if (url.pathname !== '/ws' && url.pathname !== '/ws/sessions') return refuse(socket, 404, 'Not Found');
    const verdict = access.check(req, true);
    if (!verdict.ok) return refuse(socket, verdict.status, verdict.status === 401 ? 'Unauthorized' : 'Forbidden', verdict.reason);
    if (url.pathname === '/ws/sessions') {
      return wss.handleUpgrade(req, socket, head, (ws) => {
        alive.set(ws, true);
        ws.on('pong', () => alive.set(ws, true));
        serveSessionList(ws, sessions);
      });
    }
    const live = sessions.get(url.searchParams.get('session') ?? '');
    if (!live) return refuse(socket, 404, 'Not Found');
    const sinceRaw = url.searchParams.get('since') ?? '0';
    if (!/^\d{1,15}$/.test(sinceRaw)) return refuse(socket, 400, 'Bad Request');
    wss.handleUpgrade(req, socket, head, (ws) => {
      alive.set(ws, true);
      ws.on('pong', () => alive.set(ws, true));
      // The replay the client asked for is queued whole (it is bounded by the log, already in
      // memory); past it, a client that does not read may fall at most maxBuffered bytes behind.
      let limit = Infinity;
      const send = (frame: ServerFrame) => {
        if (ws.readyState !== ws.OPEN) return;
        ws.send(JSON.stringify(frame));
        if (ws.bufferedAmount > limit) ws.close(CLOSE_RESUME, 'too far behind: reconnect with since=<last seq>');
      };
      // An error note quotes what refused the frame (a database, an image reader): masked as the log is.
      const sendError = (message: string) => send(maskedError(message, live.session.secrets()));
      send({ type: 'hello', session: live.session.snapshot() });
      // The session moves to another copy (this instance took it over, or gave it up): reconnect and resume.
      const unevict = live.session.onEvict(() => ws.close(CLOSE_RESUME, 'the session moved: reconnect with since=<last seq>'));
      const unsubscribe = live.session.subscribe(Number(sinceRaw), (event) => send({ type: 'event', event }));
      limit = ws.bufferedAmount + maxBuffered;
      const unlisten = live.session.listen(send);
      // A deleted session's sockets are closed (4004): reconnecting finds no session.
      const unwatch = sessions.onListChange((frame) => {
        if (frame.type === 'session_removed' && frame.id === live.session.id) ws.close(CLOSE_SESSION_DELETED, 'session deleted');
      });
      ws.on('close', () => {
        unsubscribe();
        unlisten();
        unwatch();
        unevict();
      });
      ws.on('error', () => ws.terminate());
      ws.on('message', (data, isBinary) => {
        if (isBinary) return sendError('binary frames are not accepted; send JSON text');
        const parsed = parseClientFrame(data.toString());
        if (!parsed.ok) return sendError(parsed.error);
        const frame = parsed.value;
        try {
          let pending: void | Promise<void>;
          // A removed project's session does no more work there: a message, a compaction or an approval is refused (a cancel or a deny still goes).
          const works = frame.type === 'user_message' || frame.type === 'compact' || (frame.type === 'approval' && frame.decision !== 'deny');
          const gone = works ? projectGone(sessions, live) : undefined;
          if (gone) return send({ type: 'error', message: gone });
          if (frame.type === 'user_message') pending = live.session.userMessage(frame.text, frame.images);
          else if (frame.type === 'compact') pending = live.session.requestCompaction({ trigger: 'manual', ...(frame.instructions ? { instructions: frame.instructions } : {}) });
          else if (frame.type === 'approval') {
            pending = live.session.forward({ type: 'approval', callId: frame.callId, decision: frame.decision, ...(frame.reason && { reason: frame.reason }) });
            if (!pending) decideApproval(live, frame.callId, frame.decision, frame.reason);
          } else pending = live.session.cancel();
          // Forwarded to the instance that runs the session: a refusal (read-only, database down) is said here.
          pending?.catch((err: unknown) => sendError(err instanceof Error ? err.message : String(err)));
        } catch (err) {
          if (err instanceof NoPendingApprovalError || err instanceof ImageError) return sendError(err.message);
          // The session could not take it (its log refused the write): say so, keep the socket.
          sendError(err instanceof LogWriteError ? `not recorded: ${err.message}` : 'internal error');
          if (!(err instanceof LogWriteError)) log.error('frame failed', { session: live.session.id, error: err });
        }
      });
    });
  };

  return {
    clients: () => wss.clients.size,
    close: () =>
      new Promise((resolve) => {
        clearInterval(heartbeat);
        for (const client of wss.clients) client.close(1001, 'server shutting down');
        wss.close(() => resolve());
      }),
  };
}

/** `reason`: a line for the client to read (why the token was refused), as the API's `error` says it. */
function refuse(socket: Duplex, status: number, text: string, reason = ''): void {
  if (socket.destroyed || !socket.writable) return void socket.destroy();
  const body = reason && `${reason}\n`;
  socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
}

export type { WebSocket };
