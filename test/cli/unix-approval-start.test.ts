// `skein run` as a Unix tool (issue 25), continued: a call that needs
// approval is asked on a terminal, refused fast elsewhere (exit 8, naming the
// call) unless --approve allows it; unknown flags are named; --help lists
// every command; every start failure is one line and an exit status (9 for a
// busy port or an unusable data folder). Real CLI processes.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EXIT } from '../../server/cli/exit-codes.js';
import { lastState, loggedEvents, sessionIdOf } from '../helpers/cli-session.js';
import { jsonEvents, runCli, SOURCE_CLI, startCli, type CliResult } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';
import { until } from '../helpers/until.js';

const SLOW = { timeout: 300_000 };
const dirs = () => ({ SKEIN_DATA_DIR: tempDir('unix-data'), SKEIN_WORKDIR: tempDir('unix-work') });
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

/** A failure to start: one line on stderr, no stack trace. */
function oneLine(r: CliResult): string {
  const lines = r.stderr.trim().split('\n');
  expect(lines, r.stderr).toHaveLength(1);
  expect(r.stderr).not.toMatch(/\n\s+at |Error:/);
  return lines[0]!;
}

describe('skein run: approvals', () => {
  it('SKEIN_APPROVAL=on-write skein run "bash: …" with stdin not a terminal: fails fast with exit 8 naming the call; nothing ran; the session is not left waiting', SLOW, async () => {
    const env = { ...dirs(), SKEIN_APPROVAL: 'on-write' };
    const r = await runCli(['run', 'bash: touch made'], env);
    expect(r.code, r.stderr).toBe(EXIT.approvalNeeded);
    expect(r.stderr).toContain('bash `touch made` needs approval and stdin is not a terminal');
    expect(r.stderr).toContain('--approve bash');
    expect(fs.existsSync(path.join(env.SKEIN_WORKDIR, 'made'))).toBe(false);
    const events = loggedEvents(env.SKEIN_DATA_DIR, sessionIdOf(r.stderr));
    expect(events.some((e) => e.kind === 'approval_decision' && e.decision === 'deny' && e.by === 'cancel')).toBe(true);
    expect(lastState(events)).toBe('WaitingForUserInput');
  });

  it('--approve says what is allowed: bash runs it; write does not cover bash; a typo is refused', SLOW, async () => {
    const env = { ...dirs(), SKEIN_APPROVAL: 'on-write' };
    const ok = await runCli(['run', '--approve', 'write,bash', '--json', 'bash: touch made'], env);
    expect(ok.code, ok.stderr).toBe(EXIT.ok);
    expect(fs.existsSync(path.join(env.SKEIN_WORKDIR, 'made'))).toBe(true);
    expect(jsonEvents(ok.stdout).find((e) => e.kind === 'approval_decision')).toMatchObject({ decision: 'approve', by: 'user' });
    expect(ok.stderr).toContain('skein: approved bash `touch made` (--approve)');
    const notCovered = await runCli(['run', '--approve', 'write', 'bash: touch other'], env);
    expect(notCovered.code).toBe(EXIT.approvalNeeded);
    expect(fs.existsSync(path.join(env.SKEIN_WORKDIR, 'other'))).toBe(false);
    const typo = await runCli(['run', '--approve', 'bsh', 'bash: ls'], env);
    expect(typo.code).toBe(EXIT.usage);
    expect(typo.stderr).toContain('--approve "bsh": expected all, write, mcp, or a tool name');
  });

  it('on a terminal the call is asked: [s] always approves it for the session', SLOW, async () => {
    const env = { ...dirs(), SKEIN_APPROVAL: 'on-write' };
    // `script` gives the CLI a terminal; its stdin stays open until the answer is typed.
    const command = [...SOURCE_CLI, 'run', 'bash: touch made'].map((a) => `'${a}'`).join(' ');
    const child = spawn('script', ['-qfec', command, '/dev/null'], { env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    cleanups.push(() => child.kill('SIGKILL'));
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
    await until(() => output.includes('[d]eny: '), 'the question on the terminal', 120_000);
    expect(output).toContain('Run bash `touch made`? [a]pprove, [s] always (this session), [d]eny: ');
    child.stdin.write('s\r');
    expect(await exited, output).toBe(EXIT.ok);
    expect(fs.existsSync(path.join(env.SKEIN_WORKDIR, 'made'))).toBe(true);
    const events = loggedEvents(env.SKEIN_DATA_DIR, sessionIdOf(output));
    expect(events.find((e) => e.kind === 'approval_decision')).toMatchObject({ decision: 'approve_session', by: 'user' });
  });
});

describe('skein: flags and commands', () => {
  it('an unknown flag is named (not taken for a setting that swallows the task); --help lists every command', SLOW, async () => {
    const env = dirs();
    const typo = await runCli(['run', '--jsn', 'echo: x'], env);
    expect(typo.code).toBe(EXIT.usage);
    expect(oneLine(typo)).toBe('skein: unknown flag --jsn (did you mean --json?); skein --help lists every flag');
    const help = await runCli(['--help'], env);
    expect(help.code).toBe(EXIT.ok);
    for (const command of ['run "TASK"', 'sessions', 'export ID', 'trust [FOLDER]', 'migrate --from-jsonl DIR', 'migrate --to-jsonl DIR', '--approve WHAT']) expect(help.stdout).toContain(`  ${command}`);
    // `skein migrate` is a command of the CLI (it was "unknown command"): without a database it says what to set.
    const migrate = await runCli(['migrate', '--from-jsonl', env.SKEIN_DATA_DIR], env);
    expect(migrate.code).toBe(EXIT.usage);
    expect(migrate.stderr).toContain('skein migrate: set SKEIN_DATABASE_URL');
  });
});

describe('start failures: one line, an exit status docs/cli.md lists', () => {
  it('a busy port: npm start (main.ts), skein and skein run exit 9 naming the port', SLOW, async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => blocker.close());
    const port = (blocker.address() as net.AddressInfo).port;
    const env = { ...dirs(), SKEIN_PORT: String(port) };
    const npmStart = await runCli([], env, { command: [process.execPath, '--import', 'tsx', path.resolve('server/main.ts')] });
    const skein = await runCli([], { ...env, SKEIN_DATA_DIR: tempDir('unix-data') });
    const run = await runCli(['run', 'echo: x'], { ...env, SKEIN_DATA_DIR: tempDir('unix-data') });
    for (const r of [npmStart, skein, run]) {
      expect(r.code, r.stderr).toBe(EXIT.cannotStart);
      expect(oneLine(r)).toContain(`port ${port} on 127.0.0.1 is in use`);
    }
  });

  it('a data folder that is a regular file, or cannot be made (/proc/x, which hung), exits 9 in bounded time', SLOW, async () => {
    const env = dirs();
    const file = path.join(env.SKEIN_WORKDIR, 'not-a-folder');
    fs.writeFileSync(file, 'x');
    const asFile = await runCli(['run', 'echo: x'], { ...env, SKEIN_DATA_DIR: file });
    expect(asFile.code).toBe(EXIT.cannotStart);
    expect(oneLine(asFile)).toContain(`${file} is a regular file`);
    const server = await runCli([], { ...env, SKEIN_DATA_DIR: file });
    expect(server.code).toBe(EXIT.cannotStart);
    const proc = startCli(['run', 'echo: x'], { ...env, SKEIN_DATA_DIR: '/proc/x' });
    cleanups.push(() => proc.child.kill('SIGKILL'));
    const bounded = await Promise.race([proc.result, until(() => false, 'skein run on /proc/x to end', 120_000).catch(() => 'hung' as const)]);
    expect(bounded).not.toBe('hung');
    expect((bounded as CliResult).code).toBe(EXIT.cannotStart);
    expect(oneLine(bounded as CliResult)).toContain('the data folder /proc/x cannot be made');
  });

  it('a data folder another user owns (or that is not writable) exits 9 with one line', SLOW, async () => {
    const env = dirs();
    const dataDir = tempDir('unix-theirs');
    const asRoot = process.getuid?.() === 0;
    let r: CliResult;
    if (asRoot) {
      // Root can write anywhere: the CLI runs as nobody, on root's folder.
      fs.chmodSync(dataDir, 0o755);
      fs.chmodSync(env.SKEIN_WORKDIR, 0o755);
      const home = tempDir('unix-home');
      fs.chmodSync(home, 0o777);
      r = await new Promise<CliResult>((resolve) => {
        const child = spawn(SOURCE_CLI[0]!, [...SOURCE_CLI.slice(1), 'run', 'echo: x'], { uid: 65534, gid: 65534, env: { PATH: process.env.PATH, HOME: home, ...env, SKEIN_DATA_DIR: dataDir }, stdio: ['ignore', 'pipe', 'pipe'] });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
        child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        child.once('close', (code) => resolve({ code, stdout, stderr }));
      });
    } else {
      fs.chmodSync(dataDir, 0o500);
      r = await runCli(['run', 'echo: x'], { ...env, SKEIN_DATA_DIR: dataDir });
    }
    expect(r.code, r.stderr).toBe(EXIT.cannotStart);
    expect(oneLine(r)).toContain(`the data folder ${dataDir} is not writable by you: ${asRoot ? 'it belongs to another user (uid 0; you are 65534)' : 'permission denied'}`);
  });
});
