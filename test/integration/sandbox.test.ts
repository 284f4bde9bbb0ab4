// SKEIN_SANDBOX=workspace: bash under bubblewrap cannot write outside the
// working folder, cannot reach the network, and leaves no process behind;
// the same commands do all three with the sandbox off. skein refuses to start
// with a sandbox bubblewrap cannot give.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { SkeinEvent } from '../../shared/protocol.js';
import { bashTool } from '../../server/tools/bash.js';
import { killAllToolProcesses } from '../../server/tools/processes.js';
import { probeSandbox, SandboxUnavailableError, type SandboxSettings } from '../../server/tools/sandbox.js';
import type { ToolContext } from '../../server/tools/tool.js';
import { alive } from '../helpers/processes.js';
import { api, startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { TestClient } from '../helpers/ws-client.js';
import { mcpServers, stdioEntry } from '../helpers/mcp.js';
import { outsideTmpDir } from '../helpers/temp-dir.js';

const sandboxed: SandboxSettings = { network: false };

/** A folder outside the working folder and outside /tmp (the sandbox's /tmp is its own). */
function outsideDir(prefix: string): string {
  return outsideTmpDir(prefix);
}

function ctx(workDir: string, sandbox?: SandboxSettings): ToolContext {
  return { workDir, signal: new AbortController().signal, bashTimeoutMs: 20_000, outputLimit: 30_000, ...(sandbox && { sandbox }) };
}

/** Pids of live processes whose command line contains `needle`. */
function processesWith(needle: string): number[] {
  const found: number[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmd = fs.readFileSync(`/proc/${name}/cmdline`, 'utf8').replaceAll('\0', ' ');
      if (cmd.includes(needle) && !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${name}/stat`, 'utf8'))) found.push(Number(name));
    } catch {
      /* exited meanwhile */
    }
  }
  return found;
}

async function until(check: () => boolean, what: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

let listener: net.Server;
let port = 0;
beforeAll(async () => {
  // A local TCP server: reachable from an unconfined bash, not from the sandbox's own network namespace.
  listener = net.createServer((socket) => socket.end('hello from the host\n'));
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  port = (listener.address() as net.AddressInfo).port;
});
afterAll(async () => {
  await new Promise((r) => listener.close(r));
  killAllToolProcesses();
});

describe('bash with SKEIN_SANDBOX=workspace', () => {
  it('cannot write outside the working folder (it can inside, and in its private /tmp); with off it can', async () => {
    const work = tempDir('sandbox-work');
    const outside = outsideDir('sandbox-outside');
    const command = `echo in > inside.txt && echo tmp > /tmp/scratch.txt && cat /tmp/scratch.txt && echo out > ${outside}/escaped.txt`;
    const confined = await bashTool.run({ command }, ctx(work, sandboxed));
    expect(confined.isError).toBe(true);
    // Read-only, or not even there when the repository itself lies under /tmp (the sandbox has its own /tmp).
    expect(confined.output).toMatch(/Read-only file system|No such file or directory/);
    expect(confined.output).toContain('tmp');
    expect(fs.readFileSync(path.join(work, 'inside.txt'), 'utf8')).toBe('in\n');
    expect(fs.existsSync(path.join(outside, 'escaped.txt'))).toBe(false);
    // Its /tmp was its own: nothing reached the real one.
    expect(fs.existsSync('/tmp/scratch.txt') && fs.readFileSync('/tmp/scratch.txt', 'utf8') === 'tmp\n').toBe(false);

    const free = await bashTool.run({ command: `echo out > ${outside}/escaped.txt` }, ctx(work));
    expect(free).toMatchObject({ isError: false });
    expect(fs.readFileSync(path.join(outside, 'escaped.txt'), 'utf8')).toBe('out\n');
  });

  it('cannot reach the network (a local TCP server refuses it); with off, or SKEIN_SANDBOX_NETWORK=on, it can', async () => {
    const work = tempDir('sandbox-net');
    const command = `exec 3<>/dev/tcp/127.0.0.1/${port} && head -n1 <&3`;
    const confined = await bashTool.run({ command }, ctx(work, sandboxed));
    expect(confined.isError).toBe(true);
    expect(confined.output).toMatch(/Connection refused|Network is unreachable/);
    expect(confined.output).not.toContain('hello from the host');
    const free = await bashTool.run({ command }, ctx(work));
    expect(free).toMatchObject({ isError: false, output: expect.stringContaining('hello from the host') });
    const networked = await bashTool.run({ command }, ctx(work, { network: true }));
    expect(networked).toMatchObject({ isError: false, output: expect.stringContaining('hello from the host') });
  });

  it('leaves no process behind: a backgrounded sleep is gone when the call returns; with off it keeps running', async () => {
    const work = tempDir('sandbox-procs');
    const tag = `${2000 + Math.floor(Math.random() * 1000)}.${process.pid}`;
    const confinedSleep = `sleep 1${tag}`;
    const confined = await bashTool.run({ command: `${confinedSleep} >/dev/null 2>&1 & setsid ${confinedSleep} >/dev/null 2>&1 & echo started` }, ctx(work, sandboxed));
    expect(confined).toMatchObject({ isError: false, output: expect.stringContaining('started') });
    // The namespace's processes are killed as its pid 1 exits; one may still be tearing down (state D) for a moment.
    await until(() => processesWith(confinedSleep).length === 0, `${confinedSleep} to be gone`, 10_000);

    const freeSleep = `sleep 2${tag}`;
    const free = await bashTool.run({ command: `${freeSleep} >/dev/null 2>&1 & echo started` }, ctx(work));
    expect(free.output).toContain('started');
    try {
      await until(() => processesWith(freeSleep).length > 0, `${freeSleep} to run`, 10_000);
      const [pid] = processesWith(freeSleep);
      // Unconfined, the job outlives its command (until the server stops): still there after the sandbox's was gone.
      await new Promise((r) => setImmediate(r));
      expect(alive(pid!)).toBe(true);
    } finally {
      killAllToolProcesses();
    }
  });

  it('a timeout still kills the sandboxed command', async () => {
    const work = tempDir('sandbox-timeout');
    const result = await bashTool.run({ command: 'sleep 30' }, { ...ctx(work, sandboxed), bashTimeoutMs: 300 });
    expect(result).toMatchObject({ isError: true, output: expect.stringContaining('killed: timed out after 300 ms') });
  });
});

describe('SKEIN_SANDBOX=workspace in the server', () => {
  const servers: TestServer[] = [];
  afterEach(async () => {
    for (const s of servers.splice(0)) await s.close();
  });

  it("the agent's bash runs confined", async () => {
    const outside = outsideDir('sandbox-server-outside');
    const server = await startTestServer({ SKEIN_SANDBOX: 'workspace' });
    servers.push(server);
    const { body } = await api<{ id: string }>(server.url, '/api/sessions', { body: {} });
    const client = await TestClient.connect(server.url, body.id);
    try {
      client.send({ type: 'user_message', text: `bash: echo ok > here.txt; echo no > ${outside}/there.txt` });
      const events: SkeinEvent[] = await client.untilIdle(1, 30_000);
      const result = events.find((e) => e.kind === 'tool_result');
      expect(result?.kind === 'tool_result' && result.output).toMatch(/Read-only file system|No such file or directory/);
      expect(fs.readFileSync(path.join(server.workDir, 'here.txt'), 'utf8')).toBe('ok\n');
      expect(fs.existsSync(path.join(outside, 'there.txt'))).toBe(false);
    } finally {
      client.close();
    }
  });
});

describe('what runs inside the sandbox', () => {
  it('a usual toolchain works: node, python3, git (status, log, diff), a pipe, a private /tmp and home', async () => {
    const work = tempDir('sandbox-tools');
    execFileSync('git', ['init', '--quiet'], { cwd: work });
    fs.writeFileSync(path.join(work, 'a.txt'), 'one\n');
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', 'add', '-A'], { cwd: work });
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', 'commit', '--quiet', '-m', 'start'], { cwd: work });
    fs.writeFileSync(path.join(work, 'a.txt'), 'two\n');
    const command = [
      `node -e 'console.log("node " + (6 * 7))'`,
      `python3 -c 'print("python", 6 * 7)'`,
      'git log --format=%s',
      'git diff --stat | tail -1',
      'echo piped | tr a-z A-Z',
      'echo t > /tmp/t && cat /tmp/t && touch ~/h && echo home ok',
    ].join(' && ');
    const result = await bashTool.run({ command }, ctx(work, { network: false, dataDir: tempDir('sandbox-data') }));
    expect(result.output).toBe('exit code: 0\nnode 42\npython 42\nstart\n 1 file changed, 1 insertion(+), 1 deletion(-)\nPIPED\nt\nhome ok');
  });

  it('MCP stdio servers run in it: their tools work, they can write in the working folder, not outside it', async () => {
    const outside = outsideDir('sandbox-mcp-outside');
    const work = tempDir('sandbox-mcp-work');
    const escaped = path.join(outside, 'ESCAPED');
    // The test server's helper process tries both; the script records how the outside write went.
    const script = path.join(work, 'escape.sh');
    fs.writeFileSync(script, `#!/bin/sh\ntouch ${escaped}\necho $? > ${path.join(work, 'escape-done')}\n`, { mode: 0o755 });
    const config = path.join(outside, 'mcp.json');
    fs.writeFileSync(config, JSON.stringify({ mcpServers: { inside: stdioEntry({ MCP_TEST_SPAWN: `touch ${path.join(work, 'written-inside')}` }), escape: stdioEntry({ MCP_TEST_SPAWN: script }) } }));
    // The test server's code and node_modules, shown read-only (it is not in the working folder).
    const server = await startTestServer(
      { SKEIN_SANDBOX: 'workspace', SKEIN_MCP_CONFIG: config, SKEIN_SANDBOX_READ: `${path.resolve('.')},${fs.realpathSync('node_modules')}` },
      { workDir: work },
    );
    try {
      const states = await mcpServers(server.url);
      expect(states.map((s) => [s.name, s.state])).toEqual([
        ['inside', 'ready'],
        ['escape', 'ready'],
      ]);
      const { body } = await api<{ id: string }>(server.url, '/api/sessions', { body: {} });
      const client = await TestClient.connect(server.url, body.id);
      try {
        client.send({ type: 'user_message', text: 'mcp: inside echo {"text":"from the sandbox"}' });
        const events: SkeinEvent[] = await client.untilIdle(1, 30_000);
        expect(events.find((e) => e.kind === 'tool_result')).toMatchObject({ name: 'mcp__inside__echo', output: 'echo: from the sandbox', isError: false });
      } finally {
        client.close();
      }
      await until(() => fs.existsSync(path.join(work, 'written-inside')), 'the inside write', 30_000);
      await until(() => fs.existsSync(path.join(work, 'escape-done')), 'the escape attempt', 30_000);
      expect(fs.readFileSync(path.join(work, 'escape-done'), 'utf8').trim()).not.toBe('0');
      expect(fs.existsSync(escaped)).toBe(false);
      // While they run, an empty read-only folder stands in for each protected file the folder lacks.
      expect(fs.readdirSync(path.join(work, '.mcp.json'))).toEqual([]);
    } finally {
      await server.close();
    }
    // And goes with them.
    await until(() => !['.mcp.json', 'AGENTS.md', 'CLAUDE.md', '.git'].some((f) => fs.existsSync(path.join(work, f))), 'the stand-ins to go', 10_000);
    // Control: run on the host, the script writes outside.
    execFileSync(script);
    expect(fs.existsSync(escaped)).toBe(true);
  }, 90_000);
});

