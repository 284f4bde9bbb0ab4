// The OpenAPI 3.1 document of the wire, generated from the schemas (zod-openapi):
// every route of rest.ts, and the WebSocket frames and events as named
// components (OpenAPI has no words for a socket's frames). Served at
// GET /api/openapi.json; never written by hand.
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject, type ZodOpenApiResponseObject } from 'zod-openapi';
import { z } from 'zod';
import { ClientFrameSchema } from './frames.js';
import { ErrorBodySchema, ROUTES, type Route } from './rest.js';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** `/api/sessions/:id` -> `/api/sessions/{id}` and its parameters' names. */
export function openApiPath(expressPath: string): { path: string; params: string[] } {
  const params: string[] = [];
  const path = expressPath.replace(/:(\w+)/g, (_m, name: string) => {
    params.push(name);
    return `{${name}}`;
  });
  return { path, params };
}

function operation(key: string, route: Route, params: string[]): ZodOpenApiOperationObject {
  const responses: Record<string, ZodOpenApiResponseObject> = {};
  for (const [status, reply] of Object.entries(route.responses)) {
    responses[status] = {
      description: reply.description,
      ...(reply.content && { content: Object.fromEntries(Object.entries(reply.content).map(([type, schema]) => [type, { schema }])) }),
    };
  }
  responses.default = {
    description: 'Any other refusal: 401 without the token, 403 from another Origin, 413 over 1 MiB, 507 when the log cannot record it.',
    content: { 'application/json': { schema: ErrorBodySchema } },
  };
  const path = params.length ? z.object(Object.fromEntries(params.map((p) => [p, z.string()]))) : undefined;
  return {
    operationId: key,
    summary: route.summary,
    tags: [route.tag],
    ...(route.open && { security: [] }),
    ...((path || route.query) && { requestParams: { ...(path && { path }), ...(route.query && { query: route.query }) } }),
    ...(route.body && {
      requestBody: { required: route.bodyRequired ?? true, content: { 'application/json': { schema: route.body } } },
    }),
    responses: responses as ZodOpenApiOperationObject['responses'],
  };
}

/** The document (built once: the schemas do not change while the server runs). */
export function openApiDocument(version: string): ReturnType<typeof createDocument> {
  const paths: ZodOpenApiPathsObject = {};
  for (const [key, route] of Object.entries(ROUTES) as [string, Route][]) {
    const [method, expressPath] = key.split(' ') as [string, string];
    const { path, params } = openApiPath(expressPath);
    paths[path] = { ...paths[path], [method.toLowerCase() as Method]: operation(key, route, params) };
  }
  return createDocument({
    openapi: '3.1.0',
    info: {
      title: 'skein',
      version,
      description:
        'The REST API of a skein server. Sessions stream on WebSockets: `/ws?session=ID&since=N` ' +
        '(client frames: ClientFrame; server frames: ServerFrame) and `/ws/sessions` (SessionListFrame). ' +
        'Every route needs the token (header `Authorization: Bearer`, or the cookie) except /healthz; a `?token=` in the URL is refused with 401 (only the UI page takes it).',
    },
    security: [{ bearer: [] }],
    paths,
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      // What a client sends on /ws (no operation carries it: a socket has no request body).
      schemas: { ClientFrame: ClientFrameSchema },
    },
  });
}
