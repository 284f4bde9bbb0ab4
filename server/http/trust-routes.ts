// GET /api/trust: the project files that would make skein run something (a
// working folder's .mcp.json), what each would run, and the user's decision.
// POST /api/trust {folder, file?, hash, decision: "trust" | "ignore" | "revoke"}:
// the decision on the content with that sha256. 200 with the file as it is
// now; 400 for a bad body; 404 for a file that is not one of this skein's;
// 409 when the file changed since it was shown (the hash is stale); 422 when
// it cannot be trusted as it is (it does not parse). Behind the same token
// and origin checks as every route (app.ts).
import type express from 'express';
import type { ProjectTrust } from '../trust/project-trust.js';
import { ROUTES } from '../../shared/wire/rest.js';
import { valid } from './validate.js';
import { StaleTrustError, TrustRequestError } from '../trust/project-trust.js';
import { TrustStoreError } from '../trust/store.js';

export function addTrustRoutes(app: express.Express, trust: ProjectTrust | undefined): void {
  app.get('/api/trust', async (_req, res) => {
    res.json({ files: trust ? await trust.list() : [] });
  });

  app.post('/api/trust', async (req, res) => {
    const body = valid(ROUTES['POST /api/trust'].body, req.body ?? {}, res);
    if (!body) return;
    const { folder, file, hash, decision } = body;
    if (!trust) return void res.status(404).json({ error: 'this skein has no project files to trust' });
    try {
      const now = await trust.decide(folder, file, typeof hash === 'string' ? hash : '', decision);
      res.json({ file: now ?? null });
    } catch (err) {
      if (err instanceof StaleTrustError) return void res.status(409).json({ error: err.message });
      if (err instanceof TrustRequestError) return void res.status(err.status).json({ error: err.message });
      if (err instanceof TrustStoreError) return void res.status(500).json({ error: err.message });
      throw err;
    }
  });
}
