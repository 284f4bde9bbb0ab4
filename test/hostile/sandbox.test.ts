// A prompt-injected model inside SKEIN_SANDBOX=workspace, through the real
// server and the real bubblewrap: every trick of sandbox-tricks.ts is run by
// the agent's bash and checked on the host. Host Unix socket listeners count
// connections; markers outside the folder show whether anything ran on the
// host; and each test's control (the same trick unconfined) shows that the
// check would catch it.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { SkeinEvent } from '../../shared/protocol.js';
import { bashTool } from '../../server/tools/bash.js';
import { killAllToolProcesses } from '../../server/tools/processes.js';
import { standingPlaceholders } from '../../server/tools/sandbox/placeholders.js';
import type { SandboxSettings } from '../../server/tools/sandbox.js';
import type { ToolContext } from '../../server/tools/tool.js';
import { startChildServer } from '../helpers/child-server.js';
import { api, startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { eventsOf, waitForEvents } from '../helpers/ui.js';
import { until } from '../helpers/until.js';
import { plantSandboxTricks, type SandboxTrick } from './sandbox-tricks.js';
import { outsideTmpDir } from '../helpers/temp-dir.js';

const servers: TestServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});
afterAll(() => killAllToolProcesses());

/** A folder outside the working folder and outside /tmp (the sandbox's /tmp is its own). */
function outsideDir(prefix: string): string {
  return outsideTmpDir(prefix);
}

const gitIn = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=skein test', '-c', 'user.email=test@example.invalid', '-c', 'init.defaultBranch=main', ...args], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/** A repository with one commit and the tricks planted (committed, so a worktree has them too). */
function hostileRepo(): { dir: string; tricks: Record<SandboxTrick, string> } {
  const dir = tempDir('hostile');
  gitIn(dir, 'init', '--quiet');
  fs.writeFileSync(path.join(dir, 'CLAUDE.md'), 'the real instructions\n');
  const tricks = plantSandboxTricks(dir);
  gitIn(dir, 'add', '-A');
  gitIn(dir, 'commit', '--quiet', '-m', 'start');
  return { dir, tricks };
}

async function sandboxedServer(env: Record<string, string> = {}, dirs?: { dataDir?: string; workDir?: string }): Promise<TestServer> {
  const server = await startTestServer({ SKEIN_SANDBOX: 'workspace', ...env }, dirs);
  servers.push(server);
  return server;
}

async function newSession(server: TestServer, body: Record<string, unknown> = {}): Promise<string> {
  const res = await api<{ id: string; error?: string }>(server.url, '/api/sessions', { body });
  expect(res.status, res.body.error).toBe(201);
  return res.body.id;
}

const idleCount = (events: SkeinEvent[]) => events.filter((e) => e.kind === 'state' && e.to === 'WaitingForUserInput').length;

/** The agent's bash runs `command`; returns what the tool answered. */
async function agentBash(server: TestServer, id: string, command: string): Promise<string> {
  const before = idleCount(await eventsOf(server.url, id));
  await api(server.url, `/api/sessions/${id}/messages`, { body: { text: `bash: ${command}` } });
  const events = await waitForEvents(server.url, id, (es) => idleCount(es) > before, 60_000);
  const result = events.filter((e) => e.kind === 'tool_result').at(-1);
  if (result?.kind !== 'tool_result') throw new Error('no tool result');
  return result.output;
}

/** The same script on the host, unconfined (the controls). */
function unconfined(cwd: string, script: string, ...args: string[]): string {
  return execFileSync('bash', [script, ...args], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** The connect script on the host, unconfined, until `listener` counts a connection (the control for the socket tests). */
async function connectsUnconfined(cwd: string, script: string, target: { at: string; connections: () => number }, name = target.at): Promise<void> {
  const child = spawn('bash', [script, name], { cwd, stdio: 'ignore', detached: true });
  try {
    await until(() => target.connections() > 0, `an unconfined connection to ${name}`, 30_000);
  } finally {
    if (child.pid !== undefined) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        /* gone already */
      }
    }
  }
}

