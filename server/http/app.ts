// The express app: REST API of the wire protocol, and the built web UI.
import { pageOf, parsePageQuery } from './event-page.js';
import fs from 'node:fs';
import path from 'node:path';
import express, { type NextFunction, type Request, type Response } from 'express';
import { MAX_FRAME_BYTES, type ModelEntry } from '../../shared/protocol.js';
import { ROUTES } from '../../shared/wire/rest.js';
import { addOpenApiRoute } from './openapi-route.js';
import { valid } from './validate.js';
import { LogWriteError } from '../agent/session.js';
import { ReadOnlySessionError } from '../cluster/remote-owner.js';
import type { Sessions } from '../sessions/sessions.js';
import { addSnippets } from '../sessions/search-snippets.js';
import { UnknownModelError } from '../llm/providers.js';
import { requestTokens } from '../llm/tokens.js';
import { isApiPath, parseRequestUrl, type Access } from './access.js';
import { addApprovalRoute } from './approval-route.js';
import { addMcpServersRoute } from './mcp-add-route.js';
import { addModeRoute } from './mode-route.js';
import { sendAuthScreen } from './auth-screen.js';
import { setSecurityHeaders } from './headers.js';
import { mountManageRoutes } from './manage-routes.js';
import { addTrustRoutes } from './trust-routes.js';
import { addProjectRoutes } from './project-routes.js';
import type { ProjectTrust } from '../trust/project-trust.js';
import { mountRewindRoutes } from './rewind-routes.js';
import { mountWorktreeRoutes } from './worktree-routes.js';
import { PROJECT_REMOVED, projectGone, stopWorkInRemovedProjects } from './project-gone.js';
import { mountImageRoute } from './image-route.js';
import { WorkspaceError } from '../workspace/workspace.js';
import { GitError } from '../workspace/git.js';
import type { ServerSettings } from '../../shared/protocol.js';
import { log } from '../log.js';
import { ImageError } from '../images/image-files.js';

export interface AppOptions {
  sessions: Sessions;
  uiDir: string;
  access: Access;
  /** GET /api/models: the models usable with the configured keys (absent: only `predictable`). */
  models?: () => Promise<ModelEntry[]>;
  /** The model of new sessions. */
  defaultModel?: string;
  /** GET /metrics (Prometheus text format), behind the same token as the API. */
  metrics?: { contentType: string; text(): Promise<string> };
  /** GET/POST /api/trust: the working folder's project files and the user's decisions on them. */
  trust?: ProjectTrust;
  /** GET /api/settings: what every session shares (a client compares the ones it was asked for). */
  serverSettings: ServerSettings;
  /** SKEIN_GIT_NETWORK_TIMEOUT_MS: a worktree's push is stopped after this long. */
  gitNetworkTimeoutMs?: number;
}

