// Configured secrets never reach the log, nor anything that reads it (GET
// events, the WebSocket, the JSONL and Markdown exports, the data folder):
// not in tool outputs, not in tool inputs the model rebuilt, not in answers
// (streamed or logged), not in the user's own text. The real server, the
// predictable model; the database password through a real PostgreSQL.
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ServerFrame, SessionSnapshot, SkeinEvent } from '../../shared/protocol.js';
import { loadConfig } from '../../server/config.js';
import type { Provider } from '../../server/llm/types.js';
import { startServer, type RunningServer } from '../../server/server.js';
import { authHeaders, rememberToken } from '../helpers/auth.js';
import { startChildServer, type ChildServer } from '../helpers/child-server.js';
import { startTempPostgres, type TempPostgres } from '../helpers/postgres.js';
import { api, tempDir } from '../helpers/server.js';
import { TestClient } from '../helpers/ws-client.js';
import { LEAK_SCRIPT, plantSecretTricks } from './secrets-tricks.js';

/** Each character as a JSON \u escape: the text a model is given holds none of the secret, the input it sends back does. */
const escaped = (secret: string) => [...secret].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
const reversed = (text: string) => [...text].reverse().join('');

const children: ChildServer[] = [];
const clients: TestClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  for (const c of children.splice(0)) await c.kill('SIGKILL');
});

async function newSession(base: string): Promise<string> {
  const { status, body } = await api<{ id: string }>(base, '/api/sessions', { body: {} });
  expect(status).toBe(201);
  return body.id;
}

/** Sends `text` over the socket and waits for the turn to end. */
async function say(client: TestClient, text: string): Promise<SkeinEvent[]> {
  const turns = client.events.filter((e) => e.kind === 'state' && e.to === 'WaitingForUserInput').length;
  client.send({ type: 'user_message', text });
  return client.untilIdle(turns + 1, 60_000);
}

/** Everything a client can read of the session, as raw text: its events, both exports, and every frame the socket sent. */
async function whatClientsSee(base: string, id: string, client: TestClient): Promise<Record<string, string>> {
  const raw = async (route: string) => (await fetch(base + route, { headers: authHeaders(base) })).text();
  return {
    'GET events': await raw(`/api/sessions/${id}/events`),
    'JSONL export': await raw(`/api/sessions/${id}/export?format=jsonl`),
    'Markdown export': await raw(`/api/sessions/${id}/export?format=markdown`),
    'WebSocket frames': JSON.stringify(client.frames),
  };
}

function expectNone(where: Record<string, string>, secrets: Record<string, string>): void {
  for (const [place, text] of Object.entries(where)) {
    for (const [name, value] of Object.entries(secrets)) expect(text.includes(value), `${name} in ${place}`).toBe(false);
  }
}

describe('secrets in a session (a server in its own process, JSONL store)', () => {
  const ENV = {
    ANTHROPIC_API_KEY: 'sk-ant-api03-hostile-0123456789abcdef',
    DEPLOY_SECRET: 'deploy-secret-hostile-98765',
    PGPASSWORD: 'pg-password-hostile-4242',
    // Not secret-named: a URL with a password is a secret by its shape.
    DATABASE_URL: 'postgres://app:url-password-hostile-77@db.internal:5432/app',
  };

  it('a tool input the model rebuilt, the user\'s own text and a dump of the server\'s environ reach the log only masked; what ran is what was logged', async () => {
    const dataDir = tempDir('secrets-data');
    const workDir = tempDir('secrets-work');
    plantSecretTricks(workDir, dataDir);
    const server = await startChildServer({ ...ENV, SKEIN_DATA_DIR: dataDir, SKEIN_WORKDIR: workDir, SKEIN_MODEL: 'predictable' });
    children.push(server);
    const token = server.token!;
    const secrets = { token, ...ENV, 'DATABASE_URL password': 'url-password-hostile-77' };
    const id = await newSession(server.url);
    const client = await TestClient.connect(server.url, id);
    clients.push(client);

    // 1. The user pastes a key and the token: the log keeps neither (the model sees the mask too).
    const pasted = await say(client, `echo: my key ${ENV.ANTHROPIC_API_KEY} and token ${token}`);
    expect(pasted.find((e) => e.kind === 'user')).toMatchObject({ text: 'echo: my key [redacted ANTHROPIC_API_KEY] and token [redacted skein access token]' });
    expect(pasted.findLast((e) => e.kind === 'agent')).toMatchObject({ text: 'my key [redacted ANTHROPIC_API_KEY] and token [redacted skein access token]' });

    // 2. A tool input holding every secret, rebuilt by the model from text that holds none of them.
    const values = Object.values(secrets);
    const before = client.events.length;
    const message = `tool: bash {"command":"echo ${values.map(escaped).join(' ')}"}`;
    expect(values.filter((v) => message.includes(v))).toEqual([]);
    const rebuilt = await say(client, message);
    const fresh = rebuilt.slice(before);
    const call = fresh.find((e) => e.kind === 'tool_call');
    const masks = '[redacted skein access token] [redacted ANTHROPIC_API_KEY] [redacted DEPLOY_SECRET] [redacted PGPASSWORD] [redacted DATABASE_URL] [redacted DATABASE_URL password]';
    expect(call).toMatchObject({ name: 'bash', input: { command: `echo ${masks}` } });
    // The command ran as logged: bash echoed the masks, it never had the secrets.
    expect(fresh.find((e) => e.kind === 'tool_result')).toMatchObject({ output: `exit code: 0\n${masks}`, isError: false });

    // 3. The repository's script dumps the server's /proc/<pid>/environ and the token file: the exact values are masked.
    const leaked = (await say(client, `bash: sh ${LEAK_SCRIPT}`)).slice(rebuilt.length);
    const output = leaked.find((e) => e.kind === 'tool_result');
    expect(output?.kind === 'tool_result' && output.output).toContain(`ANTHROPIC_API_KEY=[redacted ANTHROPIC_API_KEY]`);
    expect(output?.kind === 'tool_result' && output.output).toContain(`token:\n[redacted skein access token]`);

    // 4. A title typed with a secret in it (kept in <id>.meta.json and the sessions index).
    const renamed = await api<SessionSnapshot>(server.url, `/api/sessions/${id}`, { method: 'PATCH', body: { title: `deploy with ${ENV.DEPLOY_SECRET}` } });
    expect(renamed.body.title).toBe('deploy with [redacted DEPLOY_SECRET]');

    const seen = { ...(await whatClientsSee(server.url, id, client)), 'sessions list': JSON.stringify((await api(server.url, '/api/sessions')).body) };
    await server.kill('SIGTERM');
    // Read raw from the disk: the session log, the sessions index (user messages for search), saved outputs, everything but the token file itself.
    const onDisk: Record<string, string> = {};
    for (const file of fs.readdirSync(dataDir, { recursive: true, withFileTypes: true })) {
      const full = path.join(file.parentPath, file.name);
      if (file.isFile() && full !== path.join(dataDir, 'token')) onDisk[path.relative(dataDir, full)] = fs.readFileSync(full, 'utf8');
    }
    expect(Object.keys(onDisk)).toContain(path.join('sessions', `${id}.jsonl`));
    expectNone({ ...seen, ...onDisk }, secrets);

    // 5. What masking cannot do: a secret rebuilt by a transformation (reversed, split in two) is no exact match.
    // Only the sandbox stops this, by hiding the data folder and the server's /proc from tools (docs/sandbox-and-security.md, Secrets).
    const log = onDisk[path.join('sessions', `${id}.jsonl`)]!;
    expect(log).toContain(reversed(token));
    expect(log).toContain(token.slice(0, 8));
  }, 120_000);
});

