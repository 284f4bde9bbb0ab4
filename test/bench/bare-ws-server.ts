// The floor for the fan-out bench: a bare `ws` server in its own process that
// does nothing but broadcast. Run as a script:
//
//   node --import tsx test/bench/bare-ws-server.ts
//
// It prints `bare ws floor listening on http://127.0.0.1:PORT`. Clients
// connect to ws://…/ws. POST /broadcast with {"frames": string[], "offsetsMs":
// number[]} sends frame i to every client at offsetsMs[i] after the start
// (same pacing as the run it was recorded from), each frame's first
// `"ts":"<ISO>"` replaced by the send time in the same format (so the frame
// keeps its size), serialised once and written to every socket. It answers
// when the last frame has been handed to every socket.
import http from 'node:http';
import { WebSocketServer } from 'ws';

interface BroadcastRequest {
  frames: string[];
  offsetsMs: number[];
}

/** Splits each frame around its first ts value (24 characters of ISO time), so sending is one concatenation. */
function templates(frames: string[]): { head: string; tail?: string }[] {
  return frames.map((frame) => {
    const match = /"ts":"[^"]{24}"/.exec(frame);
    if (!match) return { head: frame };
    const start = match.index + '"ts":"'.length;
    return { head: frame.slice(0, start), tail: frame.slice(start + 24) };
  });
}

function main(): void {
  const server = http.createServer();
  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (req, socket, head) => {
    if (!req.url?.startsWith('/ws')) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      ws.on('error', () => ws.terminate());
    });
  });
  server.on('request', (req, res) => {
    if (req.method !== 'POST' || req.url !== '/broadcast') {
      res.writeHead(404).end();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString()) as BroadcastRequest;
      const parts = templates(body.frames);
      const offsets = body.offsetsMs;
      const clients = [...wss.clients].filter((ws) => ws.readyState === ws.OPEN);
      const start = performance.now();
      let i = 0;
      const tick = () => {
        while (i < parts.length && offsets[i]! <= performance.now() - start) {
          const { head, tail } = parts[i++]!;
          const text = tail === undefined ? head : head + new Date().toISOString() + tail;
          for (const ws of clients) if (ws.readyState === ws.OPEN) ws.send(text);
        }
        if (i < parts.length) setTimeout(tick, Math.max(0, offsets[i]! - (performance.now() - start)));
        else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ sent: parts.length, clients: clients.length, durationMs: performance.now() - start }));
      };
      tick();
    });
  });
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    console.log(`bare ws floor listening on http://127.0.0.1:${port}`);
  });
  const stop = () => {
    for (const ws of wss.clients) ws.terminate();
    server.close(() => process.exit(0));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main();
