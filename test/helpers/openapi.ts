// Checks answers against the OpenAPI document the server publishes (the
// JSON Schemas in it, with ajv: not the zod schemas it was generated from, so
// a wrong document fails here). api() runs every answer it gets through
// `documentProblems`: each integration test that calls the REST API checks its
// answers against the document as a side effect. Routes the document does not
// know are left alone here; test/integration/openapi.test.ts fails for them.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { openApiDocument, openApiPath } from '../../shared/wire/openapi.js';
import { ROUTES, type Route } from '../../shared/wire/rest.js';

export const DOCUMENT = openApiDocument('test');

const ajv = new Ajv2020({ strict: false, allErrors: false });
ajv.addSchema(DOCUMENT as object, 'openapi');
const compiled = new Map<string, ValidateFunction>();

/** A validator for the schema at `pointer` (a JSON pointer into the document). */
function validatorAt(pointer: string): ValidateFunction {
  let validate = compiled.get(pointer);
  if (!validate) {
    validate = ajv.compile({ $ref: `openapi#${pointer}` });
    compiled.set(pointer, validate);
  }
  return validate;
}

const escape = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

interface Known {
  key: string;
  route: Route;
  path: string;
}
const KNOWN: (Known & { pattern: RegExp; params: number })[] = Object.entries(ROUTES as Record<string, Route>)
  .map(([key, route]) => {
    const expressPath = key.split(' ')[1]!;
    const { path, params } = openApiPath(expressPath);
    return { key, route, path, params: params.length, pattern: new RegExp(`^${expressPath.replace(/:\w+/g, '[^/]+')}$`) };
  })
  // `/api/sessions/:id` must not take `/api/workdirs`'s place: fixed paths first.
  .sort((a, b) => a.params - b.params);

/** The documented route an HTTP request reaches, if any. */
export function routeOf(method: string, url: string): Known | undefined {
  const pathname = new URL(url, 'http://x').pathname;
  return KNOWN.find((k) => k.key.startsWith(`${method.toUpperCase()} `) && k.pattern.test(pathname));
}

/** Every documented route and status an answer was checked for (test/integration/openapi.test.ts counts them). */
export const checked = new Set<string>();

/** What is wrong with an answer by the document: nothing (an empty list) when it fits, or its route is not documented. */
export function documentProblems(method: string, url: string, status: number, contentType: string | null, body: unknown): string[] {
  const known = routeOf(method, url);
  if (!known) return [];
  const operation = `/paths/${escape(known.path)}/${method.toLowerCase()}`;
  const responses = (DOCUMENT.paths?.[known.path] as Record<string, { responses: Record<string, { content?: Record<string, unknown> }> }>)[method.toLowerCase()]!.responses;
  const statusKey = responses[String(status)] ? String(status) : 'default';
  const content = responses[statusKey]!.content ?? {};
  const type = (contentType ?? '').split(';')[0]!.trim();
  checked.add(`${known.key} ${status}`);
  if (!(type in content)) return [`${method} ${url} ${status}: content type ${JSON.stringify(type)} is not one the document gives (${Object.keys(content).join(', ') || 'none'})`];
  if (type !== 'application/json') return [];
  const validate = validatorAt(`${operation}/responses/${statusKey}/content/${escape(type)}/schema`);
  if (validate(body)) return [];
  return (validate.errors ?? []).map((e) => `${method} ${url} ${status}: ${e.instancePath || '(body)'} ${e.message} ${JSON.stringify(e.params)}`);
}

/** What is wrong with an event by the document's SkeinEvent (closed objects: an undocumented field is wrong too). */
export function eventProblems(event: unknown): string[] {
  const validate = validatorAt('/components/schemas/SkeinEvent');
  if (validate(event)) return [];
  return (validate.errors ?? []).map((e) => `${(event as { kind?: string }).kind} event: ${e.instancePath || '(event)'} ${e.message} ${JSON.stringify(e.params)}`);
}

/** Throws with every problem, for use inside helpers. */
export function assertDocumented(method: string, url: string, status: number, contentType: string | null, body: unknown): void {
  const problems = documentProblems(method, url, status, contentType, body);
  if (problems.length) throw new Error(`the answer does not match the OpenAPI document (shared/wire):\n${problems.join('\n')}`);
}