describe('secrets in answers and the database password (a server in this process, PostgreSQL store)', () => {
  let postgres: TempPostgres;
  let server: RunningServer | undefined;
  beforeAll(async () => {
    postgres = await startTempPostgres();
  }, 180_000);
  afterAll(() => postgres?.stop());
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  /** A model that rebuilds secrets: it decodes \u escapes in its answer, and streams the answer in small pieces. */
  const rebuilding = (inner: Provider): Provider => ({
    model: inner.model,
    limits: inner.limits,
    async complete(request, signal, stream) {
      const answer = await inner.complete(request, signal);
      const text = answer.text.replace(/\\u([0-9a-f]{4})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
      for (let i = 0; i < text.length; i += 5) stream?.onText?.(text.slice(i, i + 5));
      return { ...answer, text };
    },
  });

  it('an answer and a tool input holding the token, SKEIN_DATABASE_URL and its password are masked in the rows, every export and the streamed pieces', async () => {
    const password = 'db-password-hostile-31337';
    const url = (await postgres.database()).replace('postgres://postgres@', `postgres://postgres:${password}@`);
    const dataDir = tempDir('secrets-pg-data');
    const token = 'skein-token-hostile-0123456789';
    // Given as settings (as flags would be), not in this process's environment: they are masked all the same.
    const config = loadConfig([], { SKEIN_PORT: '0', SKEIN_DATA_DIR: dataDir, SKEIN_WORKDIR: tempDir('secrets-pg-work'), SKEIN_MODEL: 'predictable', SKEIN_DATABASE_URL: url, SKEIN_TOKEN: token });
    server = await startServer(config, undefined, { wrapProvider: rebuilding });
    rememberToken(server.url, server.token);
    const secrets = { token, 'SKEIN_DATABASE_URL': url, 'SKEIN_DATABASE_URL password': password };
    const id = await newSession(server.url);
    const client = await TestClient.connect(server.url, id);
    clients.push(client);

    const events = await say(client, `echo: token ${escaped(token)} url ${escaped(url)} password ${escaped(password)} end`);
    expect(events.findLast((e) => e.kind === 'agent')).toMatchObject({
      text: 'token [redacted skein access token] url [redacted SKEIN_DATABASE_URL] password [redacted SKEIN_DATABASE_URL password] end',
    });
    // The answer was streamed in 5-character pieces: none of them, nor all of them together, holds a secret.
    const streamed = client.frames.flatMap((f: ServerFrame) => (f.type === 'delta' ? [f.text] : [])).join('');
    expect(streamed).toContain('token [redacted skein access token] url [redacted SKEIN_DATABASE_URL] password [redacted SKEIN_DATABASE_URL password]');

    // And a tool input with the database password and the token, rebuilt from escapes: masked in the call, and so in what ran.
    const before = client.events.length;
    const called = (await say(client, `tool: bash {"command":"echo ${escaped(password)} ${escaped(token)}"}`)).slice(before);
    const masks = '[redacted SKEIN_DATABASE_URL password] [redacted skein access token]';
    expect(called.find((e) => e.kind === 'tool_call')).toMatchObject({ input: { command: `echo ${masks}` } });
    expect(called.find((e) => e.kind === 'tool_result')).toMatchObject({ output: `exit code: 0\n${masks}` });

    const pool = new pg.Pool({ connectionString: url });
    const rows = await pool.query<{ line: string }>('SELECT line FROM skein_events WHERE session = $1 ORDER BY seq', [id]).finally(() => pool.end());
    expect(rows.rows.length).toBe(client.events.length);
    expectNone({ ...(await whatClientsSee(server.url, id, client)), 'skein_events rows': rows.rows.map((r) => r.line).join('\n') }, secrets);
  }, 120_000);
});
