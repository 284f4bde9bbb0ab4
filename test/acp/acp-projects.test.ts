// `skein acp` beside a running web server started for another folder: the
// editor's session/new for its own project asks the user (the editor's
// permission request and every web UI tab), and once allowed works there;
// denied, a clear invalid params; the web UI's answer ends the editor's prompt.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PROTOCOL_VERSION } from '@agentclientprotocol/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import type { ProjectRequest, SessionSnapshot } from '../../shared/protocol.js';
import { api, startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { WebSocket } from 'ws';
import { authHeaders } from '../helpers/auth.js';
import { until } from '../helpers/until.js';
import { startAcp, type AcpRun } from './acp-client.js';

const runs: AcpRun[] = [];
const servers: TestServer[] = [];
afterEach(async () => {
  for (const run of runs.splice(0)) await run.close();
  for (const server of servers.splice(0)) await server.close();
});

const SLOW = { timeout: 300_000 };

async function besideServer(): Promise<{ server: TestServer; run: AcpRun; project: string }> {
  const server = await startTestServer({}, { dataDir: tempDir('acp-projects-data') });
  servers.push(server);
  // The editor's own project: not the folder the web UI's server was started for.
  const project = tempDir('acp-editor-project');
  fs.writeFileSync(path.join(project, 'README.md'), 'the editor project\n');
  // Found through the data folder's lock, as an editor's `skein acp` finds the web UI's server.
  const run = startAcp({ SKEIN_DATA_DIR: server.dataDir });
  runs.push(run);
  await run.connection.agent.request('initialize', { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} }).catch((err: unknown) => {
    throw new Error(`${String(err)}: ${run.stderr()}`);
  });
  return { server, run, project };
}

const pending = async (server: TestServer) => (await api<{ requests: ProjectRequest[] }>(server.url, '/api/projects')).body.requests;

describe('skein acp beside a running web server: the editor opens its own project', () => {
  it('asks through session/request_permission; allowed, the session works in the editor\'s folder, which stays a project', SLOW, async () => {
    const { server, run, project } = await besideServer();
    run.answerPermission = async (request) => ({ outcome: { outcome: 'selected', optionId: request.options.find((o) => o.kind === 'allow_always')!.optionId } });
    const created = await run.connection.agent.request('session/new', { cwd: project, mcpServers: [] });
    expect(run.permissions).toHaveLength(1);
    expect(run.permissions[0]!.toolCall.title).toBe(`Open ${fs.realpathSync(project)} in skein?`);
    const snapshot = (await api<SessionSnapshot>(server.url, `/api/sessions/${created.sessionId}`)).body;
    expect(snapshot.workspace?.workDir).toBe(project);
    // Remembered: in the list (and the data folder's file), and not asked again.
    const projects = (await api<{ projects: { folder: string }[] }>(server.url, '/api/projects')).body.projects.map((p) => p.folder);
    expect(projects).toContain(fs.realpathSync(project));
    const file = path.join(server.dataDir, 'projects.json');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readFileSync(file, 'utf8')).toContain(fs.realpathSync(project));
    await run.connection.agent.request('session/new', { cwd: path.join(project), mcpServers: [] });
    expect(run.permissions).toHaveLength(1);
    expect(await pending(server)).toEqual([]);
  });

  it('denied in the editor: invalid params that say so and how to allow it; nothing is added', SLOW, async () => {
    const { server, run, project } = await besideServer();
    run.answerPermission = async (request) => ({ outcome: { outcome: 'selected', optionId: request.options.find((o) => o.kind === 'reject_once')!.optionId } });
    const refused = run.connection.agent.request('session/new', { cwd: project, mcpServers: [] });
    await expect(refused).rejects.toMatchObject({ code: -32602 });
    await expect(refused).rejects.toThrow(/not inside a project: opening it in skein was denied.*allow it, or add it in the web UI/);
    expect((await api<{ projects: { folder: string }[] }>(server.url, '/api/projects')).body.projects.map((p) => p.folder)).toEqual([server.workDir]);
    expect(await pending(server)).toEqual([]);
    expect(fs.existsSync(path.join(server.dataDir, 'projects.json'))).toBe(false);
  });

  it('answered in the web UI first: the editor\'s prompt is withdrawn and the session opens', SLOW, async () => {
    const { server, run, project } = await besideServer();
    let withdrawn = false;
    run.answerPermission = (_request, signal) =>
      new Promise((resolve) => signal.addEventListener('abort', () => ((withdrawn = true), resolve({ outcome: { outcome: 'cancelled' } }))));
    const created = run.connection.agent.request('session/new', { cwd: project, mcpServers: [] });
    // Every web UI tab is told (the list socket carries the same list).
    const [request] = await until(async () => ((await pending(server)).length ? pending(server) : undefined), 'the pending request');
    expect(request!.folder).toBe(fs.realpathSync(project));
    await until(() => run.permissions.length === 1, 'the editor\'s prompt');
    expect((await api(server.url, `/api/projects/requests/${request!.id}`, { body: { decision: 'allow' } })).status).toBe(200);
    const { sessionId } = await created;
    expect((await api<SessionSnapshot>(server.url, `/api/sessions/${sessionId}`)).body.workspace?.workDir).toBe(project);
    await until(() => withdrawn, 'the editor\'s prompt withdrawn');
    // The second answer is too late.
    expect((await api(server.url, `/api/projects/requests/${request!.id}`, { body: { decision: 'deny' } })).status).toBe(409);
  });

  it('never asks about the home folder itself, the whole disk or the data folder: refused with the reason', SLOW, async () => {
    const { server, run } = await besideServer();
    for (const [cwd, reason] of [
      [os.homedir(), /your home folder itself/],
      ['/', /the whole disk/],
      [server.dataDir, /skein's data folder/],
    ] as const) {
      await expect(run.connection.agent.request('session/new', { cwd, mcpServers: [] })).rejects.toThrow(reason);
    }
    expect(run.permissions).toEqual([]);
  });
});

