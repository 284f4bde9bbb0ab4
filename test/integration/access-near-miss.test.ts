// The real server refuses tokens that are almost right (empty, a prefix, one
// character longer) in every place a token may come, on HTTP and WebSocket
// upgrades, and refuses rebinding names that start like a loopback address
// (`127.0.0.1.evil.example`) as Host and as Origin, also with SKEIN_AUTH=off.
import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startTestServer, type TestServer } from '../helpers/server.js';

const servers: TestServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

async function start(env: Record<string, string> = {}): Promise<TestServer> {
  const s = await startTestServer(env);
  servers.push(s);
  return s;
}

/** The status of a WebSocket upgrade sent with exactly these headers (101 when it opened). */
function upgrade(url: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, { headers });
    ws.on('open', () => {
      ws.close();
      resolve(101);
    });
    ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    ws.on('error', () => resolve(-1));
  });
}

/** node:http, so the Host header is sent as given (fetch() sets its own). */
function raw(port: number, method: string, route: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: route, method, headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end(method === 'POST' ? '{"model":"predictable"}' : undefined);
  });
}

function nearMisses(token: string): string[] {
  return ['', token.slice(0, -1), token.slice(0, 8), `${token}x`, `${token}${token}`];
}

describe('near-miss tokens', () => {
  it('are refused with 401 by the page query, header, cookie and WebSocket upgrade; the exact token passes each way', async () => {
    const s = await start({ SKEIN_TOKEN: 'exact-token-0123456789abcdef' });
    const token = s.token!;
    const right = { authorization: `Bearer ${token}` };
    const created = await fetch(`${s.url}/api/sessions`, { method: 'POST', headers: { 'content-type': 'application/json', ...right }, body: '{"model":"predictable"}' });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const ws = `${s.url.replace('http', 'ws')}/ws?session=${id}`;
    for (const wrong of nearMisses(token)) {
      const q = encodeURIComponent(wrong);
      const label = JSON.stringify(wrong);
      expect((await fetch(`${s.url}/api/sessions`, { headers: { authorization: `Bearer ${wrong}` } })).status, `header ${label}`).toBe(401);
      expect((await fetch(`${s.url}/api/sessions`, { headers: { cookie: `skein_token=${q}` } })).status, `cookie ${label}`).toBe(401);
      expect((await fetch(`${s.url}/?token=${q}`, { redirect: 'manual' })).status, `page ${label}`).toBe(401);
      expect(await upgrade(ws, { authorization: `Bearer ${wrong}` }), `ws header ${label}`).toBe(401);
      expect(await upgrade(ws, { cookie: `skein_token=${q}` }), `ws cookie ${label}`).toBe(401);
      // A state change with it records nothing.
      expect(await raw(s.port, 'POST', '/api/sessions', { authorization: `Bearer ${wrong}` }), `POST ${label}`).toBe(401);
    }
    expect((await fetch(`${s.url}/api/sessions`, { headers: right })).status).toBe(200);
    expect((await fetch(`${s.url}/api/sessions`, { headers: { cookie: `skein_token=${token}` } })).status).toBe(200);
    // A URL with the token is taken by the page only (test/integration/token-in-url.test.ts).
    expect((await fetch(`${s.url}/?token=${token}`, { redirect: 'manual' })).status).toBe(303);
    expect(await upgrade(ws, right)).toBe(101);
    expect(await upgrade(ws, { cookie: `skein_token=${token}` })).toBe(101);
    const list = (await (await fetch(`${s.url}/api/sessions`, { headers: right })).json()) as { sessions?: unknown[] } | unknown[];
    expect(Array.isArray(list) ? list.length : list.sessions?.length).toBe(1);
  });
});

/** Names a DNS-rebinding page may use: they resolve to 127.0.0.1 but are not loopback names. */
const REBINDING = ['127.0.0.1.evil.example', '127.0.0.1.nip.io', 'localhost.evil.example', '127.1.2.3.evil.example'];

describe('rebinding names that start like loopback', () => {
  it('are refused as Host and as Origin on HTTP and WebSocket, with the token', async () => {
    const s = await start();
    const auth = { authorization: `Bearer ${s.token}` };
    const ws = `${s.url.replace('http', 'ws')}/ws`;
    for (const name of REBINDING) {
      expect(await raw(s.port, 'GET', '/api/sessions', { ...auth, host: `${name}:${s.port}` }), `GET Host ${name}`).toBe(403);
      expect(await raw(s.port, 'POST', '/api/sessions', { ...auth, host: `${name}:${s.port}` }), `POST Host ${name}`).toBe(403);
      expect(await raw(s.port, 'POST', '/api/sessions', { ...auth, origin: `http://${name}:${s.port}` }), `POST Origin ${name}`).toBe(403);
      expect(await upgrade(ws, { ...auth, host: `${name}:${s.port}`, origin: `http://${name}:${s.port}` }), `ws Host+Origin ${name}`).toBe(403);
      expect(await upgrade(ws, { ...auth, origin: `http://${name}:${s.port}` }), `ws Origin ${name}`).toBe(403);
    }
    expect(await raw(s.port, 'POST', '/api/sessions', { ...auth, origin: `http://127.0.0.1:${s.port}` })).toBe(201);
  });

  it('are refused with SKEIN_AUTH=off too, where Host and Origin are all that stands in the way', async () => {
    const s = await start({ SKEIN_AUTH: 'off' });
    expect(s.token).toBeUndefined();
    const ws = `${s.url.replace('http', 'ws')}/ws`;
    for (const name of REBINDING) {
      expect(await raw(s.port, 'GET', '/api/sessions', { host: `${name}:${s.port}` }), `GET Host ${name}`).toBe(403);
      expect(await raw(s.port, 'POST', '/api/sessions', { host: `${name}:${s.port}`, origin: `http://${name}:${s.port}` }), `POST ${name}`).toBe(403);
      expect(await raw(s.port, 'POST', '/api/sessions', { origin: `http://${name}:${s.port}` }), `POST Origin ${name}`).toBe(403);
      expect(await upgrade(ws, { host: `${name}:${s.port}`, origin: `http://${name}:${s.port}` }), `ws ${name}`).toBe(403);
    }
    // The server's own names still work.
    expect(await raw(s.port, 'GET', '/api/sessions', { host: `localhost:${s.port}` })).toBe(200);
    expect(await raw(s.port, 'POST', '/api/sessions', { host: `127.0.0.1:${s.port}`, origin: `http://127.0.0.1:${s.port}` })).toBe(201);
  });
});
