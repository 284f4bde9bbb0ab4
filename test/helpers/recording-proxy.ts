// A pass-through HTTP proxy in front of a real server that keeps every JSON
// request body it forwards: what skein really sent, to assert on.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordingProxy {
  url: string;
  /** Bodies of the requests forwarded to `path` (e.g. "/v1/chat/completions"), in order. */
  bodies(path: string): any[];
  close(): Promise<void>;
}

export async function recordingProxy(target: string): Promise<RecordingProxy> {
  const seen: { path: string; body: any }[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      if (raw.length) {
        try {
          seen.push({ path: req.url ?? '', body: JSON.parse(raw.toString('utf8')) });
        } catch {
          seen.push({ path: req.url ?? '', body: raw.toString('utf8') });
        }
      }
      const headers = { ...req.headers, host: new URL(target).host, 'content-length': String(raw.length) };
      const out = http.request(`${target}${req.url}`, { method: req.method, headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      out.on('error', () => (res.headersSent ? res.destroy() : res.writeHead(502).end()));
      out.end(raw);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    bodies: (path) => seen.filter((s) => s.path.startsWith(path)).map((s) => s.body),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
