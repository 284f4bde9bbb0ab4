// Starts skein: sessions, HTTP API and UI, WebSocket hub. Used by main.ts and
// by the tests, which start real servers on free ports.
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { providerSettings } from './agent/model-switch.js';
import { Sessions, type SessionOptions } from './sessions/sessions.js';
import type { Config } from './config.js';
import { Access } from './http/access.js';
import { PgStore } from './store/postgres/pg-store.js';
import { Cluster } from './cluster/leases.js';
import { ClusterRoles } from './cluster/cluster-roles.js';
import { createApp } from './http/app.js';
import { loadOrCreateToken } from './http/token-file.js';
import { attachHub, type HubOptions } from './http/ws-hub.js';
import { availableModels, resolveStartModel } from './llm/model-list.js';
import { probeSandbox, sandboxSettingsOf } from './tools/sandbox.js';
import { urlSecrets } from './tools/env.js';
import { startMcp } from './mcp/start.js';
import { SkeinMetrics } from './metrics/metrics.js';
import { eventObserver } from './metrics/observe-events.js';
import { log } from './log.js';
import { lockDataDir, type DataDirLock } from './lock/data-dir-lock.js';
import type { Express } from 'express';

// From the source (server/server.ts) the built UI is ../dist/webui; compiled (dist/server/server.js), ../webui.
export const DEFAULT_UI_DIR = fileURLToPath(new URL(import.meta.url.endsWith('.js') ? '../webui' : '../dist/webui', import.meta.url));

export interface RunningServer {
  url: string;
  port: number;
  sessions: Sessions;
  metrics: SkeinMetrics;
  /** The express app (its routes are checked against the OpenAPI document). */
  app: Express;
  /** The model of new sessions (with only OPENAI_BASE_URL set: the first model that server lists). */
  model: string;
  /** The access token (SKEIN_TOKEN, else the one in <data dir>/token); undefined only with SKEIN_AUTH=off. */
  token: string | undefined;
  warnings: string[];
  close(): Promise<void>;
}

/** How this server runs: `embedded` in a CLI command (the lock says so: another command does not drive it). */
export interface StartOptions {
  embedded?: boolean;
}

export async function startServer(given: Config, uiDir = DEFAULT_UI_DIR, options: SessionOptions = {}, hubOptions: HubOptions = {}, start: StartOptions = {}): Promise<RunningServer> {
  // Refused before anything starts: bash never runs unconfined when a sandbox was asked for.
  const sandbox = sandboxSettingsOf(given);
  if (sandbox) probeSandbox(sandbox, given.workDir);
  const config = { ...given, model: await resolveStartModel(given.model, providerSettings(given)) };
  // Before anything in the data folder is read or written: one server per folder (DataDirLockedError names the other).
  const lock = await lockDataDir(config.dataDir, { embedded: start.embedded === true });
  try {
    return await startLocked(config, uiDir, options, hubOptions, lock);
  } catch (err) {
    await lock.release();
    throw err;
  }
}

