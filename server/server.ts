// Starts skein: sessions, HTTP API and UI, WebSocket hub. Used by main.ts and
// by the tests, which start real servers on free ports.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Sessions } from './agent/sessions.js';
import type { Config } from './config.js';
import { createApp } from './http/app.js';
import { attachHub } from './http/ws-hub.js';

export const DEFAULT_UI_DIR = fileURLToPath(new URL('../dist/webui', import.meta.url));

export interface RunningServer {
  url: string;
  port: number;
  sessions: Sessions;
  warnings: string[];
  close(): Promise<void>;
}

export async function startServer(config: Config, uiDir = DEFAULT_UI_DIR): Promise<RunningServer> {
  const sessions = new Sessions(config);
  const warnings = sessions.loadAll();
  let port = config.port;
  const app = createApp({ sessions, uiDir, host: config.host, port: () => port });
  const server = http.createServer(app);
  const hub = attachHub(server, sessions, config.host, () => port);
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
    warnings,
    async close() {
      await hub.close();
      sessions.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
