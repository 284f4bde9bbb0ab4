// The ACP agent: `initialize`, `session/new` (the editor's folder becomes the
// session's, once it is one of the user's projects, asked for if need be: project-request.ts;
// its MCP servers join the user's), `session/load` (the history
// replayed as updates), `session/prompt` (slash commands handled here,
// everything else sent to skein as the user's message), `session/cancel` and
// `session/set_mode`. Every request goes to a skein server over its REST API
// and WebSocket, as the web UI's do. A server-wide setting the running server
// does not have (connection.refused) fails session/new and session/load with
// the refusal, so the editor shows it rather than an agent that crashed.
import { agent, PROTOCOL_VERSION, RequestError, type AgentApp, type AgentContext, type ClientCapabilities } from '@agentclientprotocol/sdk';
import type { Api } from '../cli/api.js';
import type { Connection } from '../cli/connection.js';
import { CliError, EXIT } from '../cli/exit-codes.js';
import { applySessionSettings, refusedSetting } from '../cli/session-settings.js';
import { log } from '../log.js';
import { parseSlash } from './commands.js';
import { mcpConfigOf } from './mcp-servers.js';
import { promptContent } from './prompt-content.js';
import { runSlash } from './slash.js';
import { ensureProject } from './project-request.js';
import { AcpSession } from './session.js';
import { isUnknownSession, SessionMap } from './session-map.js';
import { trustHint, untrustedFilesFor } from './trust-hint.js';

const VERSION = '0.1.0';

export interface AcpAgent {
  app: AgentApp;
  /** Closes every session's stream. */
  close(): void;
}

