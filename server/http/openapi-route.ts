// GET /api/openapi.json: the OpenAPI 3.1 document of the REST API, generated
// from the wire's schemas (shared/wire/openapi.ts) once, on the first request.
import fs from 'node:fs';
import type express from 'express';
import { openApiDocument } from '../../shared/wire/openapi.js';

let document: string | undefined;

/** skein's version, from the package.json beside the sources (or dist/). */
function version(): string {
  for (const file of ['../../package.json', '../../../package.json']) {
    try {
      return (JSON.parse(fs.readFileSync(new URL(file, import.meta.url), 'utf8')) as { version: string }).version;
    } catch {
      // Not at this depth: the other one (dist/server/http is one folder deeper).
    }
  }
  return '0.0.0';
}

export function addOpenApiRoute(app: express.Express): void {
  app.get('/api/openapi.json', (_req, res) => {
    document ??= JSON.stringify(openApiDocument(version()));
    res.type('application/json').send(document);
  });
}
