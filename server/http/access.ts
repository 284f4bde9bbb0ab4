// Who may talk to skein. A coding agent runs shell commands; no other web
// page, process or network peer may drive it.
// - Host: on a loopback bind, only loopback Host names (a DNS-rebinding page
//   reaches 127.0.0.1 under its own name and is refused).
// - Origin: a state-changing request or WebSocket upgrade from a browser must
//   come from the server's own origin (cross-site request / WebSocket hijacking).
// - Token: required by default on every bind (another user of the machine can
//   reach a loopback port too): the cookie or `Authorization: Bearer`; the
//   page entry alone also takes `?token=` once (the printed link; it becomes
//   an HttpOnly SameSite=Strict cookie). A URL with the token ends up in proxy
//   logs and shell history, so an API route or upgrade refuses one outright.
//   Compared in constant time. Only SKEIN_AUTH=off on a loopback bind drops it.
import crypto from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export const TOKEN_COOKIE = 'skein_token';
const LOOPBACK_NAMES = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

export function isLoopback(host: string): boolean {
  return LOOPBACK_NAMES.has(host) || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** Why `?token=` is refused on an API route or upgrade: what to send instead. */
export const QUERY_TOKEN_REFUSED =
  'the access token is not taken in a URL here (it would end up in proxy logs and shell history): send it as Authorization: Bearer <token>, or the cookie the page sets (only the page, /?token=…, takes ?token=)';

/** Paths that are not pages a browser opens from a link: the API, the sockets, the metrics. */
export function isApiPath(pathname: string): boolean {
  return /^\/(api|ws|metrics|healthz)(\/|$)/.test(pathname);
}

export type Verdict = { ok: true; viaQuery?: boolean } | { ok: false; status: 401 | 403; reason: string };

export class Access {
  private readonly tokenDigest: Buffer | undefined;

  constructor(
    private readonly listenHost: string,
    private readonly port: () => number,
    /** Undefined: no token needed (SKEIN_AUTH=off, loopback only). */
    readonly token: string | undefined,
  ) {
    this.tokenDigest = token === undefined ? undefined : digest(token);
  }

  /**
   * Checks a request or upgrade. `stateChanging`: POST and WebSocket upgrades need a same-origin Origin.
   * Only a GET of a page (not stateChanging, not an API path) may carry `?token=`.
   */
  check(req: IncomingMessage, stateChanging: boolean): Verdict {
    const hostName = hostnameOf(req.headers.host);
    if (isLoopback(this.listenHost) && (hostName === undefined || !isLoopback(hostName))) {
      return { ok: false, status: 403, reason: 'unexpected Host header for a loopback server' };
    }
    if (stateChanging && !this.originAllowed(req.headers.origin, hostName)) {
      return { ok: false, status: 403, reason: 'cross-origin request refused' };
    }
    if (!this.tokenDigest) return { ok: true };
    const url = parseRequestUrl(req.url) ?? new URL('http://localhost/');
    const page = !stateChanging && !isApiPath(url.pathname);
    // Refused even beside a right header: the client that put it there leaks it, and should hear so.
    if (!page && url.searchParams.has('token')) return { ok: false, status: 401, reason: QUERY_TOKEN_REFUSED };
    const candidates: [string | undefined, boolean][] = [
      [cookieValue(req.headers.cookie, TOKEN_COOKIE), false],
      [bearer(req.headers.authorization), false],
      [page ? (url.searchParams.get('token') ?? undefined) : undefined, true],
    ];
    for (const [candidate, viaQuery] of candidates) {
      if (candidate !== undefined && crypto.timingSafeEqual(digest(candidate), this.tokenDigest)) return { ok: true, viaQuery };
    }
    return { ok: false, status: 401, reason: 'missing or wrong access token (open the URL skein printed at start, or send Authorization: Bearer <token>)' };
  }

  /**
   * The cookie that keeps the token. `Secure` when the page was reached over
   * https: the connection is TLS, or a proxy says so (X-Forwarded-Proto).
   * Trusting that header is safe here: it can only make the cookie stricter,
   * for the very client that sent it.
   */
  cookie(req: IncomingMessage): string {
    const overTls = (req.socket as { encrypted?: boolean }).encrypted === true;
    const forwarded = String(req.headers['x-forwarded-proto'] ?? '').split(',')[0]!.trim().toLowerCase() === 'https';
    const secure = overTls || forwarded ? '; Secure' : '';
    return `${TOKEN_COOKIE}=${encodeURIComponent(this.token ?? '')}; HttpOnly; SameSite=Strict; Path=/${secure}`;
  }

  private originAllowed(origin: string | undefined, hostName: string | undefined): boolean {
    // Non-browser clients send no Origin; browsers always do on cross-origin POSTs and upgrades.
    if (origin === undefined) return true;
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      return false;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
    if (Number(url.port || (url.protocol === 'https:' ? 443 : 80)) !== this.port()) return false;
    if (isLoopback(url.hostname)) return true;
    // Served on another address: the page's origin is the address it was reached at.
    return !isLoopback(this.listenHost) && (url.hostname === this.listenHost || url.hostname === hostName);
  }
}

/** The request target as a URL, or undefined when it is not one (`GET http://[ HTTP/1.1`). */
export function parseRequestUrl(target: string | undefined): URL | undefined {
  try {
    return new URL(target ?? '/', 'http://localhost');
  } catch {
    return undefined;
  }
}

function digest(text: string): Buffer {
  return crypto.createHash('sha256').update(text).digest();
}

function hostnameOf(host: string | undefined): string | undefined {
  if (!host) return undefined;
  try {
    return new URL(`http://${host}`).hostname;
  } catch {
    return undefined;
  }
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) {
      try {
        return decodeURIComponent(rest.join('='));
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

function bearer(header: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)$/i.exec(header ?? '');
  return match?.[1];
}
