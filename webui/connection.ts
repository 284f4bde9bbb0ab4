// The socket to one session: hello, then events in seq order. It reconnects
// by itself and resumes from the last seq it saw, so the timeline never gets
// a gap or a duplicate.
import type { ClientFrame, ServerFrame, SessionSnapshot, SkeinEvent } from '../shared/protocol.js';
import { CLOSE_RESUME, CLOSE_SESSION_DELETED } from '../shared/wire/constants.js';
import type { DeltaLike } from './timeline-model.js';

export type ConnectionStatus = 'connecting' | 'open' | 'closed';

export interface ConnectionHandlers {
  hello(session: SessionSnapshot): void;
  event(event: SkeinEvent): void;
  /** A streamed piece of the answer being written (`{"type":"delta"}` frames, from servers that stream). */
  delta(frame: DeltaLike): void;
  status(status: ConnectionStatus): void;
  error(message: string): void;
}

export class SessionConnection {
  private ws: WebSocket | undefined;
  private retryMs = 250;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private stopped = false;

  constructor(
    readonly sessionId: string,
    /** The last seq this client has; events at or below it are never applied twice. */
    public lastSeq: number,
    private readonly handlers: ConnectionHandlers,
  ) {
    this.open();
  }

  send(frame: ClientFrame): boolean {
    if (this.ws?.readyState !== WebSocket.OPEN) return false;
    this.ws.send(JSON.stringify(frame));
    return true;
  }

  close(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.ws?.close();
  }

  /** Drops the socket as a network failure would; it reconnects by itself (used by tests and "reconnect"). */
  drop(): void {
    this.ws?.close();
  }

  private open(): void {
    this.handlers.status('connecting');
    const proto = location.protocol === 'https:' ? 'wss' : 'ws';
    const ws = new WebSocket(`${proto}://${location.host}/ws?session=${encodeURIComponent(this.sessionId)}&since=${this.lastSeq}`);
    this.ws = ws;
    ws.onopen = () => {
      if (this.stopped) return;
      this.retryMs = 250;
      this.handlers.status('open');
    };
    ws.onmessage = (message) => {
      if (this.stopped) return;
      let frame: ServerFrame;
      try {
        frame = JSON.parse(String(message.data)) as ServerFrame;
      } catch {
        return;
      }
      if (frame.type === 'hello') this.handlers.hello(frame.session);
      else if (frame.type === 'error') this.handlers.error(frame.message);
      else if (frame.type === 'event') this.accept(frame.event);
      else if ((frame as { type: string }).type === 'delta') this.handlers.delta(deltaOf(frame));
    };
    ws.onclose = (close) => {
      // A closed connection (another session was opened) reports nothing more.
      if (this.ws !== ws || this.stopped) return;
      this.handlers.status('closed');
      // The session was deleted: nothing to reconnect to (the list says so).
      if (close.code === CLOSE_SESSION_DELETED) return;
      this.timer = setTimeout(() => this.open(), this.retryMs);
      // CLOSE_RESUME: the server stopped sending because this page fell behind; not a failure, so no back-off.
      // Every close resumes from lastSeq, so nothing is missed either way.
      if (close.code !== CLOSE_RESUME) this.retryMs = Math.min(this.retryMs * 2, 5000);
    };
  }

  private accept(event: SkeinEvent): void {
    if (event.seq <= this.lastSeq) return; // already have it
    if (event.seq !== this.lastSeq + 1) {
      // A gap should never happen; resync from what we have.
      this.ws?.close();
      return;
    }
    this.lastSeq = event.seq;
    this.handlers.event(event);
  }
}

/** A delta frame, read loosely: only its text is required. */
function deltaOf(frame: unknown): DeltaLike {
  const f = frame as Record<string, unknown>;
  const num = (v: unknown) => (typeof v === 'number' ? v : undefined);
  const afterSeq = num(f.afterSeq);
  const attempt = num(f.attempt);
  const index = num(f.index);
  return {
    text: typeof f.text === 'string' ? f.text : '',
    ...(afterSeq !== undefined && { afterSeq }),
    ...(attempt !== undefined && { attempt }),
    ...(index !== undefined && { index }),
    ...(f.channel === 'thinking' && { channel: 'thinking' as const }),
  };
}
