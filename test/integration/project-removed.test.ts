// A session in a folder the user removed from the projects does no more work
// there: a new turn, a fork, a rewind or a worktree action is refused (409
// `project_removed`, saying how to go on) until the folder is added again;
// its conversation stays readable.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionSnapshot, SkeinEvent } from '../../shared/protocol.js';
import { api, startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { eventsOf, waitForEvents } from '../helpers/ui.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
});

const idleCount = (events: SkeinEvent[]) => events.filter((e) => e.kind === 'state' && e.to === 'WaitingForUserInput').length;
async function say(id: string, text: string): Promise<SkeinEvent[]> {
  const before = idleCount(await eventsOf(server.url, id));
  expect((await api(server.url, `/api/sessions/${id}/messages`, { body: { text } })).status).toBe(202);
  return waitForEvents(server.url, id, (es) => idleCount(es) > before, 60_000);
}

describe('a session whose project was removed', () => {
  it('is refused new turns, forks, rewinds and worktree actions (409) until the folder is added again; its log stays readable', async () => {
    const project = fs.realpathSync(tempDir('removed-project'));
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', '-c', 'init.defaultBranch=main', '-c', 'commit.gpgSign=false', ...args], { cwd: project, encoding: 'utf8' });
    git('init', '--quiet');
    fs.writeFileSync(path.join(project, 'README.md'), 'hello\n');
    git('add', '.');
    git('commit', '--quiet', '-m', 'start');
    expect((await api(server.url, '/api/projects', { body: { folder: project } })).status).toBe(201);
    const shared = (await api<{ id: string }>(server.url, '/api/sessions', { body: { folder: project, worktree: false } })).body.id;
    const own = (await api<{ id: string }>(server.url, '/api/sessions', { body: { folder: project, worktree: true } })).body.id;
    const events = await say(shared, 'echo: before the removal');
    await say(own, 'bash: echo x > x.txt');

    expect((await api(server.url, `/api/projects?folder=${encodeURIComponent(project)}`, { method: 'DELETE' })).status).toBe(200);
    const refusals = [
      await api<{ error: string; code: string }>(server.url, `/api/sessions/${shared}/messages`, { body: { text: 'echo: after' } }),
      await api<{ error: string; code: string }>(server.url, `/api/sessions/${shared}/fork`, { body: { seq: events.at(-1)!.seq } }),
      await api<{ error: string; code: string }>(server.url, `/api/sessions/${shared}/rewind`, { body: { seq: 1 } }),
      await api<{ error: string; code: string }>(server.url, `/api/sessions/${own}/worktree/commit`, { body: { message: 'm' } }),
      await api<{ error: string; code: string }>(server.url, `/api/sessions/${own}/messages`, { body: { text: 'bash: echo y > y.txt' } }),
    ];
    for (const res of refusals) {
      expect(res.status, JSON.stringify(res.body)).toBe(409);
      expect(res.body.code).toBe('project_removed');
      expect(res.body.error).toContain(`${project}, which is no longer one of skein's projects`);
      expect(res.body.error).toContain('add the folder again');
    }
    // Nothing was done: no new message, no fork, no commit.
    expect((await eventsOf(server.url, shared)).filter((e) => e.kind === 'user')).toHaveLength(1);
    const sessions = (await api<{ sessions: SessionSnapshot[] }>(server.url, '/api/sessions')).body.sessions;
    expect(sessions.filter((s) => s.forkOf)).toEqual([]);
    expect(git('log', '--format=%s', `skein/${own}`).trim()).toBe('start');
    // Reading stays possible.
    expect((await api(server.url, `/api/sessions/${shared}`)).status).toBe(200);
    expect((await eventsOf(server.url, shared)).length).toBe(events.length);

    // Added again: it works there again.
    expect((await api(server.url, '/api/projects', { body: { folder: project } })).status).toBe(201);
    await say(shared, 'echo: after adding it again');
    expect((await api(server.url, `/api/sessions/${own}/worktree/commit`, { body: { message: 'm' } })).status).toBe(200);
  });
});

describe('a project removed while its session works', () => {
  it('stops the running turn (a call waiting for approval is denied, never run); approving it or compacting is refused', async () => {
    const asking = await startTestServer({ SKEIN_APPROVAL: 'always' });
    try {
      const project = fs.realpathSync(tempDir('removed-mid-turn'));
      expect((await api(asking.url, '/api/projects', { body: { folder: project } })).status).toBe(201);
      const id = (await api<{ id: string }>(asking.url, '/api/sessions', { body: { folder: project, worktree: false } })).body.id;
      expect((await api(asking.url, `/api/sessions/${id}/messages`, { body: { text: 'bash: echo ran > ran.txt' } })).status).toBe(202);
      const asked = await waitForEvents(asking.url, id, (es) => es.some((e) => e.kind === 'approval_request'), 60_000);
      const callId = (asked.find((e) => e.kind === 'approval_request') as Extract<SkeinEvent, { kind: 'approval_request' }>).callId;

      expect((await api(asking.url, `/api/projects?folder=${encodeURIComponent(project)}`, { method: 'DELETE' })).status).toBe(200);
      const approve = await api<{ code?: string }>(asking.url, `/api/sessions/${id}/approvals/${callId}`, { body: { decision: 'approve' } });
      expect(approve.status).toBe(409);
      const compact = await api<{ code?: string }>(asking.url, `/api/sessions/${id}/compact`, { body: {} });
      expect(compact.status).toBe(409);
      expect(compact.body.code).toBe('project_removed');
      // The removal cancelled the turn: the waiting call was denied, and the session is back waiting for the user.
      const events = await waitForEvents(asking.url, id, (es) => es.some((e) => e.kind === 'approval_decision') && es.at(-1)?.kind === 'state' && (es.at(-1) as { to?: string }).to === 'WaitingForUserInput', 60_000);
      const decision = events.find((e) => e.kind === 'approval_decision') as Extract<SkeinEvent, { kind: 'approval_decision' }>;
      expect(decision.decision).toBe('deny');
      expect(fs.existsSync(path.join(project, 'ran.txt'))).toBe(false);
    } finally {
      await asking.close();
    }
  });
});
