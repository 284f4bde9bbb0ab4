// The token in a URL only where a browser needs it: the page entry (`/?token=`,
// `/s/:id?token=`) turns it into the HttpOnly cookie; every API route and the
// WebSocket upgrade refuse `?token=` (it ends up in proxy logs and shell
// history) with a 401 that says to use the header or the cookie.
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startTestServer, type TestServer } from '../helpers/server.js';

const servers: TestServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

/** The status and body of a WebSocket upgrade (101 when it opened). */
function upgrade(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, { headers });
    ws.on('open', () => {
      ws.close();
      resolve({ status: 101, body: '' });
    });
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    ws.on('error', () => resolve({ status: -1, body: '' }));
  });
}

const SAYS_HEADER = /Authorization: Bearer.*cookie/;

describe('?token= in a URL', () => {
  it('is refused on every API route with a 401 that says to use the header or the cookie, even beside a right header', async () => {
    const s = await startTestServer();
    servers.push(s);
    const token = s.token!;
    const right = { authorization: `Bearer ${token}` };
    const created = await fetch(`${s.url}/api/sessions`, { method: 'POST', headers: { 'content-type': 'application/json', ...right }, body: '{}' });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const q = `token=${encodeURIComponent(token)}`;
    for (const route of [`/api/sessions?${q}`, `/api/sessions/${id}?${q}`, `/api/sessions/${id}/events?since=0&${q}`, `/api/sessions/${id}/export?${q}`, `/api/sessions/${id}/images/x.png?${q}`, `/api/openapi.json?${q}`, `/metrics?${q}`]) {
      for (const headers of [{}, right]) {
        const res = await fetch(s.url + route, { headers });
        expect(res.status, route).toBe(401);
        expect(((await res.json()) as { error: string }).error, route).toMatch(SAYS_HEADER);
      }
    }
    // A state change carrying it is refused too, and records nothing.
    const post = await fetch(`${s.url}/api/sessions?${q}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(post.status).toBe(401);
    expect(((await (await fetch(`${s.url}/api/sessions`, { headers: right })).json()) as { sessions: unknown[] }).sessions).toHaveLength(1);
    // The header and the cookie work on the same routes.
    expect((await fetch(`${s.url}/api/sessions/${id}`, { headers: right })).status).toBe(200);
    expect((await fetch(`${s.url}/api/sessions/${id}`, { headers: { cookie: `skein_token=${encodeURIComponent(token)}` } })).status).toBe(200);
  });

  it('is refused on the WebSocket upgrade, with the reason in the answer; the header and the cookie open it', async () => {
    const s = await startTestServer();
    servers.push(s);
    const token = s.token!;
    const right = { authorization: `Bearer ${token}` };
    const { id } = (await (await fetch(`${s.url}/api/sessions`, { method: 'POST', headers: { 'content-type': 'application/json', ...right }, body: '{}' })).json()) as { id: string };
    const ws = `${s.url.replace('http', 'ws')}/ws?session=${id}`;
    for (const [url, headers] of [[`${ws}&token=${token}`, {}], [`${ws}&token=${token}`, right], [`${s.url.replace('http', 'ws')}/ws/sessions?token=${token}`, {}]] as const) {
      const answer = await upgrade(url, headers);
      expect(answer.status, url).toBe(401);
      expect(answer.body, url).toMatch(SAYS_HEADER);
    }
    expect((await upgrade(ws, right)).status).toBe(101);
    expect((await upgrade(ws, { cookie: `skein_token=${token}` })).status).toBe(101);
  });

  it('on the page entry sets the HttpOnly cookie and redirects without it; the cookie then opens the API and the socket', async () => {
    const s = await startTestServer();
    servers.push(s);
    for (const page of ['/', '/s/abc']) {
      const first = await fetch(`${s.url}${page}?token=${s.token}`, { redirect: 'manual' });
      expect(first.status, page).toBe(303);
      expect(first.headers.get('location'), page).toBe(page);
      const cookie = first.headers.get('set-cookie')!;
      expect(cookie).toMatch(/HttpOnly/);
      const jar = cookie.split(';')[0]!;
      expect((await fetch(`${s.url}/api/sessions`, { headers: { cookie: jar } })).status).toBe(200);
      expect((await upgrade(`${s.url.replace('http', 'ws')}/ws/sessions`, { cookie: jar })).status).toBe(101);
    }
    // A wrong token on the page gets the screen that asks for it, not the API's answer.
    const wrong = await fetch(`${s.url}/?token=not-the-token-at-all`, { redirect: 'manual', headers: { accept: 'text/html' } });
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toMatch(/not the right one/);
  });
});
