// The access check itself, request by request: the token only when it is the
// whole token (never empty, a prefix or one character longer), through each
// of the three ways it may come; loopback Host names only when they are
// loopback names (never `127.0.0.1.evil.example`); Origin only the server's own.
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { Access, isLoopback, parseRequestUrl, QUERY_TOKEN_REFUSED, TOKEN_COOKIE } from '../../server/http/access.js';

const TOKEN = 'tok-0123456789abcdefghij';
const PORT = 8420;

function request(headers: Record<string, string>, url = '/api/sessions', encrypted = false): IncomingMessage {
  return { headers, url, socket: { encrypted } } as unknown as IncomingMessage;
}

const loopback = (token: string | undefined) => new Access('127.0.0.1', () => PORT, token);
const host = { host: `127.0.0.1:${PORT}` };

/** Wrong tokens that differ from the right one by as little as possible. */
const NEAR_MISSES = ['', TOKEN.slice(0, -1), TOKEN.slice(0, 1), `${TOKEN}x`, `x${TOKEN}`, TOKEN.toUpperCase(), ` ${TOKEN}`];

describe('the token', () => {
  it('is taken whole from the cookie, the bearer header and a page\'s ?token=, and only the query one says so', () => {
    const a = loopback(TOKEN);
    expect(a.check(request({ ...host, cookie: `${TOKEN_COOKIE}=${TOKEN}` }), false)).toEqual({ ok: true, viaQuery: false });
    expect(a.check(request({ ...host, cookie: `other=1; ${TOKEN_COOKIE}=${encodeURIComponent(TOKEN)}; more=2` }), false)).toEqual({ ok: true, viaQuery: false });
    expect(a.check(request({ ...host, authorization: `Bearer ${TOKEN}` }), false)).toEqual({ ok: true, viaQuery: false });
    expect(a.check(request({ ...host, authorization: `bearer   ${TOKEN}` }), false)).toEqual({ ok: true, viaQuery: false });
    expect(a.check(request(host, `/?token=${TOKEN}`), false)).toEqual({ ok: true, viaQuery: true });
    expect(a.check(request(host, `/s/abc?token=${TOKEN}`), false)).toEqual({ ok: true, viaQuery: true });
  });

  it('in a URL is refused on API routes, upgrades and state changes, even right and beside a right header', () => {
    const a = loopback(TOKEN);
    const q = `token=${encodeURIComponent(TOKEN)}`;
    for (const [target, stateChanging] of [[`/api/sessions?${q}`, false], [`/api/sessions/x/export?${q}`, false], [`/metrics?${q}`, false], [`/ws?session=abc&${q}`, true], [`/ws/sessions?${q}`, true], [`/?${q}`, true]] as const) {
      for (const headers of [host, { ...host, authorization: `Bearer ${TOKEN}` }]) {
        expect(a.check(request(headers, target), stateChanging), target).toEqual({ ok: false, status: 401, reason: QUERY_TOKEN_REFUSED });
      }
    }
    expect(QUERY_TOKEN_REFUSED).toMatch(/Authorization: Bearer.*cookie/);
  });

  it('refuses empty, prefix, one-longer and other near-miss tokens in every place, with 401', () => {
    const a = loopback(TOKEN);
    for (const wrong of NEAR_MISSES) {
      const places: [string, IncomingMessage][] = [
        ['query', request(host, `/?token=${encodeURIComponent(wrong)}`)],
        ['cookie', request({ ...host, cookie: `${TOKEN_COOKIE}=${encodeURIComponent(wrong)}` })],
        // (`Bearer  <token>` with two spaces is the token: the header allows any white space.)
        ['header', request({ ...host, authorization: `Bearer ${wrong.trim() === TOKEN ? `${wrong}!` : wrong}` })],
      ];
      for (const [place, req] of places) {
        const verdict = a.check(req, false);
        expect(verdict, `${place}: ${JSON.stringify(wrong)}`).toMatchObject({ ok: false, status: 401 });
      }
    }
    // An empty cookie, an empty `?token=`, a bare `Bearer`, no credentials at all.
    for (const req of [request({ ...host, cookie: `${TOKEN_COOKIE}=` }), request(host, '/?token='), request(host, '/?token'), request({ ...host, authorization: 'Bearer ' }), request({ ...host, authorization: 'Bearer' }), request(host)]) {
      expect(a.check(req, false)).toEqual({ ok: false, status: 401, reason: expect.stringMatching(/access token/) });
    }
  });

  it('reads only the cookie of its own name, and not a name that merely contains it', () => {
    const a = loopback(TOKEN);
    expect(a.check(request({ ...host, cookie: `x${TOKEN_COOKIE}=${TOKEN}` }), false).ok).toBe(false);
    expect(a.check(request({ ...host, cookie: `${TOKEN_COOKIE}x=${TOKEN}` }), false).ok).toBe(false);
    expect(a.check(request({ ...host, cookie: `${TOKEN_COOKIE}_old=${TOKEN}` }), false).ok).toBe(false);
    // A cookie value that is not valid percent-encoding is no token (and no crash).
    expect(a.check(request({ ...host, cookie: `${TOKEN_COOKIE}=%E0%A4%A` }), false)).toMatchObject({ ok: false, status: 401 });
    // `=` inside a value is kept: the whole value is compared.
    const withEquals = new Access('127.0.0.1', () => PORT, 'tok=with=equals-0123456789');
    expect(withEquals.check(request({ ...host, cookie: `${TOKEN_COOKIE}=tok=with=equals-0123456789` }), false).ok).toBe(true);
    expect(withEquals.check(request({ ...host, cookie: `${TOKEN_COOKIE}=tok` }), false).ok).toBe(false);
  });

  it('the bearer header must be exactly `Bearer <token>`', () => {
    const a = loopback(TOKEN);
    for (const header of [`Basic ${TOKEN}`, `Bearer ${TOKEN} extra`, `xBearer ${TOKEN}`, `Bearer${TOKEN}`, TOKEN]) {
      expect(a.check(request({ ...host, authorization: header }), false).ok, header).toBe(false);
    }
  });

  it('a wrong credential in one place does not hide the right one in another', () => {
    const a = loopback(TOKEN);
    expect(a.check(request({ ...host, cookie: `${TOKEN_COOKIE}=wrong`, authorization: `Bearer ${TOKEN}` }), false)).toEqual({ ok: true, viaQuery: false });
    expect(a.check(request({ ...host, cookie: `${TOKEN_COOKIE}=wrong`, authorization: 'Bearer wrong' }, `/?token=${TOKEN}`), false)).toEqual({ ok: true, viaQuery: true });
  });

  it('without a token (SKEIN_AUTH=off) anything on a loopback Host passes, the Host and Origin checks still apply', () => {
    const a = loopback(undefined);
    expect(a.check(request(host), false)).toEqual({ ok: true });
    expect(a.check(request(host, '/?token=anything'), true)).toEqual({ ok: true });
    expect(a.check(request({ host: `127.0.0.1.evil.example:${PORT}` }), false)).toMatchObject({ ok: false, status: 403 });
    expect(a.check(request({ ...host, origin: 'http://evil.example' }), true)).toMatchObject({ ok: false, status: 403 });
  });

  it('a request target that is no URL is still checked for the token', () => {
    const a = loopback(TOKEN);
    expect(parseRequestUrl('http://[')).toBeUndefined();
    expect(parseRequestUrl(undefined)?.pathname).toBe('/');
    expect(a.check(request(host, 'http://['), false)).toMatchObject({ ok: false, status: 401 });
    expect(a.check(request({ ...host, authorization: `Bearer ${TOKEN}` }, 'http://['), false)).toEqual({ ok: true, viaQuery: false });
  });
});

