// One OpenAI base URL for two fakes, as api.openai.com is one host for both
// APIs: /v1/responses (reasoning models) goes to the Responses fake, every
// other path (Chat Completions, models) to the Chat Completions fake.
// Bodies and streams are piped through unchanged.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Router {
  /** The base URL to give OPENAI_BASE_URL (ends in /v1). */
  url: string;
  close(): Promise<void>;
}

export async function startOpenAIRouter(chatUrl: string, responsesUrl: string): Promise<Router> {
  const server = http.createServer((req, res) => {
    const path = req.url ?? '/';
    const base = path.startsWith('/v1/responses') ? responsesUrl : chatUrl;
    const to = new URL(base.replace(/\/v1$/, '') + path);
    const upstream = http.request(to, { method: req.method, headers: { ...req.headers, host: to.host } }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
