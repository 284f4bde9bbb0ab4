// The safety headers of every response, from the request: the policy lets the
// page run only its own scripts, load images only from itself (and data:),
// talk only to its own server (ws/wss for the Host it was reached at, when
// that Host is a plain name), and never be framed.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { contentSecurityPolicy, setSecurityHeaders } from '../../server/http/headers.js';

function request(headers: Record<string, string>, encrypted = false): IncomingMessage {
  return { headers, socket: { encrypted } } as unknown as IncomingMessage;
}

const FIXED = ["default-src 'self'", "script-src 'self'", "img-src 'self' data:", "object-src 'none'", "base-uri 'none'", "form-action 'self'", "frame-ancestors 'none'"];

describe('Content-Security-Policy', () => {
  it('is exactly the fixed directives plus ws:// for the Host reached', () => {
    expect(contentSecurityPolicy(request({ host: '127.0.0.1:8420' }))).toBe(
      "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self' ws://127.0.0.1:8420; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    );
  });

  it('wss:// over TLS or behind an https proxy, ws:// otherwise', () => {
    expect(contentSecurityPolicy(request({ host: 'skein.example' }, true))).toContain("connect-src 'self' wss://skein.example;");
    expect(contentSecurityPolicy(request({ host: 'skein.example', 'x-forwarded-proto': 'HTTPS' }))).toContain("connect-src 'self' wss://skein.example;");
    expect(contentSecurityPolicy(request({ host: 'skein.example', 'x-forwarded-proto': 'http' }))).toContain("connect-src 'self' ws://skein.example;");
    expect(contentSecurityPolicy(request({ host: 'skein.example', 'x-forwarded-proto': 'xhttps' }))).toContain("connect-src 'self' ws://skein.example;");
    expect(contentSecurityPolicy(request({ host: '[::1]:8420' }))).toContain("connect-src 'self' ws://[::1]:8420;");
  });

  it('leaves out a Host that is not a plain name (nothing from the request is echoed into the policy)', () => {
    for (const host of ["evil.example; script-src 'unsafe-inline'", 'a b', 'x:123456', 'skein.example:80/path', '[::1', '', "[::1]:1'"]) {
      const policy = contentSecurityPolicy(request({ host }));
      expect(policy, host).toContain("connect-src 'self';");
      expect(policy, host).not.toContain('unsafe-inline');
    }
    expect(contentSecurityPolicy(request({}))).toContain("connect-src 'self';");
  });

  it('adds a style hash only when given', () => {
    expect(contentSecurityPolicy(request({ host: 'h' }), 'sha256-abc')).toContain("style-src 'self' 'sha256-abc';");
    expect(contentSecurityPolicy(request({ host: 'h' }))).toContain("style-src 'self';");
    for (const d of FIXED) expect(contentSecurityPolicy(request({ host: 'h' }), 'sha256-abc').split('; ')).toContain(d);
  });
});

describe('setSecurityHeaders', () => {
  it('sets the policy, nosniff and no-referrer', () => {
    const set: Record<string, string> = {};
    setSecurityHeaders(request({ host: 'localhost:1' }), { setHeader: (k: string, v: string) => (set[k] = v) } as unknown as ServerResponse);
    expect(set).toEqual({ 'Content-Security-Policy': contentSecurityPolicy(request({ host: 'localhost:1' })), 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'no-referrer' });
  });
});