/** Names that look loopback to a careless pattern but resolve anywhere (DNS rebinding). */
const REBINDING = ['127.0.0.1.evil.example', '127.0.0.1.nip.io', 'localhost.evil.example', 'evil.example', '127.0.0.1evil.example', 'a127.0.0.1', '::1.evil.example', '127.0.0.x'];

describe('loopback names', () => {
  it('are exactly 127.x.y.z, localhost and ::1', () => {
    // Octets of one, two and three digits (127.0.1.1 is Debian's own host name address).
    for (const name of ['127.0.0.1', '127.1.2.3', '127.10.200.255', '127.0.1.1', 'localhost', '[::1]', '::1']) expect(isLoopback(name), name).toBe(true);
    for (const name of [...REBINDING, '0.0.0.0', '10.0.0.1', '', 'LOCALHOST.evil.example', '128.0.0.1']) expect(isLoopback(name), name).toBe(false);
  });

  it('a loopback server refuses a rebinding Host name and a missing or unparsable Host, with 403', () => {
    const a = loopback(TOKEN);
    const auth = { authorization: `Bearer ${TOKEN}` };
    for (const name of REBINDING) {
      expect(a.check(request({ ...auth, host: `${name}:${PORT}` }), false), name).toMatchObject({ ok: false, status: 403 });
      expect(a.check(request({ ...auth, host: name }), true), name).toMatchObject({ ok: false, status: 403, reason: expect.stringMatching(/Host/) });
    }
    expect(a.check(request(auth), false)).toMatchObject({ ok: false, status: 403 });
    expect(a.check(request({ ...auth, host: '' }), false)).toMatchObject({ ok: false, status: 403 });
    expect(a.check(request({ ...auth, host: 'exa mple:1' }), false)).toMatchObject({ ok: false, status: 403 });
    for (const name of [`localhost:${PORT}`, `[::1]:${PORT}`, `127.9.9.9:${PORT}`, 'localhost']) expect(a.check(request({ ...auth, host: name }), false).ok, name).toBe(true);
  });

  it('a server bound to ::1 or localhost is a loopback server too', () => {
    for (const listen of ['::1', 'localhost', '127.0.0.2']) {
      const a = new Access(listen, () => PORT, TOKEN);
      const auth = { authorization: `Bearer ${TOKEN}` };
      expect(a.check(request({ ...auth, host: `127.0.0.1.evil.example:${PORT}` }), false), listen).toMatchObject({ ok: false, status: 403 });
      expect(a.check(request({ ...auth, host: `[::1]:${PORT}` }), false).ok, listen).toBe(true);
      // On a loopback bind an Origin must be a loopback one, even when it names the Host the request came with.
      expect(a.check(request({ ...auth, host: `localhost:${PORT}`, origin: `http://skein.lan:${PORT}` }), true).ok, listen).toBe(false);
    }
  });

  it('a missing Host is not a name: an Origin of http://undefined is not the page’s own', () => {
    const a = new Access('0.0.0.0', () => PORT, TOKEN);
    const auth = { authorization: `Bearer ${TOKEN}` };
    expect(a.check(request({ ...auth, origin: `http://undefined:${PORT}` }), true)).toMatchObject({ ok: false, status: 403 });
    expect(a.check(request({ ...auth, host: '', origin: `http://undefined:${PORT}` }), true)).toMatchObject({ ok: false, status: 403 });
    // An unparsable Host is no name either.
    expect(a.check(request({ ...auth, host: 'a b', origin: `http://undefined:${PORT}` }), true)).toMatchObject({ ok: false, status: 403 });
  });

  it('a server bound elsewhere takes any Host name (its token guards it)', () => {
    const a = new Access('0.0.0.0', () => PORT, TOKEN);
    expect(a.check(request({ host: 'skein.example', authorization: `Bearer ${TOKEN}` }), false)).toEqual({ ok: true, viaQuery: false });
    expect(a.check(request({ authorization: `Bearer ${TOKEN}` }), false)).toEqual({ ok: true, viaQuery: false });
  });
});

