// The reference part of docs/wire-protocol.md, from the zod schemas of
// shared/wire/: every event kind with its fields, every WebSocket frame, and
// every REST route with its answers.
import { z } from 'zod';
import { EVENT_SCHEMAS } from '../../shared/wire/events.js';
import { CLIENT_FRAME_SCHEMAS, LIST_FRAME_SCHEMAS, SERVER_FRAME_SCHEMAS } from '../../shared/wire/frames.js';
import { ROUTES, type Route } from '../../shared/wire/rest.js';
import { fieldTable } from './zod-type.js';

function eventsSection(): string[] {
  const out = ['### Events', '', 'Every event has `seq` (gap-free from 1 per session), `ts` (ISO 8601) and `kind`. Clients skip kinds they do not know.', ''];
  for (const schema of EVENT_SCHEMAS) {
    const kind = (schema.shape.kind as z.ZodLiteral).value as string;
    out.push(`#### \`${kind}\``, '', z.globalRegistry.get(schema)?.description ?? '', '');
    const table = fieldTable(schema, ['seq', 'ts', 'kind']);
    out.push(...(table.length ? table : ['No fields of its own.']), '');
  }
  return out;
}

function framesSection(title: string, intro: string, schemas: readonly z.ZodObject[]): string[] {
  const out = [`### ${title}`, '', intro, ''];
  for (const schema of schemas) {
    const type = (schema.shape.type as z.ZodLiteral).value as string;
    out.push(`#### \`${type}\``, '');
    const table = fieldTable(schema, ['type']);
    out.push(...(table.length ? table : ['No fields besides `type`.']), '');
  }
  return out;
}

function routesSection(): string[] {
  const out = ['### REST routes', '', 'Every route needs the token (`Authorization: Bearer`, or the cookie) unless marked open; a `?token=` in the URL is refused with 401 (only the UI page, `/?token=`, takes it: see [Who may drive it](sandbox-and-security.md#safety)). The bodies and answers are in the OpenAPI document (`GET /api/openapi.json`).', '', '| route | what | answers |', '|---|---|---|'];
  for (const [key, route] of Object.entries(ROUTES) as [string, Route][]) {
    const answers = Object.entries(route.responses).map(([status, reply]) => `${status}: ${reply.description}`).join(' ').replaceAll('|', '\\|');
    out.push(`| \`${key}\`${route.open ? ' (open)' : ''}${route.socket ? ' (WebSocket)' : ''} | ${route.summary.replaceAll('|', '\\|')} | ${answers} |`);
  }
  return [...out, ''];
}

export function wireReference(): string {
  return [
    ...eventsSection(),
    ...framesSection('Client frames (`/ws?session=ID`)', 'What a client sends on a session\'s socket.', CLIENT_FRAME_SCHEMAS),
    ...framesSection('Server frames (`/ws?session=ID`)', 'What the server sends on a session\'s socket.', SERVER_FRAME_SCHEMAS),
    ...framesSection('List frames (`/ws/sessions`)', 'What the server sends on the list socket; clients send nothing.', LIST_FRAME_SCHEMAS),
    ...routesSection(),
  ].join('\n').trimEnd();
}
