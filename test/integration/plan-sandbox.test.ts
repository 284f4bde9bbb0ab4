// Plan mode runs bash in a read-only sandbox (the real bwrap): through the
// real server and the predictable model, `ls` and `git status` answer, every
// write fails inside the sandbox (the model reads the error) and leaves the
// folder byte for byte as it was, the network is gone (also where
// SKEIN_SANDBOX_NETWORK=on), and nobody is asked. Where bubblewrap cannot
// start, bash is refused with the reason.
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { SkeinEvent } from '../../shared/protocol.js';
import { PredictableProvider } from '../../server/llm/predictable.js';
import { killAllToolProcesses } from '../../server/tools/processes.js';
import { startAgent } from '../helpers/agent.js';
import { api, startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { TestClient } from '../helpers/ws-client.js';
import { outsideTmpDir } from '../helpers/temp-dir.js';

/** Every entry under `dir` (.git included): its type, mode, and its bytes or link target. */
function snapshot(dir: string): Record<string, string> {
  const found: Record<string, string> = {};
  const walk = (at: string) => {
    for (const name of fs.readdirSync(at).sort()) {
      const full = path.join(at, name);
      const stat = fs.lstatSync(full);
      const rel = path.relative(dir, full);
      if (stat.isDirectory()) {
        found[rel] = `dir ${stat.mode}`;
        walk(full);
      } else if (stat.isSymbolicLink()) found[rel] = `link ${fs.readlinkSync(full)}`;
      else found[rel] = `file ${stat.mode} ${createHash('sha256').update(fs.readFileSync(full)).digest('hex')}`;
    }
  };
  walk(dir);
  return found;
}

/** A repository with one commit and a file changed since (git status has something to say). */
function repository(): string {
  const dir = fs.realpathSync(tempDir('plan-repo'));
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', ...args], { cwd: dir, stdio: 'pipe' });
  git('init', '--quiet');
  fs.writeFileSync(path.join(dir, 'notes.txt'), 'first\n');
  fs.mkdirSync(path.join(dir, 'src'));
  fs.writeFileSync(path.join(dir, 'src', 'main.ts'), 'export {};\n');
  git('add', '-A');
  git('commit', '--quiet', '-m', 'start');
  fs.writeFileSync(path.join(dir, 'notes.txt'), 'first\nsecond\n');
  // The index's stat data brought up to date, so that no git run on the host rewrites it later.
  git('status', '--porcelain');
  return dir;
}

/** A folder outside the working folder and outside /tmp (the sandbox's /tmp is its own). */
function outsideDir(): string {
  return outsideTmpDir('plan-outside');
}

let listener: net.Server;
let port = 0;
beforeAll(async () => {
  // A local TCP server: what an unconfined bash reaches and a sandboxed one cannot.
  listener = net.createServer((socket) => socket.end('hello from the host\n'));
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  port = (listener.address() as net.AddressInfo).port;
});
afterAll(async () => {
  await new Promise((r) => listener.close(r));
  killAllToolProcesses();
});

const servers: TestServer[] = [];
const clients: TestClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  for (const s of servers.splice(0)) await s.close();
});

/** A server whose sessions start in plan mode, on `workDir`; `bash(command)` runs one call and gives its result. */
async function planServer(workDir: string, env: Record<string, string> = {}) {
  const server = await startTestServer({ SKEIN_APPROVAL: 'plan', ...env }, { workDir });
  servers.push(server);
  const { body } = await api<{ id: string }>(server.url, '/api/sessions', { body: {} });
  const client = await TestClient.connect(server.url, body.id);
  clients.push(client);
  let turns = 0;
  return {
    events: () => client.events,
    async bash(command: string): Promise<{ output: string; isError: boolean }> {
      turns++;
      client.send({ type: 'user_message', text: `bash: ${command}` });
      const events: SkeinEvent[] = await client.untilIdle(turns, 60_000);
      const results = events.filter((e) => e.kind === 'tool_result');
      const result = results[turns - 1];
      if (result?.kind !== 'tool_result' || results.length !== turns) throw new Error(`no result for ${command}`);
      return { output: result.output, isError: result.isError };
    },
  };
}

/** Reads a line from the test's listener (its port is known once it listens). */
const connect = () => `exec 3<>/dev/tcp/127.0.0.1/${port} && head -n1 <&3`;

