// Secrets by value stay out of the tools' environment: a DATABASE_URL with a
// password and a DSN whose key is its user name are not secret-named, so
// only their values say what they are. A prompt-injected `echo $X | rev` or
// `| base64` would carry them past the mask (it replaces exact values only):
// they must not be there to print, with or without the sandbox, unless
// SKEIN_TOOL_ENV_ALLOW names them. A real server in its own process, real bash, real bwrap.
import { afterEach, describe, expect, it } from 'vitest';
import type { SkeinEvent } from '../../shared/protocol.js';
import { startChildServer, type ChildServer } from '../helpers/child-server.js';
import { api, tempDir } from '../helpers/server.js';
import { eventsOf, waitForEvents } from '../helpers/ui.js';

const PASSWORD = 'hunter2pass-hostile-91';
const DSN_KEY = 'abc123def';
const ENV = {
  DATABASE_URL: `postgres://app:${PASSWORD}@db.internal:5432/app`,
  SENTRY_DSN: `https://${DSN_KEY}@sentry.io/1`,
};

/** Every value and part, and each transformed the way the command prints it. */
const reversed = (text: string) => [...text].reverse().join('');
const base64 = (text: string) => Buffer.from(`${text}\n`).toString('base64');
const leaks = (values: string[]) => values.flatMap((v) => [v, reversed(v), base64(v)]);
const ALL_FORMS = leaks([ENV.DATABASE_URL, PASSWORD, ENV.SENTRY_DSN, DSN_KEY]);

/** What a prompt-injected model runs: the lengths, then each value reversed and base64-encoded. */
const COMMAND = 'echo "lengths ${#DATABASE_URL}/${#SENTRY_DSN}"; for v in "$DATABASE_URL" "$SENTRY_DSN"; do echo $v | rev; echo $v | base64 -w0; echo; done; echo done';

const children: ChildServer[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) await c.kill('SIGKILL');
});

const idleCount = (events: SkeinEvent[]) => events.filter((e) => e.kind === 'state' && e.to === 'WaitingForUserInput').length;

/** A server with the secrets in its environment; the output of COMMAND run by its agent. */
async function runLeak(extra: Record<string, string>): Promise<string> {
  const server = await startChildServer({ ...ENV, ...extra, SKEIN_DATA_DIR: tempDir('env-data'), SKEIN_WORKDIR: tempDir('env-work'), SKEIN_MODEL: 'predictable' });
  children.push(server);
  const { body } = await api<{ id: string }>(server.url, '/api/sessions', { body: {} });
  const before = idleCount(await eventsOf(server.url, body.id));
  await api(server.url, `/api/sessions/${body.id}/messages`, { body: { text: `bash: ${COMMAND}` } });
  const events = await waitForEvents(server.url, body.id, (es) => idleCount(es) > before, 60_000);
  const result = events.filter((e) => e.kind === 'tool_result').at(-1);
  if (result?.kind !== 'tool_result') throw new Error('no tool result');
  // The command ran to its end: an empty output would prove nothing.
  expect(result.output).toMatch(/^exit code: 0\n[\s\S]*done$/);
  return result.output;
}

describe.each([
  ['without the sandbox', {}],
  ['under SKEIN_SANDBOX=workspace', { SKEIN_SANDBOX: 'workspace' }],
])('secret values in the server environment, %s', (_, sandbox: Record<string, string>) => {
  it('bash gets neither DATABASE_URL (a password) nor SENTRY_DSN (a key as user name): rev and base64 print nothing of them', async () => {
    const output = await runLeak(sandbox);
    expect(output).toContain('lengths 0/0');
    for (const form of ALL_FORMS) expect(output.includes(form), form).toBe(false);
  }, 90_000);

  it('SKEIN_TOOL_ENV_ALLOW=DATABASE_URL lets that one through (transformed, past the mask); SENTRY_DSN stays out', async () => {
    const output = await runLeak({ ...sandbox, SKEIN_TOOL_ENV_ALLOW: 'DATABASE_URL' });
    expect(output).toContain(`lengths ${ENV.DATABASE_URL.length}/0`);
    expect(output).toContain(reversed(ENV.DATABASE_URL));
    expect(output).toContain(base64(ENV.DATABASE_URL));
    for (const form of leaks([ENV.SENTRY_DSN, DSN_KEY])) expect(output.includes(form), form).toBe(false);
  }, 90_000);
});