describe('a sandbox bubblewrap cannot give is refused at start', () => {
  /** A `bwrap` that fails the way it does where user namespaces are off. */
  function brokenBwrapDir(): string {
    const dir = tempDir('fake-bwrap');
    const file = path.join(dir, 'bwrap');
    fs.writeFileSync(file, '#!/bin/sh\necho "bwrap: No permissions to create new namespace, likely because the kernel does not allow non-privileged user namespaces." >&2\nexit 1\n');
    fs.chmodSync(file, 0o755);
    return dir;
  }

  it('names the missing binary', () => {
    expect(() => probeSandbox({ network: false, binary: path.join(tempDir('no-bwrap'), 'bwrap') }, tempDir('w'))).toThrow(/bwrap is not installed \(Debian\/Ubuntu: apt-get install bubblewrap\)/);
  });

  it('refuses a bubblewrap that starts without applying the seccomp filter', () => {
    // A bwrap that drops --seccomp and runs the real one: the command would run with Unix sockets open.
    const dir = tempDir('no-seccomp-bwrap');
    const file = path.join(dir, 'bwrap');
    const real = execFileSync('sh', ['-c', 'command -v bwrap'], { encoding: 'utf8' }).trim();
    fs.writeFileSync(file, `#!/bin/bash
args=()
while [ $# -gt 0 ]; do if [ "$1" = --seccomp ]; then shift 2; continue; fi; args+=("$1"); shift; done
exec ${real} "\${args[@]}"
`);
    fs.chmodSync(file, 0o755);
    expect(() => probeSandbox({ network: false, binary: file }, tempDir('w'))).toThrow(/the seccomp filter was not applied/);
  });

  it('removes the stand-ins a killed server left (named in the data folder), and nothing else', () => {
    const dataDir = tempDir('stand-ins');
    const work = tempDir('stand-ins-work');
    const left = path.join(work, '.mcp.json');
    const userFolder = path.join(work, 'AGENTS.md');
    fs.mkdirSync(left);
    fs.mkdirSync(userFolder);
    fs.writeFileSync(path.join(userFolder, 'keep.txt'), 'mine\n');
    const stat = (p: string) => fs.statSync(p);
    fs.writeFileSync(
      path.join(dataDir, 'sandbox-placeholders.json'),
      JSON.stringify([
        { path: left, kind: 'folder', dev: stat(left).dev, ino: stat(left).ino },
        { path: userFolder, kind: 'folder', dev: stat(userFolder).dev, ino: stat(userFolder).ino },
      ]),
    );
    probeSandbox({ network: false, dataDir }, work);
    expect(fs.existsSync(left)).toBe(false);
    expect(fs.readFileSync(path.join(userFolder, 'keep.txt'), 'utf8')).toBe('mine\n');
  });

  it('passes on what bubblewrap said, and the real probe passes here', () => {
    const binary = path.join(brokenBwrapDir(), 'bwrap');
    expect(() => probeSandbox({ network: false, binary }, tempDir('w'))).toThrow(SandboxUnavailableError);
    expect(() => probeSandbox({ network: false, binary }, tempDir('w'))).toThrow(/kernel does not allow non-privileged user namespaces.*will not run bash unconfined/);
    expect(() => probeSandbox({ network: false }, tempDir('w'))).not.toThrow();
  });

  it('skein exits with code 2 and the reason instead of running bash unconfined', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.resolve('server/main.ts')], {
      env: { ...process.env, PATH: `${brokenBwrapDir()}:${process.env.PATH}`, SKEIN_PORT: '0', SKEIN_SANDBOX: 'workspace', SKEIN_DATA_DIR: tempDir('d'), SKEIN_WORKDIR: tempDir('w') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
    expect(code, output).toBe(2);
    expect(output).toContain('skein: SKEIN_SANDBOX=workspace: bubblewrap cannot start a sandbox here');
    expect(output).not.toContain('running at');
  }, 60_000);

  it('an unknown mode is refused naming the variable and the allowed values', async () => {
    await expect(startTestServer({ SKEIN_SANDBOX: 'strict' })).rejects.toThrow('SKEIN_SANDBOX="strict" is invalid: expected off | workspace');
    await expect(startTestServer({ SKEIN_APPROVAL: 'sometimes' })).rejects.toThrow('SKEIN_APPROVAL="sometimes" is invalid: expected never | on-write | always | plan');
  });
});
