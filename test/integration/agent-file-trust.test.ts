// A project's agent file (.skein/agents/NAME.md) through the same trust paths
// as .mcp.json: GET /api/trust lists it with the agent it would define, a
// `task` call naming it is refused (and says how to trust it) until
// POST /api/trust trusts that exact content, and a change makes it untrusted
// again, shown with the diff from the content last trusted.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ProjectFileTrust, SkeinEvent } from '../../shared/protocol.js';
import type { LiveSession } from '../../server/agent/live-session.js';
import { api, startTestServer, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';

const servers: TestServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

const NAME = '.skein/agents/reviewer.md';
const CONTENT = '---\nname: reviewer\ndescription: reviews code\ntools: read_file, grep\nmode: plan\n---\nYou review code and list problems.\n';

async function turn(live: LiveSession, text: string): Promise<SkeinEvent[]> {
  const from = live.session.log.lastSeq;
  await live.session.userMessage(text);
  await until(() => live.session.log.since(from).some((e) => e.kind === 'state' && e.to === 'WaitingForUserInput'), 'the turn to end', 60_000);
  return live.session.log.since(from);
}

const callReviewer = (live: LiveSession, echo: string) => turn(live, `tool: task ${JSON.stringify({ description: 'review', prompt: `echo: ${echo}`, agent: 'reviewer' })}`);
const taskResult = (events: SkeinEvent[]) => events.find((e) => e.kind === 'tool_result' && e.name === 'task') as Extract<SkeinEvent, { kind: 'tool_result' }>;

async function agentFile(base: string): Promise<ProjectFileTrust | undefined> {
  const { status, body } = await api<{ files: ProjectFileTrust[] }>(base, '/api/trust');
  expect(status).toBe(200);
  return body.files.find((f) => f.file === NAME);
}

const decide = (base: string, file: ProjectFileTrust, decision: string, hash = file.sha256) =>
  api<{ file?: ProjectFileTrust; error?: string }>(base, '/api/trust', { body: { folder: file.folder, file: file.file, hash, decision } });

describe("a project's agent file goes through the trust gate of .mcp.json", () => {
  it('is listed untrusted and refused with a reason; trusted through POST /api/trust it runs; changed, it is untrusted again with a diff', async () => {
    const server = await startTestServer({ SKEIN_MODEL: 'predictable' });
    servers.push(server);
    const file = path.join(server.workDir, NAME);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, CONTENT);

    // Untrusted: shown as the agent it would define, and a call naming it is told why and how.
    const shown = await agentFile(server.url);
    expect(shown).toMatchObject({ status: 'untrusted', path: path.join(fs.realpathSync(server.workDir), NAME), servers: [] });
    expect(shown!.agent).toEqual({ name: 'reviewer', description: 'reviews code', tools: ['read_file', 'grep'], mode: 'plan', depth: 0, prompt: 'You review code and list problems.' });
    expect(shown!.diff).toBeUndefined();
    const parent = server.sessions.create();
    const refused = taskResult(await callReviewer(parent, 'not run'));
    expect(refused.isError).toBe(true);
    expect(refused.output).toMatch(/untrusted: .*skein trust.*POST \/api\/trust/);
    expect(server.sessions.list().filter((s) => s.parent?.session === parent.session.id)).toHaveLength(0);

    // A stale hash is refused and trusts nothing.
    expect((await decide(server.url, shown!, 'trust', '0'.repeat(64))).status).toBe(409);
    expect((await agentFile(server.url))!.status).toBe('untrusted');

    // Trusted: the next call runs the agent.
    const trusted = await decide(server.url, shown!, 'trust');
    expect(trusted.status).toBe(200);
    expect(trusted.body.file).toMatchObject({ file: NAME, status: 'trusted' });
    const ran = taskResult(await callReviewer(parent, 'reviewed'));
    expect(ran.isError).toBe(false);
    expect(ran.output).toContain('reviewed');

    // Changed: untrusted again, shown with what changed, refused until trusted again.
    fs.writeFileSync(file, CONTENT.replace('list problems', 'run anything'));
    const changed = await agentFile(server.url);
    expect(changed).toMatchObject({ status: 'changed' });
    expect(changed!.diff).toContain('-You review code and list problems.');
    expect(changed!.diff).toContain('+You review code and run anything.');
    expect(changed!.agent?.prompt).toBe('You review code and run anything.');
    const again = taskResult(await callReviewer(parent, 'not run either'));
    expect(again.isError).toBe(true);
    expect(again.output).toContain('changed since trusted');

    // Revoked: untrusted, with no diff left to show.
    await decide(server.url, changed!, 'trust');
    expect((await decide(server.url, changed!, 'revoke')).body.file).toMatchObject({ status: 'untrusted' });
  }, 120_000);

  it('refuses to trust an agent file that does not parse (422), and a file name that is not a gated one (404)', async () => {
    const server = await startTestServer({ SKEIN_MODEL: 'predictable' });
    servers.push(server);
    const file = path.join(server.workDir, '.skein', 'agents', 'broken.md');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, 'no front matter here\n');
    const { body } = await api<{ files: ProjectFileTrust[] }>(server.url, '/api/trust');
    const broken = body.files.find((f) => f.file === '.skein/agents/broken.md');
    expect(broken).toMatchObject({ status: 'untrusted' });
    expect(broken!.error).toContain('no front matter');
    expect(broken!.agent).toBeUndefined();
    const refused = await decide(server.url, broken!, 'trust');
    expect(refused.status).toBe(422);
    expect(refused.body.error).toContain('cannot be trusted as it is');
    const elsewhere = await decide(server.url, { ...broken!, file: 'README.md' }, 'trust');
    expect(elsewhere.status).toBe(404);
  }, 120_000);
});
