// Starts a real skein server on a free port with its own data and work folders.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig, type Config } from '../../server/config.js';
import type { HubOptions } from '../../server/http/ws-hub.js';
import type { SessionOptions } from '../../server/sessions/session-options.js';
import { startServer, type RunningServer } from '../../server/server.js';
import { authHeaders, rememberToken } from './auth.js';
import { tempDir } from './temp-dir.js';
import { assertDocumented } from './openapi.js';
import { databaseFor } from './shared-postgres.js';

/** SKEIN_TEST_STORE=postgres: the environment that puts a data folder's sessions in its database (a child server needs it too); else nothing. */
export async function storeEnv(dataDir: string): Promise<Record<string, string>> {
  return process.env.SKEIN_TEST_STORE === 'postgres' ? { SKEIN_DATABASE_URL: await databaseFor(dataDir) } : {};
}

export interface TestServer extends RunningServer {
  dataDir: string;
  workDir: string;
  config: Config;
}

export { tempDir };

/** `sessions`: options of every session (a wrapped provider, say). */
export async function startTestServer(env: Record<string, string> = {}, dirs?: { dataDir?: string; workDir?: string }, hub?: HubOptions, sessions: SessionOptions = {}): Promise<TestServer> {
  const dataDir = dirs?.dataDir ?? tempDir('data');
  const workDir = dirs?.workDir ?? tempDir('work');
  // SKEIN_TEST_STORE=postgres: the same tests on the PostgreSQL store (one database per data folder).
  const store = env.SKEIN_DATABASE_URL ? {} : await storeEnv(dataDir);
  const config = loadConfig([], { SKEIN_PORT: '0', SKEIN_DATA_DIR: dataDir, SKEIN_WORKDIR: workDir, ...store, ...env });
  const server = await startServer(config, undefined, sessions, hub);
  rememberToken(server.url, server.token);
  return Object.assign(server, { dataDir, workDir, config });
}

export async function api<T = unknown>(base: string, route: string, init?: { method?: string; body?: unknown; headers?: Record<string, string> }): Promise<{ status: number; body: T }> {
  const send = () =>
    fetch(base + route, {
      method: init?.method ?? (init?.body !== undefined ? 'POST' : 'GET'),
      headers: { 'content-type': 'application/json', ...authHeaders(base), ...init?.headers },
      ...(init?.body !== undefined && { body: JSON.stringify(init.body) }),
    });
  // Sent on a kept-alive socket the server closed as idle at that moment (Node closes one after 5 s; on a loaded
  // machine the client's own 4 s expiry can run late): the server never read it, so once more, as browsers do.
  // The server keeps Node's 5 s: a peer that vanishes does not hold a socket longer (test/hostile/network.test.ts).
  const res = await send().catch((err: unknown) => {
    if ((err as { cause?: { code?: string } }).cause?.code !== 'UND_ERR_SOCKET') throw err;
    return send();
  });
  const text = await res.text();
  const body = (text ? JSON.parse(text) : undefined) as T;
  // Every answer a test gets is checked against the published OpenAPI document.
  assertDocumented(init?.method ?? (init?.body !== undefined ? 'POST' : 'GET'), route, res.status, res.headers.get('content-type'), body);
  return { status: res.status, body };
}
