// Every response carries the Content-Security-Policy and the two other safety
// headers, and the built page needs nothing inline the policy would refuse.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_UI_DIR } from '../../server/server.js';
import { authHeaders } from '../helpers/auth.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
});

function directives(csp: string | null): Map<string, string> {
  return new Map((csp ?? '').split(';').map((d) => d.trim().split(/\s+(.*)/s, 2) as [string, string]));
}

describe('safety headers', () => {
  it('API answers carry no ETag (not worth hashing every body a client polls); static files keep theirs', async () => {
    const auth = authHeaders(server.url);
    for (const route of ['/healthz', '/api/sessions']) expect((await fetch(server.url + route, { headers: auth })).headers.get('etag'), route).toBeNull();
    const index = fs.readFileSync(path.join(DEFAULT_UI_DIR, 'index.html'), 'utf8');
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(index)![1]!;
    expect((await fetch(server.url + script, { headers: auth })).headers.get('etag')).toBeTruthy();
  });

  it('are on every response: page, API, health, static files, refusals and the token screen', async () => {
    const auth = authHeaders(server.url);
    const index = fs.readFileSync(path.join(DEFAULT_UI_DIR, 'index.html'), 'utf8');
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(index)![1]!;
    const requests: [string, RequestInit, number][] = [
      ['/', { headers: auth }, 200],
      ['/s/whatever', { headers: auth }, 200],
      [script, { headers: auth }, 200],
      ['/healthz', {}, 200],
      ['/api/sessions', { headers: auth }, 200],
      ['/api/nope', { headers: auth }, 404],
      ['/api/sessions', {}, 401],
      ['/', { headers: { accept: 'text/html' } }, 401],
      ['/api/sessions', { method: 'POST', headers: { ...auth, origin: 'http://evil.example' } }, 403],
    ];
    for (const [route, init, status] of requests) {
      const res = await fetch(server.url + route, init);
      const what = `${init.method ?? 'GET'} ${route} (${status})`;
      expect(res.status, what).toBe(status);
      expect(res.headers.get('x-content-type-options'), what).toBe('nosniff');
      expect(res.headers.get('referrer-policy'), what).toBe('no-referrer');
      const csp = res.headers.get('content-security-policy');
      expect(csp, what).not.toMatch(/unsafe-inline|unsafe-eval|\*/);
      const d = directives(csp);
      expect(d.get('default-src'), what).toBe("'self'");
      expect(d.get('script-src'), what).toBe("'self'");
      expect(d.get('img-src'), what).toBe("'self' data:");
      expect(d.get('connect-src'), what).toBe(`'self' ws://127.0.0.1:${server.port}`);
      expect(d.get('frame-ancestors'), what).toBe("'none'");
      expect(d.get('object-src'), what).toBe("'none'");
    }
  });

  it('behind an https proxy allow the wss origin; a strange Host is never echoed into the policy', async () => {
    const https = await fetch(`${server.url}/healthz`, { headers: { 'x-forwarded-proto': 'https' } });
    expect(directives(https.headers.get('content-security-policy')).get('connect-src')).toBe(`'self' wss://127.0.0.1:${server.port}`);
    const { request } = await import('node:http');
    const csp = await new Promise<string>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: server.port, path: '/healthz', headers: { host: "x; script-src 'unsafe-inline'" } }, (res) => {
        res.resume();
        resolve(String(res.headers['content-security-policy']));
      });
      req.on('error', reject);
      req.end();
    });
    expect(csp).not.toContain('unsafe-inline');
    expect(directives(csp).get('connect-src')).toBe("'self'");
  });

  it('the built page has no inline script or style for the policy to refuse', () => {
    const index = fs.readFileSync(path.join(DEFAULT_UI_DIR, 'index.html'), 'utf8');
    expect(index).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(index).not.toMatch(/<style\b|\sstyle=|\son\w+=/);
  });
});