describe('plan mode runs bash in a read-only sandbox', () => {
  it('ls and git status run and answer; nobody is asked', async () => {
    const work = repository();
    const run = await planServer(work);
    const ls = await run.bash('ls -R');
    expect(ls).toEqual({ isError: false, output: expect.stringMatching(/^exit code: 0\n[\s\S]*notes\.txt[\s\S]*main\.ts/) });
    const status = await run.bash('git status');
    expect(status.isError).toBe(false);
    expect(status.output).toMatch(/^exit code: 0\nOn branch \w+[\s\S]*modified: +notes\.txt/);
    expect(run.events().filter((e) => e.kind === 'approval_request')).toEqual([]);
  });

  it('touch, a redirect, rm, git add and git commit fail inside the sandbox (the model sees the error); the folder is byte for byte the same; nothing outside changes', async () => {
    const work = repository();
    const outside = outsideDir();
    const before = snapshot(work);
    const run = await planServer(work);
    const git = 'git -c user.name=t -c user.email=t@example.invalid';
    for (const command of ['touch x', 'echo changed > notes.txt', 'rm notes.txt', 'rm -rf src', `${git} add -A`, `${git} commit --allow-empty -m planned`, `echo out > ${outside}/escaped.txt`]) {
      const result = await run.bash(command);
      expect(result.isError, command).toBe(true);
      // The error of the write itself: the folder is read-only (the outside folder is not even there).
      expect(result.output, command).toMatch(/Read-only file system|No such file or directory/);
      expect(result.output, command).not.toMatch(/^refused/);
    }
    // Its scratch /tmp works, and is its own.
    const scratch = await run.bash(`echo t > /tmp/plan-scratch-${port} && cat /tmp/plan-scratch-${port}`);
    expect(scratch).toEqual({ isError: false, output: 'exit code: 0\nt' });
    expect(fs.existsSync(`/tmp/plan-scratch-${port}`)).toBe(false);
    expect(snapshot(work)).toEqual(before);
    expect(fs.readdirSync(outside)).toEqual([]);
  });

  it('cannot reach the network, also with SKEIN_SANDBOX=workspace and SKEIN_SANDBOX_NETWORK=on (which the same server gives bash outside plan mode)', async () => {
    for (const env of [{}, { SKEIN_SANDBOX: 'workspace', SKEIN_SANDBOX_NETWORK: 'on' }] as Record<string, string>[]) {
      const run = await planServer(repository(), env);
      const result = await run.bash(connect());
      expect(result.isError).toBe(true);
      expect(result.output).toMatch(/Network is unreachable|Connection refused/);
      expect(result.output).not.toContain('hello from the host');
    }
    // Control: the listener answers a bash that is not in plan mode.
    const server = servers.at(-1)!;
    const { body } = await api<{ id: string }>(server.url, '/api/sessions', { body: {} });
    await api(server.url, `/api/sessions/${body.id}/mode`, { method: 'PUT', body: { mode: 'never' } });
    const client = await TestClient.connect(server.url, body.id);
    clients.push(client);
    client.send({ type: 'user_message', text: `bash: ${connect()}` });
    const events = await client.untilIdle(1, 60_000);
    expect(events.find((e) => e.kind === 'tool_result')).toMatchObject({ isError: false, output: expect.stringContaining('hello from the host') });
  });
});

describe('plan mode where bubblewrap cannot start', () => {
  /** A `bwrap` that fails the way it does where user namespaces are off. */
  function brokenBwrapDir(): string {
    const dir = tempDir('plan-fake-bwrap');
    fs.writeFileSync(path.join(dir, 'bwrap'), '#!/bin/sh\necho "bwrap: No permissions to create new namespace, likely because the kernel does not allow non-privileged user namespaces." >&2\nexit 1\n', { mode: 0o755 });
    return dir;
  }

  it('refuses bash, naming what was refused and why (namespaces refused), and runs nothing', async () => {
    const work = repository();
    const before = snapshot(work);
    const savedPath = process.env.PATH;
    process.env.PATH = `${brokenBwrapDir()}:${savedPath}`;
    try {
      const run = await planServer(work);
      const result = await run.bash('touch ran-anyway');
      expect(result.isError).toBe(true);
      expect(result.output).toMatch(
        /^refused: this session is in plan mode \(read-only\), so bash was not run: plan mode runs shell commands only inside a read-only sandbox, and bubblewrap cannot start one here \(bwrap: No permissions to create new namespace, likely because the kernel does not allow non-privileged user namespaces\.\)\. Allow unprivileged user namespaces/,
      );
      expect(run.events().filter((e) => e.kind === 'approval_request')).toEqual([]);
    } finally {
      process.env.PATH = savedPath;
    }
    expect(snapshot(work)).toEqual(before);
  });

  it('refuses bash where bwrap is not installed, saying how to install it', async () => {
    const work = tempDir('plan-agent-work');
    const run = startAgent(new PredictableProvider({ contextWindow: 100_000, maxOutputTokens: 1000 }), {
      workDir: work,
      approval: 'plan',
      planSandbox: { network: false, binary: path.join(tempDir('plan-no-bwrap'), 'bwrap') },
    });
    run.session.userMessage('bash: touch ran-anyway');
    await run.idle();
    const result = run.events().find((e) => e.kind === 'tool_result');
    expect(result).toMatchObject({ isError: true, output: expect.stringMatching(/so bash was not run: plan mode runs shell commands only inside a read-only sandbox, and bubblewrap cannot start one here \(.*bwrap is not installed \(Debian\/Ubuntu: apt-get install bubblewrap\)\)\. Install bubblewrap to run them in plan mode\./) });
    expect(fs.readdirSync(work)).toEqual([]);
  });
});