describe('a request the editor gives up on leaves every prompt', () => {
  it('the editor cancels its session/new: the request is withdrawn (denied), no longer pending anywhere', SLOW, async () => {
    const { server, run, project } = await besideServer();
    let editorPromptWithdrawn = false;
    run.answerPermission = (_request, signal) =>
      new Promise((resolve) => signal.addEventListener('abort', () => ((editorPromptWithdrawn = true), resolve({ outcome: { outcome: 'cancelled' } }))));
    const cancel = new AbortController();
    const created = run.connection.agent.request('session/new', { cwd: project, mcpServers: [] }, { cancellationSignal: cancel.signal });
    created.catch(() => undefined);
    const [request] = await until(async () => ((await pending(server)).length ? pending(server) : undefined), 'the pending request');
    await until(() => run.permissions.length === 1, "the editor's prompt");
    cancel.abort();
    await expect(created).rejects.toBeDefined();
    await until(async () => (await pending(server)).length === 0, 'the request withdrawn');
    expect((await api<{ request: ProjectRequest }>(server.url, `/api/projects/requests/${request!.id}`)).body.request.state).toBe('denied');
    await until(() => editorPromptWithdrawn, "the editor's prompt withdrawn");
    expect((await api<{ projects: { folder: string }[] }>(server.url, '/api/projects')).body.projects.map((p) => p.folder)).toEqual([server.workDir]);
  });

  it('the editor goes away (skein acp ends) with its prompt open: the request is withdrawn once nobody waits on it', SLOW, async () => {
    const { server, run, project } = await besideServer();
    run.answerPermission = () => new Promise(() => undefined); // never answered
    run.connection.agent.request('session/new', { cwd: project, mcpServers: [] }).catch(() => undefined);
    await until(async () => (await pending(server)).length === 1, 'the pending request');
    run.child.kill('SIGKILL');
    await run.exited;
    // Its wait (GET ?wait=) is cut with the process; the request then lives 15 s at most.
    await expect.poll(async () => (await pending(server)).length, { timeout: 120_000, interval: 500 }).toBe(0);
  });
});

describe('an editor that refuses the question (Zed answers an error for a session it does not know yet)', () => {
  const refuses = async () => {
    throw new Error('session not found');
  };

  it('with no web UI tab open: session/new fails at once, saying what the editor answered and where to add the folder; nothing stays pending', SLOW, async () => {
    const { server, run, project } = await besideServer();
    run.answerPermission = refuses;
    const refused = run.connection.agent.request('session/new', { cwd: project, mcpServers: [] });
    await expect(refused).rejects.toMatchObject({ code: -32602 });
    await expect(refused).rejects.toThrow(/not one of skein's projects yet, and the editor could not show skein's question about it \(.+\)\. Open skein's web UI \(http:\/\/127\.0\.0\.1:\d+\) and add it/);
    await until(async () => (await pending(server)).length === 0, 'the request withdrawn');
    expect((await api<{ projects: { folder: string }[] }>(server.url, '/api/projects')).body.projects.map((p) => p.folder)).toEqual([server.workDir]);
  });

  it('with a web UI tab open: the question waits there, and allowed in the tab the session opens', SLOW, async () => {
    const { server, run, project } = await besideServer();
    run.answerPermission = refuses;
    const tab = new WebSocket(`${server.url.replace('http', 'ws')}/ws/sessions`, { headers: authHeaders(server.url) });
    await new Promise((resolve, reject) => (tab.once('open', resolve), tab.once('error', reject)));
    try {
      const created = run.connection.agent.request('session/new', { cwd: project, mcpServers: [] });
      const [request] = await until(async () => ((await pending(server)).length ? pending(server) : undefined), 'the pending request');
      await until(() => run.permissions.length === 1, "the editor's refused question");
      await api(server.url, `/api/projects/requests/${request!.id}`, { body: { decision: 'allow' } });
      const { sessionId } = await created;
      expect((await api<SessionSnapshot>(server.url, `/api/sessions/${sessionId}`)).body.workspace?.workDir).toBe(project);
    } finally {
      tab.close();
    }
  });
});