/** A Unix socket listener on the host that counts connections (`at` starting with \0: the abstract namespace). */
async function listener(at: string): Promise<{ at: string; connections: () => number; close: () => Promise<void> }> {
  let count = 0;
  const server = net.createServer((socket) => {
    count++;
    socket.on('error', () => {});
    // Read what comes (else the socket never ends and close() waits for ever).
    socket.resume();
    socket.end();
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(at, resolve));
  return { at, connections: () => count, close: () => new Promise((r) => server.close(() => r())) };
}

function ctx(workDir: string, sandbox?: SandboxSettings): ToolContext {
  return { workDir, signal: new AbortController().signal, bashTimeoutMs: 30_000, outputLimit: 100_000, ...(sandbox && { sandbox }) };
}

describe('host Unix sockets', () => {
  it('a listener outside the folder and one inside it get no connection from node, python3 or curl; socketpair and pipes still work', async () => {
    const { dir, tricks } = hostileRepo();
    const outside = await listener(path.join(outsideDir('sock'), 'host.sock'));
    // Inside the working folder the socket file is visible: only the seccomp filter stands between.
    const inside = await listener(path.join(dir, 'inside.sock'));
    try {
      const server = await sandboxedServer({ SKEIN_WORKDIR: dir });
      const id = await newSession(server);
      const fromInside = await agentBash(server, id, `bash ${tricks['unix-connect']} ${inside.at}`);
      expect(fromInside).toContain('node: EPERM');
      expect(fromInside).toContain('python: Operation not permitted');
      expect(fromInside).not.toContain('connected');
      const fromOutside = await agentBash(server, id, `bash ${tricks['unix-connect']} ${outside.at}`);
      expect(fromOutside).not.toContain('connected');
      expect(inside.connections()).toBe(0);
      expect(outside.connections()).toBe(0);
      const pairs = await agentBash(server, id, `bash ${tricks.socketpair}`);
      expect(pairs).toContain('pipe: through a pipe');
      expect(pairs).toContain('ipc: ping back');
      expect(pairs).toContain('python socketpair: pair');
      expect(pairs).toContain('bash: sub');
      // Control: the same script on the host connects to both.
      await connectsUnconfined(dir, tricks['unix-connect'], inside);
      await connectsUnconfined(dir, tricks['unix-connect'], outside);
    } finally {
      await inside.close();
      await outside.close();
    }
  }, 120_000);

  it('with SKEIN_SANDBOX_NETWORK=on (the abstract namespace is shared) an abstract listener gets no connection', async () => {
    const { dir, tricks } = hostileRepo();
    const name = `skein-test-${process.pid}-${Date.now()}`;
    const abstract = await listener(`\0${name}`);
    try {
      const server = await sandboxedServer({ SKEIN_WORKDIR: dir, SKEIN_SANDBOX_NETWORK: 'on' });
      const id = await newSession(server);
      const output = await agentBash(server, id, `bash ${tricks['unix-connect']} @${name}`);
      expect(output).toContain('node: EPERM');
      expect(output).toContain('python: Operation not permitted');
      expect(abstract.connections()).toBe(0);
      await connectsUnconfined(dir, tricks['unix-connect'], abstract, `@${name}`);
    } finally {
      await abstract.close();
    }
  }, 120_000);

  it('no user namespace of its own (it could mount around the read-only binds), no io_uring (it makes sockets without socket())', async () => {
    const { dir, tricks } = hostileRepo();
    const output = (await bashTool.run({ command: `bash ${tricks.namespaces}` }, ctx(dir, { network: false }))).output;
    expect(output).toMatch(/unshare: [1-9]/);
    expect(output).toMatch(/unshare-mount: [1-9]/);
    expect(output).toContain('io_uring_setup: errno 1');
  }, 60_000);

  it('no capabilities inside, even when skein runs as root (bwrap keeps the caller\'s otherwise: mount, every unshare)', async () => {
    const { dir } = hostileRepo();
    const output = (await bashTool.run({ command: 'grep -E "^Cap(Eff|Prm):" /proc/self/status; unshare --uts true; echo "unshare-uts: $?"' }, ctx(dir, { network: false }))).output;
    expect(output).toMatch(/CapEff:\s+0+\n/);
    expect(output).toMatch(/CapPrm:\s+0+\n/);
    expect(output).toMatch(/unshare-uts: [1-9]/);
  }, 60_000);
});

describe('what lies outside the working folder', () => {
  it("the data folder (the token, every session's log) is not there", async () => {
    const { dir, tricks } = hostileRepo();
    const server = await sandboxedServer({ SKEIN_WORKDIR: dir });
    const id = await newSession(server);
    const token = fs.readFileSync(path.join(server.dataDir, 'token'), 'utf8').trim();
    expect(token.length).toBeGreaterThan(15);
    const output = await agentBash(server, id, `bash ${tricks['read-files']} ${path.join(server.dataDir, 'token')} ${server.dataDir}/sessions/${id}.jsonl`);
    expect(output).toContain(`unreadable ${path.join(server.dataDir, 'token')}`);
    expect(output).toContain(`unreadable ${server.dataDir}/sessions/${id}.jsonl`);
    expect(output).not.toContain(token);
    expect(output).not.toMatch(/redacted/);
    // Control: unconfined, the script reads it.
    expect(unconfined(dir, tricks['read-files'], path.join(server.dataDir, 'token'))).toContain(token);
  }, 120_000);

  it('the data folder inside the working folder is an empty folder in the sandbox: the token file is invisible', async () => {
    const { dir, tricks } = hostileRepo();
    const dataDir = path.join(dir, '.skein-data');
    const server = await sandboxedServer({ SKEIN_WORKDIR: dir }, { dataDir, workDir: dir });
    const id = await newSession(server);
    const token = fs.readFileSync(path.join(dataDir, 'token'), 'utf8').trim();
    const output = await agentBash(server, id, `bash ${tricks['read-files']} .skein-data/token; ls -A .skein-data | wc -l; echo planted > .skein-data/token; echo write: $?`);
    expect(output).toContain('unreadable .skein-data/token');
    expect(output).not.toContain(token);
    expect(output).toMatch(/^0$/m);
    // Its writes land in a tmpfs that goes with the command: the real token is untouched.
    expect(fs.readFileSync(path.join(dataDir, 'token'), 'utf8').trim()).toBe(token);
  }, 120_000);

  it('$HOME is an empty folder: ~/.ssh is not there, also when the working folder is inside the home folder or is it', async () => {
    const home = tempDir('home');
    fs.mkdirSync(path.join(home, '.ssh'));
    fs.writeFileSync(path.join(home, '.ssh', 'id_rsa'), '-----BEGIN FAKE PRIVATE KEY-----\n');
    fs.writeFileSync(path.join(home, 'notes.txt'), 'home notes\n');
    const project = path.join(home, 'project');
    fs.mkdirSync(project);
    const { tricks } = { tricks: plantSandboxTricks(project) };
    const settings: SandboxSettings = { network: false, home };
    const inside = (await bashTool.run({ command: `bash ${tricks['read-files']} ${home}/.ssh/id_rsa ../.ssh/id_rsa ~/.ssh/id_rsa ../notes.txt` }, ctx(project, settings))).output;
    expect(inside).not.toContain('FAKE PRIVATE KEY');
    expect(inside).not.toContain('home notes');
    expect(inside).toContain(`unreadable ${home}/.ssh/id_rsa`);
    // The working folder is the home folder: it shows, its credentials do not.
    const tricksAtHome = plantSandboxTricks(home);
    const atHome = (await bashTool.run({ command: `bash ${tricksAtHome['read-files']} .ssh/id_rsa notes.txt` }, ctx(home, settings))).output;
    expect(atHome).not.toContain('FAKE PRIVATE KEY');
    expect(atHome).toContain('READ notes.txt');
    // Control: unconfined, the key is read.
    expect((await bashTool.run({ command: `bash ${tricks['read-files']} ../.ssh/id_rsa` }, ctx(project))).output).toContain('FAKE PRIVATE KEY');
  }, 60_000);

  it("the environments of its parent and grandparent, /proc/1/environ and every visible process's environment hold no SKEIN_TOKEN and no key", async () => {
    const { dir, tricks } = hostileRepo();
    // A server process started with the secrets in its environment (what /proc/<pid>/environ shows).
    const secrets = { SKEIN_TOKEN: `skein-token-${'t'.repeat(24)}`, SERVICE_API_KEY: `service-key-${'k'.repeat(24)}` };
    const child = await startChildServer({ ...secrets, SKEIN_SANDBOX: 'workspace', SKEIN_WORKDIR: dir, SKEIN_DATA_DIR: tempDir('data') });
    try {
      const { body } = await api<{ id: string }>(child.url, '/api/sessions', { body: {} });
      const sandboxed = await agentBash({ url: child.url } as TestServer, body.id, `bash ${tricks['proc-environ']}`);
      expect(sandboxed).toContain('--- pid 1');
      expect(sandboxed).toMatch(/^PATH=/m);
      for (const value of Object.values(secrets)) expect(sandboxed).not.toContain(value);
      expect(sandboxed).not.toMatch(/redacted/);
      // Only the sandbox's own processes: bwrap, bash and the script.
      expect(Number(/--- processes\n(\d+)/.exec(sandboxed)?.[1])).toBeLessThan(8);
    } finally {
      await child.kill();
    }
    // Control: the same server without the sandbox, whose bash reads the server's environment through /proc (its grandparent's).
    const free = await startChildServer({ ...secrets, SKEIN_WORKDIR: dir, SKEIN_DATA_DIR: tempDir('data') });
    try {
      const { body } = await api<{ id: string }>(free.url, '/api/sessions', { body: {} });
      const output = await agentBash({ url: free.url } as TestServer, body.id, `bash ${tricks['proc-environ']}`);
      // The log masks what it finds: the names show that the values were there.
      expect(output).toMatch(/SKEIN_TOKEN=\[redacted|SKEIN_TOKEN=skein-token/);
      expect(output).toMatch(/SERVICE_API_KEY=\[redacted|SERVICE_API_KEY=service-key/);
    } finally {
      await free.kill();
    }
  }, 120_000);
});

describe('files skein or git would trust later', () => {
  it('.mcp.json and AGENTS.md cannot be planted, CLAUDE.md cannot be changed, and no stand-in is left behind', async () => {
    const { dir, tricks } = hostileRepo();
    const marker = path.join(outsideDir('mcp-marker'), 'PWNED');
    const server = await sandboxedServer({ SKEIN_WORKDIR: dir });
    const id = await newSession(server);
    const output = await agentBash(server, id, `bash ${tricks['plant-project-files']} ${marker}`);
    expect(output).toMatch(/\.mcp\.json: .*(Read-only file system|Is a directory)|\.mcp\.json: [1-9]/s);
    expect(output).not.toContain('.mcp.json: 0');
    expect(output).not.toContain('AGENTS.md: 0');
    expect(output).not.toContain('CLAUDE.md: 0');
    expect(fs.existsSync(path.join(dir, '.mcp.json'))).toBe(false);
    expect(fs.existsSync(path.join(dir, 'AGENTS.md'))).toBe(false);
    expect(fs.readFileSync(path.join(dir, 'CLAUDE.md'), 'utf8')).toBe('the real instructions\n');
    expect(standingPlaceholders()).toEqual([]);
    // The next start finds no .mcp.json to run.
    await servers.splice(0)[0]!.close();
    const again = await startTestServer({}, { workDir: dir });
    await again.close();
    expect(fs.existsSync(marker)).toBe(false);
    // Control: unconfined, the script plants all three.
    unconfined(dir, tricks['plant-project-files'], marker);
    expect(fs.existsSync(path.join(dir, '.mcp.json'))).toBe(true);
    expect(fs.readFileSync(path.join(dir, 'CLAUDE.md'), 'utf8')).toContain('attacker');
  }, 120_000);

  it(".git/hooks/pre-commit, core.fsmonitor, core.hooksPath, .git/commondir and .git/info cannot be written: the user's own git later runs nothing", async () => {
    const { dir, tricks } = hostileRepo();
    const marker = path.join(outsideDir('git-marker'), 'PWNED');
    const configBefore = fs.readFileSync(path.join(dir, '.git', 'config'), 'utf8');
    const server = await sandboxedServer({ SKEIN_WORKDIR: dir });
    const id = await newSession(server);
    const output = await agentBash(server, id, `bash ${tricks['plant-git']} ${marker}`);
    for (const what of ['hook', 'fsmonitor', 'hooksPath', 'commondir', 'info']) expect(output).toMatch(new RegExp(`${what}: [1-9]`));
    expect(fs.readFileSync(path.join(dir, '.git', 'config'), 'utf8')).toBe(configBefore);
    expect(fs.existsSync(path.join(dir, '.git', 'hooks', 'pre-commit'))).toBe(false);
    expect(fs.existsSync(path.join(dir, '.git', 'commondir'))).toBe(false);
    // The user's own, unhardened git in the folder afterwards.
    gitIn(dir, 'status');
    gitIn(dir, 'commit', '--quiet', '--allow-empty', '-m', 'by the user');
    expect(fs.existsSync(marker)).toBe(false);
    // Control: unconfined, the same script makes the user's next commit run the marker.
    unconfined(dir, tricks['plant-git'], marker);
    // (the planted commondir points nowhere and would stop git before anything ran)
    fs.rmSync(path.join(dir, '.git', 'commondir'));
    gitIn(dir, 'status');
    expect(fs.existsSync(marker)).toBe(true);
  }, 120_000);

  it('.git cannot be renamed, removed or replaced by a new repository', async () => {
    const { dir, tricks } = hostileRepo();
    const marker = path.join(outsideDir('swap-marker'), 'PWNED');
    const head = gitIn(dir, 'rev-parse', 'HEAD').trim();
    const server = await sandboxedServer({ SKEIN_WORKDIR: dir });
    const id = await newSession(server);
    const output = await agentBash(server, id, `bash ${tricks['swap-git']} ${marker}`);
    expect(output).toMatch(/rename: [1-9]/);
    expect(output).toMatch(/fsmonitor: [1-9]/);
    expect(fs.existsSync(path.join(dir, '.git-old'))).toBe(false);
    expect(gitIn(dir, 'rev-parse', 'HEAD').trim()).toBe(head);
    gitIn(dir, 'status');
    expect(fs.existsSync(marker)).toBe(false);
  }, 120_000);

  it('a folder without a repository: the sandbox cannot git init one (its hooks and config would be of its making)', async () => {
    const plain = tempDir('plain');
    const { tricks } = { tricks: plantSandboxTricks(plain) };
    const marker = path.join(outsideDir('init-marker'), 'PWNED');
    const output = (await bashTool.run({ command: `bash ${tricks['swap-git']} ${marker}` }, ctx(plain, { network: false }))).output;
    expect(output).toMatch(/init: [1-9]/);
    expect(fs.existsSync(path.join(plain, '.git'))).toBe(false);
  }, 60_000);

  it('the main checkout cannot commit inside the sandbox (its .git is read-only, as under Codex): HEAD stays', async () => {
    const { dir } = hostileRepo();
    const head = gitIn(dir, 'rev-parse', 'HEAD').trim();
    const output = (await bashTool.run({ command: 'echo x > new.txt && git add -A && git commit -qm x' }, ctx(dir, { network: false }))).output;
    expect(output).toMatch(/index\.lock.*Read-only file system/);
    expect(gitIn(dir, 'rev-parse', 'HEAD').trim()).toBe(head);
  }, 60_000);
});

describe("a worktree session's git", () => {
  it('commits inside the sandbox, and cannot write the shared config, the hooks, its .git file or its config.worktree', async () => {
    const { dir } = hostileRepo();
    const marker = path.join(outsideDir('worktree-marker'), 'PWNED');
    const configBefore = fs.readFileSync(path.join(dir, '.git', 'config'), 'utf8');
    const server = await sandboxedServer({ SKEIN_WORKDIR: dir });
    const id = await newSession(server, { folder: dir, worktree: true });
    const commit = await agentBash(server, id, `echo work > work.txt && git add -A && git -c user.name=agent -c user.email=agent@example.invalid commit -qm 'from the sandbox' && git log -1 --format=%s`);
    expect(commit).toMatch(/^exit code: 0\nfrom the sandbox$/);
    expect(gitIn(dir, 'log', '-1', '--format=%s', `skein/${id}`).trim()).toBe('from the sandbox');
    const attacks = await agentBash(
      server,
      id,
      [
        `git config core.fsmonitor 'touch ${marker}'; echo "config: $?"`,
        `printf '#!/bin/sh\\ntouch ${marker}\\n' > "$(git rev-parse --git-common-dir)/hooks/post-commit"; echo "hook: $?"`,
        `echo 'gitdir: /elsewhere' > .git; echo "dotgit: $?"`,
        `echo '[core] fsmonitor = touch ${marker}' > "$(git rev-parse --git-dir)/config.worktree"; echo "config.worktree: $?"`,
        `echo /elsewhere > "$(git rev-parse --git-dir)/commondir"; echo "commondir: $?"`,
        `cat ${path.join(server.dataDir, 'token')}; echo "token: $?"`,
      ].join('; '),
    );
    for (const what of ['config', 'hook', 'dotgit', 'config.worktree', 'commondir', 'token']) expect(attacks).toMatch(new RegExp(`^${what}: [1-9]`, 'm'));
    expect(fs.readFileSync(path.join(dir, '.git', 'config'), 'utf8')).toBe(configBefore);
    expect(fs.existsSync(path.join(dir, '.git', 'hooks', 'post-commit'))).toBe(false);
    // The user's own git, in the repository and in the worktree, runs nothing.
    gitIn(dir, 'status');
    const worktree = path.join(server.dataDir, 'worktrees', id);
    gitIn(worktree, 'status');
    gitIn(worktree, 'commit', '--quiet', '--allow-empty', '-m', 'by the user');
    expect(fs.existsSync(marker)).toBe(false);
    // No stand-in (config.worktree) is left in the repository's metadata.
    expect(fs.existsSync(path.join(dir, '.git', 'worktrees', id, 'config.worktree'))).toBe(false);
  }, 120_000);
});
