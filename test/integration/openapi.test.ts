// The wire's one schema (shared/wire) against the real server: the OpenAPI
// document it serves is valid OpenAPI 3.1 and names every route the express
// app registers; every route, driven through a real session with the
// predictable model (tool calls, an approval, a plan, a compaction, a fork, a
// rewind, the trash), answers what the document says; every event and frame
// the session produced fits the document's schemas; bad frames are refused
// with a sentence.
import fs from 'node:fs';
import path from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import type { Express } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SkeinEvent } from '../../shared/protocol.js';
import { SkeinEventSchema } from '../../shared/wire/events.js';
import { openApiPath } from '../../shared/wire/openapi.js';
import { ROUTES, type Route } from '../../shared/wire/rest.js';
import { untilAsked } from '../helpers/approvals.js';
import { authHeaders } from '../helpers/auth.js';
import { checked, DOCUMENT, documentProblems, eventProblems } from '../helpers/openapi.js';
import { api, startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { TestClient } from '../helpers/ws-client.js';
import { storedEvents } from '../helpers/stored-events.js';
import { png } from '../helpers/images.js';

let server: TestServer;
let client: TestClient;
let id: string;

beforeAll(async () => {
  server = await startTestServer({ SKEIN_APPROVAL: 'on-write' });
  id = (await api<{ id: string }>(server.url, '/api/sessions', { body: {} })).body.id;
  client = await TestClient.connect(server.url, id);
});
afterAll(async () => {
  client?.close();
  await server?.close();
});

/** The session's events as its store holds them: the JSONL log file's lines, or the database's rows (npm run test:postgres). */

/** `METHOD /path` of every route the app registers (Express 5: app.router.stack). */
function registeredRoutes(app: Express): string[] {
  const stack = (app as unknown as { router: { stack: { route?: { path: string | string[]; methods: Record<string, boolean> } }[] } }).router.stack;
  return stack.flatMap((layer) => {
    if (!layer.route) return [];
    const paths = Array.isArray(layer.route.path) ? layer.route.path : [layer.route.path];
    const methods = Object.keys(layer.route.methods).filter((m) => m !== '_all');
    return paths.flatMap((p) => methods.map((m) => `${m.toUpperCase()} ${p}`));
  });
}

/** A non-JSON (or any) answer fetched directly, checked against the document. */
async function raw(method: string, route: string): Promise<{ status: number; type: string | null; text: string }> {
  const res = await fetch(server.url + route, { method, headers: authHeaders(server.url) });
  const text = await res.text();
  const type = res.headers.get('content-type');
  const body = type?.startsWith('application/json') ? JSON.parse(text) : text;
  expect(documentProblems(method, route, res.status, type, body)).toEqual([]);
  return { status: res.status, type, text };
}

let turns = 0;
function say(text: string) {
  turns++;
  client.send({ type: 'user_message', text });
}

describe('the OpenAPI document', () => {
  it('is valid OpenAPI 3.1, and GET /api/openapi.json serves exactly it', async () => {
    const result = await new Validator().validate(DOCUMENT as unknown as Parameters<Validator['validate']>[0]);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(DOCUMENT.openapi).toBe('3.1.0');
    const served = await api<Record<string, unknown>>(server.url, '/api/openapi.json');
    expect(served.status).toBe(200);
    expect({ ...served.body, info: { ...(served.body.info as object), version: 'test' } }).toEqual(JSON.parse(JSON.stringify(DOCUMENT)));
    // A refused document would fail here too: a known-bad one is refused by the validator.
    expect((await new Validator().validate({ openapi: '3.1.0', info: { title: 'x' }, paths: {} })).valid).toBe(false);
  });

  it('names every route the express app registers, with its method, and only those (sockets aside)', () => {
    const registered = registeredRoutes(server.app);
    expect(registered.length).toBeGreaterThan(20);
    const documented = Object.entries(ROUTES as Record<string, Route>).filter(([, r]) => !r.socket).map(([key]) => key);
    expect(registered.filter((r) => !documented.includes(r)), 'routes missing from shared/wire/rest.ts').toEqual([]);
    expect(documented.filter((d) => !registered.includes(d)), 'documented routes the app does not have').toEqual([]);
    for (const key of documented) {
      const [method, expressPath] = key.split(' ') as [string, string];
      expect(DOCUMENT.paths?.[openApiPath(expressPath).path]?.[method.toLowerCase() as 'get'], key).toBeDefined();
    }
  });
});

describe('a real session, route by route', () => {
  it('answers every route as the document says, and every event and frame fits its schema', async () => {
    const session = `/api/sessions/${id}`;
    // A plan, then a write that waits for approval (on-write) and is approved over REST.
    say('plan: [>] look around; [ ] write a file');
    await client.untilIdle(turns, 30_000);
    say('bash: echo schema > schema.txt');
    const asked = await untilAsked(client);
    expect((await api(server.url, `${session}/approvals/not-this-one`, { body: { decision: 'approve' } })).status).toBe(409);
    expect((await api(server.url, `${session}/approvals/${asked.callId}`, { body: { decision: 'approve', reason: 'x' } })).status).toBe(400);
    expect((await api(server.url, `${session}/approvals/${asked.callId}`, { body: { decision: 'approve' } })).status).toBe(202);
    await client.untilIdle(turns, 30_000);
    // REST messages and a compaction with a focus.
    expect((await api(server.url, `${session}/messages`, { body: { text: '  ' } })).status).toBe(400);
    expect((await api(server.url, `${session}/messages`, { body: { text: 'echo: over REST' } })).status).toBe(202);
    turns++;
    await client.untilIdle(turns, 30_000);
    // A message with an image, and the image served back (and one the session does not have).
    expect((await api(server.url, `${session}/messages`, { body: { text: 'echo: a picture', images: [{ mediaType: 'image/png', data: png(4, 4).toString('base64') }] } })).status).toBe(202);
    turns++;
    await client.untilIdle(turns, 30_000);
    const pictured = client.events.find((e) => e.kind === 'user' && e.images?.length) as { images: { file: string }[] };
    expect((await raw('GET', `${session}/images/${pictured.images[0]!.file.split('/').at(-1)}`)).type).toBe('image/png');
    expect((await api(server.url, `${session}/images/none.png`)).status).toBe(404);
    // Enough turns for a compaction to fold some (its ledger then records them).
    for (const text of ['read: schema.txt', 'list: .', 'grep: schema', 'echo: one more', 'echo: and another']) {
      say(text);
      await client.untilIdle(turns, 30_000);
    }
    expect((await api(server.url, `${session}/compact`, { body: { instructions: 'the schema' } })).status).toBe(202);
    await client.until(() => client.events.some((e) => e.kind === 'compaction' && e.phase === 'finished'), 'the compaction to finish', 30_000);
    expect((await api(server.url, `${session}/compact`, { body: { instructions: 7 } })).status).toBe(400);
    expect((await api(server.url, `${session}/cancel`, { body: {} })).status).toBe(202);
    expect((await api(server.url, `${session}/model`, { body: { model: 'predictable' } })).status).toBe(202);
    expect((await api(server.url, `${session}/model`, { body: { effort: 'loud' } })).status).toBe(400);

    // Reading the session.
    expect((await api(server.url, session)).status).toBe(200);
    expect((await api(server.url, '/api/sessions/no-such-session')).status).toBe(404);
    expect((await api(server.url, '/api/sessions?archived=1&q=schema')).status).toBe(200);
    const all = await api<{ events: SkeinEvent[] }>(server.url, `${session}/events?since=0`);
    expect((await api(server.url, `${session}/events?before=5&limit=2`)).status).toBe(200);
    expect((await api(server.url, `${session}/events?since=1&before=2`)).status).toBe(400);
    expect((await api(server.url, `${session}/view`)).status).toBe(200);
    expect((await api(server.url, `${session}/changes`)).status).toBe(200);
    expect((await raw('GET', `${session}/export?format=jsonl`)).type).toContain('application/x-ndjson');
    expect((await raw('GET', `${session}/export?format=md`)).type).toContain('text/markdown');
    expect((await api(server.url, `${session}/export?format=pdf`)).status).toBe(400);

    // Fork, rewind, rename, archive, delete, restore.
    expect((await api(server.url, `${session}/rewind?seq=1`)).status).toBe(200);
    expect((await api(server.url, `${session}/rewind?seq=0`)).status).toBe(400);
    expect((await api(server.url, `${session}/rewind`, { body: { seq: 2, fork: 'yes' } })).status).toBe(400);
    const rewound = await api<{ id?: string }>(server.url, `${session}/rewind`, { body: { seq: 2, fork: true } });
    expect(rewound.status).toBe(200);
    expect(typeof rewound.body.id).toBe('string');
    const fork = await api<{ id: string }>(server.url, `${session}/fork`, { body: { seq: 3 } });
    expect(fork.status).toBe(201);
    expect((await api(server.url, `${session}/fork`, { body: { seq: 'three' } })).status).toBe(400);
    expect((await api(server.url, `/api/sessions/${fork.body.id}`, { method: 'PATCH', body: { title: 'forked', archived: true } })).status).toBe(200);
    expect((await api(server.url, `/api/sessions/${fork.body.id}`, { method: 'PATCH', body: {} })).status).toBe(400);
    expect((await api(server.url, `/api/sessions/${fork.body.id}?worktree=maybe`, { method: 'DELETE' })).status).toBe(400);
    expect((await api(server.url, `/api/sessions/${fork.body.id}`, { method: 'DELETE' })).status).toBe(200);
    expect((await api(server.url, '/api/trash')).status).toBe(200);
    expect((await api(server.url, `/api/trash/${fork.body.id}/restore`, { body: {} })).status).toBe(200);
    expect((await api(server.url, '/api/trash/nothing/restore', { body: {} })).status).toBe(404);

    expect((await api(server.url, `${session}/worktree/cancel`, { body: {} })).status).toBe(409);
    // The worktree actions: this session shares its folder (no worktree of its own), so each is refused as documented.
    expect((await api(server.url, `${session}/worktree/commit`, { body: {} })).status).toBe(400);
    expect((await api(server.url, `${session}/worktree/discard`, { body: {} })).status).toBe(400);
    for (const [action, body] of [['commit', { message: 'm' }], ['merge', {}], ['apply', {}], ['discard', { confirm: true }], ['push', {}]] as const) {
      expect((await api(server.url, `${session}/worktree/${action}`, { body })).status, action).toBe(409);
    }

    // The server's lists, trust, and the pages.
    expect((await api(server.url, `${session}/mode`, { method: 'PUT', body: { mode: 'plan' } })).status).toBe(200);
    expect((await api(server.url, `${session}/mode`, { method: 'PUT', body: { mode: 'loud' } })).status).toBe(400);
    // No MCP hub here, or a hub that refuses the body: either answer is documented.
    expect([400, 404]).toContain((await api(server.url, '/api/mcp/servers', { body: { mcpServers: 'none' } })).status);
    for (const route of ['/healthz', '/api/workdirs', '/api/models', '/api/settings', '/api/mcp', '/api/trust']) expect((await api(server.url, route)).status, route).toBe(200);
    expect((await api(server.url, '/api/trust', { body: { folder: server.workDir, decision: 'trust' } })).status).toBe(400);
    expect([200, 404, 422]).toContain((await api(server.url, '/api/trust', { body: { folder: server.workDir, decision: 'revoke' } })).status);
    // Projects: added, asked for (an editor), decided, waited on, removed.
    const project = tempDir('openapi-project');
    expect((await api(server.url, '/api/projects', { body: { folder: '/' } })).status).toBe(400);
    expect((await api(server.url, '/api/projects', { body: { folder: project } })).status).toBe(201);
    expect((await api(server.url, '/api/projects')).status).toBe(200);
    expect((await api(server.url, `/api/projects?folder=${encodeURIComponent(project)}`, { method: 'DELETE' })).status).toBe(200);
    expect((await api(server.url, '/api/projects?folder=%2Fnot-a-project', { method: 'DELETE' })).status).toBe(404);
    expect((await api(server.url, `/api/projects?folder=${encodeURIComponent(server.workDir)}`, { method: 'DELETE' })).status).toBe(409);
    expect((await api(server.url, '/api/projects?nothing=1', { method: 'DELETE' })).status).toBe(400);
    expect((await api(server.url, '/api/projects/requests', { body: { folder: 7 } })).status).toBe(400);
    const opening = (await api<{ request: { id: string } }>(server.url, '/api/projects/requests', { body: { folder: project } })).body.request;
    expect((await api(server.url, `/api/projects/requests/${opening.id}?wait=0`)).status).toBe(200);
    expect((await api(server.url, `/api/projects/requests/${opening.id}?wait=soon`)).status).toBe(400);
    expect((await api(server.url, '/api/projects/requests/none')).status).toBe(404);
    expect((await api(server.url, `/api/projects/requests/${opening.id}`, { body: { decision: 'maybe' } })).status).toBe(400);
    expect((await api(server.url, '/api/projects/requests/none', { body: { decision: 'deny' } })).status).toBe(404);
    expect((await api(server.url, `/api/projects/requests/${opening.id}`, { body: { decision: 'deny' } })).status).toBe(200);
    expect((await api(server.url, `/api/projects/requests/${opening.id}`, { body: { decision: 'allow' } })).status).toBe(409);
    expect((await api(server.url, `/api/projects/requests/${opening.id}`, { method: 'DELETE' })).status).toBe(200);
    expect((await api(server.url, '/api/projects/requests/none', { method: 'DELETE' })).status).toBe(404);
    expect((await raw('GET', '/metrics')).status).toBe(200);
    for (const page of ['/', `/s/${id}`]) expect([200, 503]).toContain((await raw('GET', page)).status);

    // Every documented route was reached and answered as documented (the checks ran in api() and raw()).
    const reached = new Set([...checked].map((c) => c.split(' ').slice(0, 2).join(' ')));
    const routes = Object.entries(ROUTES as Record<string, Route>).filter(([, r]) => !r.socket).map(([key]) => key);
    expect(routes.filter((r) => !reached.has(r)), 'routes no answer was checked for').toEqual([]);

    // Every event the session wrote: as GET /events gives them, as the log file holds them, as the socket sent them.
    const events = all.body.events;
    const kinds = new Set(events.map((e) => e.kind));
    for (const kind of ['user', 'agent', 'tool_call', 'tool_result', 'state', 'usage', 'compaction', 'approval_request', 'approval_decision']) expect(kinds, kind).toContain(kind);
    expect(events.some((e) => e.kind === 'compaction' && e.phase === 'finished' && e.ledger && e.instructions === 'the schema')).toBe(true);
    const onDisk = await storedEvents(server, id);
    expect(onDisk.length).toBeGreaterThanOrEqual(events.length);
    for (const event of [...events, ...onDisk, ...client.events]) {
      expect(eventProblems(event)).toEqual([]);
      expect(SkeinEventSchema.safeParse(event).success).toBe(true);
    }
    const frameProblems = client.frames.flatMap((f) => documentProblems('GET', '/ws', 101, 'application/json', f));
    expect(frameProblems).toEqual([]);
    const types = new Set(client.frames.map((f) => f.type));
    expect(types.has('hello') && types.has('event')).toBe(true);
  }, 120_000);

  it('refuses an event that breaks its schema, so the checks above can fail', () => {
    const good = { seq: 1, ts: new Date().toISOString(), kind: 'tool_result', callId: 'c', name: 'bash', output: '', isError: false, durationMs: 3 };
    expect(eventProblems(good)).toEqual([]);
    expect(eventProblems({ ...good, isError: 'no' })).not.toEqual([]);
    expect(eventProblems({ ...good, undocumented: 1 })).not.toEqual([]);
    expect(eventProblems({ ...good, kind: 'no_such_kind' })).not.toEqual([]);
    expect(documentProblems('GET', '/api/sessions/x', 200, 'application/json', { id: 'x' })).not.toEqual([]);
  });

  it('refuses bad frames with a sentence, and the session goes on', async () => {
    const before = client.frames.filter((f) => f.type === 'error').length;
    const bad = ['nope', '[1]', '{"type":"shout"}', '{"type":"user_message","text":"   "}', '{"type":"compact","instructions":5}', '{"type":"approval","callId":"c1","decision":"maybe"}', '{"type":"approval","callId":"c1","decision":"approve","reason":"why"}'];
    for (const frame of bad) client.send(frame);
    await client.until(() => client.frames.filter((f) => f.type === 'error').length >= before + bad.length, 'an error frame for each bad frame');
    const errors = client.frames.flatMap((f) => (f.type === 'error' ? [f.message] : [])).slice(before);
    expect(errors).toEqual([
      'frame is not valid JSON',
      'frame must be a JSON object with a "type"',
      'unknown frame type "shout"; expected user_message, compact, cancel or approval',
      '"text" must not be empty',
      '"instructions" must be a string',
      '"decision" must be one of approve, approve_session, deny',
      '"reason" goes only with "deny"',
    ]);
    say('echo: still here');
    await client.until(() => client.events.some((e) => e.kind === 'agent' && e.text === 'still here'), 'the answer');
  });
});
