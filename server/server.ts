// Starts skein: sessions, HTTP API and UI, WebSocket hub. Used by main.ts and
// by the tests, which start real servers on free ports.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { providerSettings } from './agent/model-switch.js';
import { Sessions, type SessionOptions } from './agent/sessions.js';
import type { Config } from './config.js';
import { Access } from './http/access.js';
import { createApp } from './http/app.js';
import { attachHub } from './http/ws-hub.js';
import { availableModels, resolveStartModel } from './llm/model-list.js';

export const DEFAULT_UI_DIR = fileURLToPath(new URL('../dist/webui', import.meta.url));

export interface RunningServer {
  url: string;
  port: number;
  sessions: Sessions;
  /** The model of new sessions (with only OPENAI_BASE_URL set: the first model that server lists). */
  model: string;
  /** The access token, when one is needed (non-loopback bind or SKEIN_TOKEN). */
  token: string | undefined;
  warnings: string[];
  close(): Promise<void>;
}

export async function startServer(given: Config, uiDir = DEFAULT_UI_DIR, options: SessionOptions = {}): Promise<RunningServer> {
  const config = { ...given, model: await resolveStartModel(given.model, providerSettings(given)) };
  const sessions = new Sessions(config, options);
  const warnings = sessions.loadAll();
  let port = config.port;
  const models = () => availableModels(providerSettings(config));
  const access = new Access(config.host, () => port, Access.tokenFor(config.host, config.token));
  const app = createApp({ sessions, uiDir, access, models, defaultModel: config.model });
  const server = http.createServer(app);
  const hub = attachHub(server, sessions, access);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  const shownHost = config.host.includes(':') ? `[${config.host}]` : config.host;
  return {
    url: `http://${shownHost}:${port}`,
    port,
    sessions,
    model: config.model,
    token: access.token,
    warnings,
    async close() {
      // Turns are cancelled and their last events reach the clients before the sockets close (1001).
      await sessions.close();
      await hub.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