async function startLocked(config: Config, uiDir: string, options: SessionOptions, hubOptions: HubOptions, lock: DataDirLock): Promise<RunningServer> {
  const warnings: string[] = lock.warning ? [lock.warning] : [];
  const token = accessToken(config, warnings);
  // The token reaches no tool's environment; if a tool still prints it (read from the token file), it is masked,
  // as is the database's password (SKEIN_DATABASE_URL may come as a flag, outside the environment's own mask).
  const toolSecrets = [
    ...(options.toolSecrets ?? []),
    ...(token ? [{ name: 'skein access token', value: token }] : []),
    ...urlSecrets('SKEIN_DATABASE_URL', config.databaseUrl),
  ];
  // A bad SKEIN_MCP_CONFIG throws McpConfigError here, before anything starts; a project's .mcp.json starts only once trusted.
  const { hub: mcp, trust } = await startMcp(config);
  const metrics = new SkeinMetrics();
  const observe = eventObserver(metrics, { modelOf: (id) => sessions.peek(id)?.session.model, summarizerModel: config.summarizerModel });
  const onEvent = options.onEvent;
  // SKEIN_DATABASE_URL: events in PostgreSQL (migrated and read before the sessions load).
  const database = config.databaseUrl ? await PgStore.connect(config.databaseUrl, path.join(config.dataDir, 'sessions')) : undefined;
  // Other instances may share the database: each session runs on the one holding its lease.
  const cluster = database
    ? new ClusterRoles(new Cluster(database.pool, database.url, config.leaseTimeoutMs ?? 5000, config.dataDir), database, {
        roots: [...(config.workDirs?.length ? config.workDirs : [config.workDir]), config.dataDir],
      })
    : undefined;
  if (database && cluster) database.leaseOwner = cluster.cluster.instance;
  const sessions = new Sessions(config, {
    ...options,
    toolSecrets,
    mcp,
    ...(database && { database }),
    ...(cluster && { cluster }),
    onEvent: (id, event) => {
      observe(id, event);
      onEvent?.(id, event);
    },
  });
  await cluster?.start(sessions);
  // PostgreSQL: the list from the summaries table, reading no event (see database-sessions.ts).
  warnings.push(...(database ? await sessions.loadFromDatabase() : sessions.loadAll()));
  let port = config.port;
  const models = () => availableModels(providerSettings(config));
  const access = new Access(config.host, () => port, token);
  const serverSettings = { sandbox: config.sandbox, sandboxNetwork: config.sandboxNetwork, sandboxRead: config.sandboxRead, worktreeDefault: config.worktreeDefault === true };
  const app = createApp({ sessions, uiDir, access, models, defaultModel: config.model, metrics, trust, serverSettings, ...(config.gitNetworkTimeoutMs !== undefined && { gitNetworkTimeoutMs: config.gitNetworkTimeoutMs }) });
  const server = http.createServer(app);
  guardSockets(server);
  const hub = attachHub(server, sessions, access, hubOptions);
  metrics.connect({ sessions: () => sessions.list(), websocketClients: () => hub.clients() });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err) => {
      trust.close();
      void mcp.close().finally(() => reject(err));
    });
    server.listen(config.port, config.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  // After listening, an error (e.g. too many open files on accept) is reported, never fatal.
  server.on('error', (err) => log.error('server error', { error: err.message }));
  port = (server.address() as AddressInfo).port;
  const shownHost = config.host.includes(':') ? `[${config.host}]` : config.host;
  const url = `http://${shownHost}:${port}`;
  lock.serving(url);
  return {
    url,
    port,
    sessions,
    metrics,
    app,
    model: config.model,
    token,
    warnings,
    async close() {
      try {
        // Turns are cancelled and their last events reach the clients before the sockets close (1001).
        await sessions.close();
        // MCP server processes end with skein (stdio children are stopped; anything they started is swept on exit).
        trust.close();
        await mcp.close();
        // The leases go at once: another instance takes the sessions over at its next heartbeat.
        await cluster?.stop();
        await database?.close();
        await hub.close();
        metrics.close();
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      } finally {
        // Last: nothing of this server writes to the folder any more.
        await lock.release();
      }
    },
  };
}

function accessToken(config: Config, warnings: string[]): string | undefined {
  if (!config.auth) {
    warnings.push('SKEIN_AUTH=off: no access token is asked; any local user or process can drive the agent (run bash as you)');
    return undefined;
  }
  if (config.token) return config.token;
  const stored = loadOrCreateToken(config.dataDir);
  if (stored.warning) warnings.push(stored.warning);
  return stored.token;
}

/** No peer may end the process: a socket error only ever closes that socket. */
function guardSockets(server: http.Server): void {
  server.on('connection', (socket) => socket.on('error', () => socket.destroy()));
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    // Node's own answer, made safe: a reset peer gets nothing; a malformed request gets 400.
    if (err.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
    const status = err.code === 'HPE_HEADER_OVERFLOW' ? '431 Request Header Fields Too Large' : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? '408 Request Timeout' : '400 Bad Request';
    socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
  });
}
