// The projects (server/projects/): GET /api/projects lists them with the
// pending requests to add one; POST /api/projects {folder} adds a folder the
// user typed (web UI); DELETE /api/projects?folder= removes one.
// POST /api/projects/requests {folder} asks the user to add a folder (an
// editor's session/new through `skein acp`); POST /api/projects/requests/:id
// {decision} is the user's answer (the editor's or a web UI tab's, whichever
// first: 409 for the second); GET /api/projects/requests/:id?wait=<s> answers
// once it is decided or after that many seconds; DELETE /api/projects/requests/:id
// withdraws it (the editor gave up), as does nobody waiting on it for 15 s. Behind the same token and
// origin checks as every route (app.ts): only the user's clients reach them.
import type express from 'express';
import type { Response } from 'express';
import { ROUTES } from '../../shared/wire/rest.js';
import type { Sessions } from '../sessions/sessions.js';
import { ProjectError } from '../projects/projects.js';
import { RequestDecidedError } from '../projects/project-requests.js';
import { valid } from './validate.js';

/** The longest a GET ?wait= holds (a client asks again). */
const MAX_WAIT_S = 60;

export function addProjectRoutes(app: express.Express, sessions: Sessions): void {
  const { projects, projectRequests } = sessions;
  const listing = () => ({ projects: projects.list(), requests: projectRequests.pending() });

  app.get('/api/projects', (_req, res) => {
    res.json(listing());
  });

  app.post('/api/projects', (req, res) => {
    const body = valid(ROUTES['POST /api/projects'].body, req.body ?? {}, res);
    if (!body) return;
    refusedOr(res, () => {
      const folder = projects.add(body.folder);
      res.status(201).json({ folder, ...listing() });
    });
  });

  app.delete('/api/projects', (req, res) => {
    const query = valid(ROUTES['DELETE /api/projects'].query, req.query, res);
    if (!query) return;
    const setting = projects.list().find((p) => p.folder === query.folder && p.setting);
    const removed = projects.remove(query.folder);
    if (setting) return void res.status(409).json({ error: `${query.folder} is one of the folders this server was started with (SKEIN_WORKDIR): it stays until the server runs without it` });
    if (!removed) return void res.status(404).json({ error: `${query.folder} is not one of the projects` });
    res.json(listing());
  });

  app.post('/api/projects/requests', (req, res) => {
    const body = valid(ROUTES['POST /api/projects/requests'].body, req.body ?? {}, res);
    if (!body) return;
    refusedOr(res, () => res.status(201).json({ request: projectRequests.ask(body.folder, body.from ?? 'an editor'), tabs: projectRequests.tabsOpen() }));
  });

  app.post('/api/projects/requests/:id', (req, res) => {
    const body = valid(ROUTES['POST /api/projects/requests/:id'].body, req.body ?? {}, res);
    if (!body) return;
    try {
      const request = refusedOr(res, () => projectRequests.decide(req.params.id, body.decision));
      if (res.headersSent) return;
      if (!request) return void res.status(404).json({ error: 'no such request' });
      res.json({ request });
    } catch (err) {
      if (err instanceof RequestDecidedError) return void res.status(409).json({ error: err.message, request: err.request });
      throw err;
    }
  });

  app.delete('/api/projects/requests/:id', (req, res) => {
    const request = projectRequests.withdraw(req.params.id);
    if (!request) return void res.status(404).json({ error: 'no such request' });
    res.json({ request });
  });

  app.get('/api/projects/requests/:id', async (req, res) => {
    const query = valid(ROUTES['GET /api/projects/requests/:id'].query, req.query, res);
    if (!query) return;
    const seconds = Math.min(Number(query.wait ?? 0), MAX_WAIT_S);
    const request = await projectRequests.wait(req.params.id, seconds * 1000);
    if (!request) return void res.status(404).json({ error: 'no such request' });
    res.json({ request });
  });
}

/** Runs `act`; a folder that cannot be a project is a 400 with the reason. */
function refusedOr<T>(res: Response, act: () => T): T | undefined {
  try {
    return act();
  } catch (err) {
    if (err instanceof ProjectError) return void res.status(400).json({ error: err.message });
    throw err;
  }
}
