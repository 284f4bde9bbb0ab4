// Cross-site protection: a browser page from another origin must not drive the
// agent. Browsers always send Origin on cross-origin POSTs and WebSocket
// upgrades; a request without one comes from a non-browser client.
import type { IncomingMessage } from 'node:http';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

export function originAllowed(req: IncomingMessage, listenHost: string, port: number): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  if (Number(url.port || (url.protocol === 'https:' ? 443 : 80)) !== port) return false;
  const host = url.hostname;
  if (LOOPBACK.has(host)) return true;
  // Served on another address: its own origin is the Host the page came from.
  return host === listenHost || host === (req.headers.host ?? '').replace(/:\d+$/, '');
}
