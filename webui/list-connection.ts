// The list-level socket /ws/sessions: every session's state, title and
// activity as they change. Reconnects by itself; each (re)connect starts with
// the whole list, so nothing is missed while it was down.
import type { SessionListFrame } from '../shared/protocol.js';

export class ListConnection {
  private ws: WebSocket | undefined;
  private retryMs = 500;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private stopped = false;

  constructor(private readonly onFrame: (frame: SessionListFrame) => void) {
    this.open();
  }

  close(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.ws?.close();
  }

  private open(): void {
    const proto = location.protocol === 'https:' ? 'wss' : 'ws';
    const ws = new WebSocket(`${proto}://${location.host}/ws/sessions`);
    this.ws = ws;
    ws.onopen = () => (this.retryMs = 500);
    ws.onmessage = (message) => {
      if (this.stopped) return;
      try {
        this.onFrame(JSON.parse(String(message.data)) as SessionListFrame);
      } catch {
        // Not a frame of ours: ignored.
      }
    };
    ws.onclose = () => {
      if (this.stopped || this.ws !== ws) return;
      this.timer = setTimeout(() => this.open(), this.retryMs);
      this.retryMs = Math.min(this.retryMs * 2, 10_000);
    };
  }
}