export function createApp({ sessions, uiDir, access, models, defaultModel, metrics, trust, serverSettings, gitNetworkTimeoutMs }: AppOptions): express.Express {
  const app = express();
  // No ETag on answers: hashing every JSON body (a session polled, the list) cost a busy server more than any client saved; static files keep theirs.
  app.set('etag', false);
  app.disable('x-powered-by');

  app.use((req, res, next) => {
    setSecurityHeaders(req, res);
    next();
  });
  app.use((req, res, next) => {
    if (req.path === '/healthz') return next();
    const verdict = access.check(req, req.method !== 'GET' && req.method !== 'HEAD');
    if (!verdict.ok) {
      const page = (req.method === 'GET' || req.method === 'HEAD') && !isApiPath(req.path) && req.accepts(['json', 'html']) === 'html';
      if (verdict.status === 401 && page) return sendAuthScreen(req, res, req.path, typeof req.query.token === 'string');
      res.status(verdict.status).json({ error: verdict.reason });
      return;
    }
    if (verdict.viaQuery) {
      // The token came in the page's URL once (only a page takes it): keep it in a cookie, and take it out of the address bar.
      res.setHeader('Set-Cookie', access.cookie(req));
      if (req.method === 'GET') {
        const url = parseRequestUrl(req.originalUrl) ?? new URL('http://localhost/');
        url.searchParams.delete('token');
        // One leading slash: `//host` would send the browser to another site.
        res.redirect(303, url.pathname.replace(/^\/+/, '/') + url.search);
        return;
      }
    }
    next();
  });
  app.use('/api', express.json({ limit: MAX_FRAME_BYTES, strict: false }));
  app.use('/api', (req, res, next) => {
    // Every API body is a JSON object (or absent).
    if (req.method === 'POST' && req.body !== undefined && (typeof req.body !== 'object' || req.body === null || Array.isArray(req.body))) {
      res.status(400).json({ error: 'the request body must be a JSON object' });
      return;
    }
    next();
  });

  app.get('/healthz', (_req, res) => {
    res.json({ ok: true });
  });
  addOpenApiRoute(app);

  app.get('/api/mcp', async (_req, res) => {
    // A decision `skein trust` wrote since is applied first.
    await trust?.sync();
    res.json({ servers: sessions.mcp?.list() ?? [] });
  });

  app.get('/api/sessions', async (req, res) => {
    const q = typeof req.query.q === 'string' ? req.query.q : undefined;
    const archived = req.query.archived === '1' || req.query.archived === 'true';
    const scanning = sessions.scanning;
    const rows = sessions.list({ archived, ...(q && { query: q }) });
    // Asked for (the web UI's list): a search's first results show the words around their match.
    if (q?.trim() && (req.query.snippets === '1' || req.query.snippets === 'true')) await addSnippets(sessions, rows, q);
    res.json({ sessions: rows, ...(scanning && { scanning }) });
  });

  app.post('/api/sessions', async (req, res) => {
    const body = valid(ROUTES['POST /api/sessions'].body, req.body ?? {}, res);
    if (!body) return;
    const { model, folder, worktree } = body;
    try {
      const { session } = await sessions.createIn(model, { ...(folder && { folder }), ...(worktree !== undefined && { worktree }) });
      // The database store inserts the session's row with its first group: answered once it is.
      await session.log.flushed?.();
      res.status(201).json({ id: session.id });
    } catch (err) {
      if (err instanceof UnknownModelError || err instanceof WorkspaceError || err instanceof GitError) res.status(400).json({ error: err.message });
      else throw err;
    }
  });

  mountManageRoutes(app, sessions);
  mountRewindRoutes(app, sessions);
  mountWorktreeRoutes(app, sessions, { ...(gitNetworkTimeoutMs !== undefined && { gitNetworkTimeoutMs }) });
  mountImageRoute(app, sessions);
  // A project removed from the list: its sessions' running turns stop (nothing more runs in that folder).
  stopWorkInRemovedProjects(sessions);

  app.get('/api/settings', (_req, res) => {
    res.json(serverSettings);
  });

  app.get('/api/models', async (_req, res) => {
    res.json({ models: models ? await models() : [], default: defaultModel ?? 'predictable' });
  });

  app.post('/api/sessions/:id/model', async (req, res) => {
    const live = await sessions.open(req.params.id);
    if (!live) return notFound(res);
    const body = valid(ROUTES['POST /api/sessions/:id/model'].body, req.body ?? {}, res);
    if (!body) return;
    const { effort } = body;
    // The effort alone may change: the model then stays.
    const model = body.model ?? (effort !== undefined ? live.session.model : undefined);
    if (model === undefined) {
      res.status(400).json({ error: '"model" must be a string' });
      return;
    }
    try {
      live.agent.switchModel(model.trim(), effort);
      res.status(202).json({ accepted: true, model: model.trim(), ...(effort !== undefined && { effort }) });
    } catch (err) {
      if (err instanceof UnknownModelError) res.status(400).json({ error: err.message });
      else throw err;
    }
  });

  app.get('/api/sessions/:id', async (req, res) => {
    const live = await sessions.open(req.params.id);
    if (!live) return notFound(res);
    res.json(live.session.snapshot());
  });

  app.get('/api/sessions/:id/events', async (req, res) => {
    const query = parsePageQuery(req.query as Record<string, unknown>);
    if (typeof query === 'string') {
      if (!sessions.index.has(req.params.id) && !(await sessions.open(req.params.id))) return notFound(res);
      res.status(400).json({ error: query });
      return;
    }
    // PostgreSQL: the page is cut by seq in SQL; JSONL: from the loaded log.
    const page = await sessions.page(req.params.id, query, pageOf);
    if (!page) return notFound(res);
    res.json(page);
  });

  app.get('/api/sessions/:id/view', async (req, res) => {
    const live = await sessions.open(req.params.id);
    if (!live) return notFound(res);
    const request = live.agent.nextRequest();
    res.json({ messages: [{ role: 'system', content: request.system }, ...request.messages], tokens: requestTokens(request), estimate: live.agent.estimateNext() });
  });

  app.post('/api/sessions/:id/messages', async (req, res) => {
    const live = await sessions.open(req.params.id);
    if (!live) return notFound(res);
    const body = valid(ROUTES['POST /api/sessions/:id/messages'].body, req.body ?? {}, res);
    if (!body) return;
    const { text, images } = body;
    const gone = projectGone(sessions, live);
    if (gone) return void res.status(409).json({ error: gone, code: PROJECT_REMOVED });
    // Another instance's session: acknowledged once it is in the owner's inbox.
    try {
      await live.session.userMessage(text, images);
    } catch (err) {
      if (err instanceof ImageError) return void res.status(400).json({ error: err.message });
      throw err;
    }
    // Acknowledged once the message is durable (group commit).
    await live.session.durable();
    res.status(202).json({ accepted: true });
  });

  app.post('/api/sessions/:id/compact', async (req, res) => {
    const live = await sessions.open(req.params.id);
    if (!live) return notFound(res);
    const body = valid(ROUTES['POST /api/sessions/:id/compact'].body, req.body ?? {}, res);
    if (!body) return;
    const { instructions } = body;
    const gone = projectGone(sessions, live);
    if (gone) return void res.status(409).json({ error: gone, code: PROJECT_REMOVED });
    await live.session.requestCompaction({ trigger: 'manual', ...(instructions ? { instructions } : {}) });
    res.status(202).json({ accepted: true });
  });

  app.post('/api/sessions/:id/cancel', async (req, res) => {
    const live = await sessions.open(req.params.id);
    if (!live) return notFound(res);
    await live.session.cancel();
    res.status(202).json({ accepted: true });
  });

  addApprovalRoute(app, sessions);
  addMcpServersRoute(app, sessions);
  addModeRoute(app, sessions);
  addTrustRoutes(app, trust);
  addProjectRoutes(app, sessions);
  if (metrics) {
    app.get('/metrics', async (_req, res) => {
      res.type(metrics.contentType).send(await metrics.text());
    });
  }

  app.use('/api', (_req, res) => {
    res.status(404).json({ error: 'no such endpoint' });
  });

  // The web UI: built files, and index.html for client-side routes like /s/<id>.
  app.use(express.static(uiDir, { index: 'index.html', dotfiles: 'deny' }));
  app.get(['/', '/s/:id'], (_req, res) => {
    const index = path.join(uiDir, 'index.html');
    if (fs.existsSync(index)) res.sendFile(index);
    else res.status(503).type('text/plain').send('The web UI is not built: run `npm run build` (npm start does it for you).');
  });

  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    if (err instanceof ReadOnlySessionError) {
      res.status(409).json({ error: err.message });
      return;
    }
    if (err instanceof LogWriteError) {
      res.status(507).json({ error: `not recorded: could not write the session log (${err.message})` });
      return;
    }
    const status = (err as { status?: number; statusCode?: number }).status ?? (err as { statusCode?: number }).statusCode ?? 500;
    const message =
      status === 413 ? `request body over the ${MAX_FRAME_BYTES}-byte limit` : status === 400 ? 'request body is not valid JSON' : 'internal error';
    if (status >= 500) log.error(`request failed: ${_req.method} ${_req.path}`, { error: err });
    res.status(status).json({ error: message });
  });
  return app;
}

function notFound(res: Response): void {
  res.status(404).json({ error: 'unknown session' });
}