export function createAcpAgent(connection: Connection, api: Api): AcpAgent {
  const sessions = new SessionMap<AcpSession>();
  let capabilities: ClientCapabilities = {};

  const session = (id: string): AcpSession => {
    const found = sessions.get(id);
    if (!found) throw RequestError.sessionNotFound(id);
    return found;
  };

  /** Opens (or reopens) the ACP side of a skein session, once it has the mode, model and effort this agent was asked for. */
  const attach = async (id: string, client: AgentContext, replay: boolean): Promise<AcpSession> => {
    // The editor's SKEIN_APPROVAL (or model) takes effect, read back, or the session is refused: never the server's silently.
    await applySessionSettings(api, id, connection.settings);
    const opened = sessions.replace(id, () => new AcpSession(id, { connection, api, client, compactionUpdates: Boolean(capabilities.session?.compaction) }));
    await opened.open(replay);
    return opened;
  };

  /** A server-wide setting the running server does not have (connection.ts): no session is made or opened, and the editor shows why. */
  const refuseIfRefused = (): void => {
    if (connection.refused) throw refusal(connection.refused);
  };

  /** Sessions told about an untrusted project file (once each). */
  const hinted = new Set<string>();
  /** After the session's first updates: a project .mcp.json that is not trusted is said, with how to trust it (nothing of it runs). */
  const hintUntrusted = async (opened: AcpSession): Promise<void> => {
    if (hinted.has(opened.id)) return;
    hinted.add(opened.id);
    const files = await untrustedFilesFor(api, opened.workDir()).catch((err: unknown) => {
      log.warn(`acp: the project's trust could not be read: ${err instanceof Error ? err.message : String(err)}`, { session: opened.id });
      return [];
    });
    if (!files.length || opened.closed) return;
    const untrustedProjectFiles = files.map((f) => ({ path: f.path, folder: f.folder, status: f.status, sha256: f.sha256, servers: f.servers.map((s) => s.name) }));
    await opened.say(trustHint(files, connection.embedded ? undefined : connection.url), { untrustedProjectFiles });
  };

  const opened = (session: AcpSession): void => {
    setImmediate(() => {
      session.afterOpen(Boolean(connection.settings.mode));
      void hintUntrusted(session);
    });
  };

  const addMcpServers = async (servers: Parameters<typeof mcpConfigOf>[0]): Promise<void> => {
    const body = mcpConfigOf(servers, (message) => log.warn(`acp: ${message}`));
    if (body) await api.request('POST', '/api/mcp/servers', body);
  };

  const app = agent({ name: 'skein' })
    .onRequest('initialize', ({ params }) => {
      capabilities = params.clientCapabilities ?? {};
      return {
        protocolVersion: PROTOCOL_VERSION,
        agentInfo: { name: 'skein', title: 'skein', version: VERSION },
        agentCapabilities: {
          loadSession: true,
          // Images go to the model with the message (each provider's own shape); no audio; an attached file (embedded context) is quoted in the message.
          promptCapabilities: { image: true, audio: false, embeddedContext: true },
          mcpCapabilities: { http: true, sse: false },
        },
        authMethods: [],
      };
    })
    .onRequest('session/new', async ({ params, client, signal }) => {
      refuseIfRefused();
      // A folder the running server does not work in yet: the user is asked (in the editor and the web UI).
      await ensureProject(api, client, params.cwd, signal).catch(rethrow);
      await addMcpServers(params.mcpServers).catch(rethrow);
      const model = connection.settings.model;
      const { id } = await api
        .request<{ id: string }>('POST', '/api/sessions', { folder: params.cwd, ...(connection.model && { model: connection.model }) })
        .catch((err: unknown): never => (model ? refusedSetting(model, err) : rethrow(err)))
        .catch(rethrow);
      const session = await attach(id, client, false).catch(rethrow);
      opened(session);
      return { sessionId: id, modes: session.modes() };
    })
    .onRequest('session/load', async ({ params, client }) => {
      refuseIfRefused();
      await addMcpServers(params.mcpServers).catch(rethrow);
      const session = await attach(params.sessionId, client, true).catch((err: unknown) => {
        if (isUnknownSession(err)) throw RequestError.sessionNotFound(params.sessionId);
        return rethrow(err);
      });
      opened(session);
      return { modes: session.modes() };
    })
    .onRequest('session/prompt', async ({ params }) => {
      const target = session(params.sessionId);
      const { text, images } = promptContent(params.prompt);
      if (!text && !images.length) throw RequestError.invalidParams(undefined, 'the prompt is empty');
      const slash = images.length ? undefined : parseSlash(text);
      if (slash && slash.name !== 'compact') {
        await runSlash(slash, target, api, connection).catch(rethrow);
        return { stopReason: 'end_turn' };
      }
      // A plain message, or /compact [focus], which the server reads from the message itself.
      const stopReason = await target.prompt(text, images);
      return { stopReason, ...(target.gauge && { _meta: { skein: { gauge: target.gauge } } }) };
    })
    .onNotification('session/cancel', async ({ params }) => {
      await sessions
        .get(params.sessionId)
        ?.cancel()
        .catch((err: unknown) => log.warn(`acp: cancel failed: ${err instanceof Error ? err.message : String(err)}`, { session: params.sessionId }));
    })
    .onRequest('session/set_mode', async ({ params }) => {
      await session(params.sessionId).setMode(params.modeId).catch(rethrow);
      return {};
    });

  return {
    app,
    close() {
      sessions.closeAll();
    },
  };
}

/** A setting asked for that cannot take effect (exit 10 for `skein run`): its own message, as the editor shows it, and the exit status in `data`. */
function refusal(err: CliError): RequestError {
  return new RequestError(-32603, err.message, { skein: { exitCode: err.code } });
}

/** A failure of the skein server as a JSON-RPC error the editor shows (a bad request stays invalid params). */
function rethrow(err: unknown): never {
  if (err instanceof RequestError) throw err;
  if (err instanceof CliError && err.code === EXIT.settingRefused) throw refusal(err);
  if (err instanceof CliError && err.code === 2) throw RequestError.invalidParams(undefined, err.message);
  throw RequestError.internalError(undefined, err instanceof Error ? err.message : String(err));
}