describe('Origin', () => {
  const auth = { ...host, authorization: `Bearer ${TOKEN}` };

  it('a state-changing request from a rebinding origin is refused even with the token and a loopback Host', () => {
    const a = loopback(TOKEN);
    for (const name of REBINDING) {
      for (const scheme of ['http', 'https']) {
        expect(a.check(request({ ...auth, origin: `${scheme}://${name}:${PORT}` }), true), `${scheme}://${name}`).toMatchObject({ ok: false, status: 403, reason: 'cross-origin request refused' });
      }
    }
    // Read-only requests are not asked for an Origin (a page cannot read the answer cross-origin).
    expect(a.check(request({ ...auth, origin: 'http://127.0.0.1.evil.example' }), false).ok).toBe(true);
  });

  it('the server’s own loopback origin passes; another port, scheme or a non-URL does not', () => {
    const a = loopback(TOKEN);
    for (const origin of [`http://127.0.0.1:${PORT}`, `http://localhost:${PORT}`, `http://[::1]:${PORT}`, `https://127.0.0.1:${PORT}`]) {
      expect(a.check(request({ ...auth, origin }), true).ok, origin).toBe(true);
    }
    // No Origin: not a browser.
    expect(a.check(request(auth), true).ok).toBe(true);
    for (const origin of [`http://127.0.0.1:${PORT + 1}`, 'http://127.0.0.1', 'https://127.0.0.1', `ftp://127.0.0.1:${PORT}`, `file://127.0.0.1:${PORT}`, 'null', '', 'not a url']) {
      expect(a.check(request({ ...auth, origin }), true), origin).toMatchObject({ ok: false, status: 403 });
    }
  });

  it('the default ports count: http on 80, https on 443', () => {
    const on80 = new Access('127.0.0.1', () => 80, undefined);
    const on443 = new Access('127.0.0.1', () => 443, undefined);
    expect(on80.check(request({ host: '127.0.0.1', origin: 'http://127.0.0.1' }), true).ok).toBe(true);
    expect(on80.check(request({ host: '127.0.0.1', origin: 'https://127.0.0.1' }), true).ok).toBe(false);
    expect(on443.check(request({ host: '127.0.0.1', origin: 'https://127.0.0.1' }), true).ok).toBe(true);
    expect(on443.check(request({ host: '127.0.0.1', origin: 'http://127.0.0.1' }), true).ok).toBe(false);
  });

  it('a server on another address takes its own address or the Host it was reached at, and nothing else', () => {
    const a = new Access('192.168.1.20', () => PORT, TOKEN);
    const bearer = { authorization: `Bearer ${TOKEN}` };
    expect(a.check(request({ ...bearer, host: `192.168.1.20:${PORT}`, origin: `http://192.168.1.20:${PORT}` }), true).ok).toBe(true);
    expect(a.check(request({ ...bearer, host: `skein.lan:${PORT}`, origin: `http://skein.lan:${PORT}` }), true).ok).toBe(true);
    // Its own address is its own origin whatever Host the request names (a page on the address calling the name).
    expect(a.check(request({ ...bearer, host: `skein.lan:${PORT}`, origin: `http://192.168.1.20:${PORT}` }), true).ok).toBe(true);
    expect(a.check(request({ ...bearer, host: `skein.lan:${PORT}`, origin: `http://evil.example:${PORT}` }), true)).toMatchObject({ ok: false, status: 403 });
    expect(a.check(request({ ...bearer, host: `192.168.1.20:${PORT}`, origin: `http://192.168.1.21:${PORT}` }), true)).toMatchObject({ ok: false, status: 403 });
    // A loopback origin is the machine itself.
    expect(a.check(request({ ...bearer, host: `192.168.1.20:${PORT}`, origin: `http://localhost:${PORT}` }), true).ok).toBe(true);
  });
});

describe('the cookie', () => {
  it('is HttpOnly, SameSite=Strict, for the whole site, and Secure only over TLS or behind an https proxy', () => {
    const a = loopback('tok with spaces;=-0123456789');
    expect(a.cookie(request(host))).toBe(`${TOKEN_COOKIE}=${encodeURIComponent('tok with spaces;=-0123456789')}; HttpOnly; SameSite=Strict; Path=/`);
    expect(a.cookie(request(host, '/', true))).toBe(`${TOKEN_COOKIE}=${encodeURIComponent('tok with spaces;=-0123456789')}; HttpOnly; SameSite=Strict; Path=/; Secure`);
    expect(a.cookie(request({ ...host, 'x-forwarded-proto': 'HTTPS , http' }))).toMatch(/; Secure$/);
    expect(a.cookie(request({ ...host, 'x-forwarded-proto': 'http, https' }))).not.toMatch(/Secure/);
    expect(a.cookie(request({ ...host, 'x-forwarded-proto': 'httpsx' }))).not.toMatch(/Secure/);
    expect(loopback(undefined).cookie(request(host))).toBe(`${TOKEN_COOKIE}=; HttpOnly; SameSite=Strict; Path=/`);
  });
});
