// A transparent HTTP proxy in front of a model server (llama-server) that
// keeps each chat request's body (max_tokens, tools, messages) and can hold
// chat requests until released (to read skein's state while one is in flight).
// Its port is chosen first and listened on only when asked: until then skein
// meets a server that is down (connection refused).
import http from 'node:http';
import net from 'node:net';

export interface RecordingProxy {
  /** http://127.0.0.1:<port> */
  url: string;
  /** The JSON bodies of POST …/chat/completions, in order. */
  chats: any[];
  /** Every path asked, in order (GET /props, GET /v1/models, ...). */
  paths: string[];
  /** Starts listening (the server is "up"), forwarding to `upstream`. */
  listen(upstream: string): Promise<void>;
  /** Chat requests wait from now until release(). */
  hold(): void;
  release(): void;
  /** Chat requests waiting now. */
  readonly waiting: number;
  close(): Promise<void>;
}

/** A port free now (closed again: a test listens on it later). */
export function reservePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

export async function recordingProxy(port?: number): Promise<RecordingProxy> {
  const chosen = port ?? (await reservePort());
  let upstream = '';
  let gate: { promise: Promise<void>; open: () => void } | undefined;
  let waiting = 0;
  const proxy: RecordingProxy = {
    url: `http://127.0.0.1:${chosen}`,
    chats: [],
    paths: [],
    async listen(to) {
      upstream = to;
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(chosen, '127.0.0.1', () => resolve());
      });
    },
    hold() {
      let open!: () => void;
      const promise = new Promise<void>((r) => (open = r));
      gate = { promise, open };
    },
    release() {
      gate?.open();
      gate = undefined;
    },
    get waiting() {
      return waiting;
    },
    close: () =>
      new Promise((resolve) => {
        gate?.open();
        if (!server.listening) return resolve();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks);
      proxy.paths.push(`${req.method} ${req.url}`);
      if (req.method === 'POST' && /chat\/completions$/.test(req.url ?? '')) {
        // A body that is not JSON is kept as its text: the server answers it, the proxy does not crash.
        proxy.chats.push(parsed(body.toString()));
        if (gate) {
          waiting++;
          await gate.promise;
          waiting--;
        }
      }
      const target = new URL(req.url ?? '/', upstream);
      const out = http.request(target, { method: req.method, headers: { ...req.headers, host: target.host } }, (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      });
      out.on('error', () => res.destroy());
      out.end(body);
    });
  });
  server.on('connection', (s) => s.on('error', () => s.destroy()));
  // Keep-alive sockets must not keep close() waiting.
  server.keepAliveTimeout = 100;
  return proxy;
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
