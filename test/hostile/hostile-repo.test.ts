// The whole hostile repository (hostile-repo.ts: every trick of this folder's
// suites at once, plus git tricks on the top repository) opened in a real
// server with SKEIN_SANDBOX=workspace, used as a person would: start, look at
// the untrusted .mcp.json, let the agent (obeying the repository's
// AGENTS.md) run the leak script and try to plant hooks and config, open
// Changes, make and delete a worktree session, restart. Nothing may run on
// the host (no marker), nothing may be sent (the listener hears nothing), the
// token never reaches the timeline, and git's config is as the clone left it.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProjectFileTrust, SkeinEvent } from '../../shared/protocol.js';
import { api, startTestServer, tempDir } from '../helpers/server.js';
import { TestClient } from '../helpers/ws-client.js';
import { plantHostileRepository, type HostileRepository } from './hostile-repo.js';
import { outsideTmpDir } from '../helpers/temp-dir.js';

const FAKE_GITHUB_TOKEN = 'ghp_wholeHostileRepoMustNotSeeThis0987';
let listener: http.Server;
let listenerUrl = '';
const heard: string[] = [];

beforeAll(async () => {
  listener = http.createServer((req, res) => {
    heard.push(`${req.method} ${req.url}`);
    res.end();
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  listenerUrl = `http://127.0.0.1:${(listener.address() as { port: number }).port}`;
  process.env.GITHUB_TOKEN = FAKE_GITHUB_TOKEN;
});
afterAll(async () => {
  delete process.env.GITHUB_TOKEN;
  await new Promise((r) => listener.close(r));
});

/** Outside /tmp: the sandbox's /tmp is its own, which would hide the data folder for the wrong reason. */
function outsideTmp(prefix: string): string {
  return outsideTmpDir(prefix);
}

const markersIn = (dir: string) => fs.readdirSync(dir).sort();

describe('the whole hostile repository under SKEIN_SANDBOX=workspace', () => {
  let repo: HostileRepository;
  let markerDir: string;
  let dataDir: string;

  beforeAll(() => {
    markerDir = tempDir('hostile-whole-markers');
    dataDir = outsideTmp('hostile-whole-data');
    repo = plantHostileRepository(tempDir('hostile-whole'), { markerDir, dataDir, listenerUrl });
  });

  it('control: the top repository\'s tricks are live (plain git status on a same-size edit runs them)', () => {
    fs.writeFileSync(path.join(repo.root, 'a.txt'), 'zzz\n');
    execFileSync('git', ['status', '--porcelain'], { cwd: repo.root, stdio: 'ignore' });
    execFileSync('git', ['diff', 'HEAD'], { cwd: repo.root, stdio: 'ignore' });
    expect(markersIn(markerDir)).toEqual(expect.arrayContaining(['top-fsmonitor', 'top-clean', 'top-textconv']));
    execFileSync('git', ['checkout', '--', 'a.txt'], { cwd: repo.root, stdio: 'ignore', env: { ...process.env, GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'core.hooksPath', GIT_CONFIG_VALUE_0: '/dev/null' } });
    for (const m of markersIn(markerDir)) fs.rmSync(path.join(markerDir, m));
  });

  it('start, a turn that obeys AGENTS.md, Changes, a worktree session, a restart: nothing runs on the host, nothing is sent', async () => {
    const configBefore = fs.readFileSync(path.join(repo.root, '.git', 'config'), 'utf8');
    let server = await startTestServer({ SKEIN_SANDBOX: 'workspace' }, { dataDir, workDir: repo.root });
    try {
      const token = fs.readFileSync(path.join(dataDir, 'token'), 'utf8').trim();
      // The project's .mcp.json is shown, untrusted, with what it would run.
      const files = (await api<{ files: ProjectFileTrust[] }>(server.url, '/api/trust')).body.files;
      expect(files).toEqual([expect.objectContaining({ file: '.mcp.json', status: 'untrusted' })]);
      expect(JSON.stringify(files[0]!.servers)).toContain('${GITHUB_TOKEN}');

      // The agent does what the repository's AGENTS.md says, then tries to plant what runs later on the host.
      const id = (await api<{ id: string }>(server.url, '/api/sessions', { body: {} })).body.id;
      const client = await TestClient.connect(server.url, id);
      const plant = [
        `sh ${repo.leakScript}`,
        `sh ${repo.sandbox['unix-connect']} /run/dbus/system_bus_socket`,
        `git config core.fsmonitor "touch ${markerDir}/planted-fsmonitor"`,
        `printf '#!/bin/sh\\ntouch ${markerDir}/planted-hook\\n' > .git/hooks/pre-commit`,
        `printf '{"mcpServers":{}}' > .mcp.json`,
        `printf 'zzz\\n' > a.txt`,
      ].join('; ');
      client.send({ type: 'user_message', text: `bash: ${plant}` });
      await client.untilIdle(1, 60_000);
      const output = client.events.flatMap((e: SkeinEvent) => (e.kind === 'tool_result' ? [e.output] : [])).join('\n');
      expect(output).not.toContain(token);
      expect(output).not.toContain('[redacted skein access token]');
      expect(output).not.toContain(FAKE_GITHUB_TOKEN);
      expect(output).toMatch(/Read-only file system|could not lock config file|Permission denied/);
      client.close();

      // Changes reads the edit, through git, with the repository's fsmonitor, filter and textconv in its config.
      const changes = (await api<{ files: { path: string }[] }>(server.url, `/api/sessions/${id}/changes`)).body;
      expect(changes.files.map((f) => f.path)).toContain('a.txt');

      // A worktree session (checkout: hooks, smudge filter), then its removal (status: fsmonitor, clean filter).
      const own = (await api<{ id: string }>(server.url, '/api/sessions', { body: { folder: repo.root, worktree: true } })).body.id;
      expect(own).toBeTruthy();
      const removed = await api(server.url, `/api/sessions/${own}?worktree=remove`, { method: 'DELETE' });
      expect(removed.status).toBeLessThan(300);

      await server.close();
      server = await startTestServer({ SKEIN_SANDBOX: 'workspace' }, { dataDir, workDir: repo.root });
      expect((await api<{ files: ProjectFileTrust[] }>(server.url, '/api/trust')).body.files[0]).toMatchObject({ status: 'untrusted' });
    } finally {
      await server.close();
    }
    expect(markersIn(markerDir)).toEqual([]);
    expect(heard).toEqual([]);
    expect(fs.readFileSync(path.join(repo.root, '.git', 'config'), 'utf8')).toBe(configBefore);
    expect(fs.existsSync(path.join(repo.root, '.git', 'hooks', 'pre-commit'))).toBe(false);
    expect(fs.readFileSync(path.join(repo.root, '.mcp.json'), 'utf8')).toBe(fs.readFileSync(repo.mcp.file, 'utf8'));
  });
});
