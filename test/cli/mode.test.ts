// `skein run --mode MODE`: the session's approval mode set (PUT
// /api/sessions/:id/mode, with the token) before the task is sent, on an
// embedded server and on a running one; an unknown mode is bad usage.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionSnapshot } from '../../shared/protocol.js';
import { EXIT } from '../../server/cli/exit-codes.js';
import { jsonEvents, runCli } from '../helpers/cli.js';
import { api, startTestServer, tempDir, type TestServer } from '../helpers/server.js';

const servers: TestServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

const SLOW = { timeout: 300_000 };

describe('skein run --mode', () => {
  it('plan: a write is refused with the reason and nothing is written (embedded server); an unknown mode exits 2 naming the modes', SLOW, async () => {
    const env = { SKEIN_DATA_DIR: tempDir('cli-mode-data'), SKEIN_WORKDIR: tempDir('cli-mode-work') };
    const r = await runCli(['run', '--mode', 'plan', 'tool: write_file {"path":"p.txt","content":"no"}'], env);
    expect(r.code, r.stderr).toBe(EXIT.ok);
    expect(r.stderr).toContain('skein: approval mode plan');
    expect(r.stdout).toMatch(/✗ write_file: refused: this session is in plan mode/);
    expect(fs.existsSync(path.join(env.SKEIN_WORKDIR, 'p.txt'))).toBe(false);

    const bad = await runCli(['run', '--mode', 'yolo', 'echo: x'], env);
    expect(bad.code).toBe(EXIT.usage);
    expect(bad.stderr).toContain('--mode yolo: unknown mode; one of plan, always, on-write, never');
  });

  it('--server: the running server\'s session is switched over REST and its log holds the switch', SLOW, async () => {
    const server = await startTestServer({ SKEIN_APPROVAL: 'on-write' });
    servers.push(server);
    const r = await runCli(['run', '--server', server.url, '--mode', 'never', '--json', 'bash: echo auto > auto.txt'], { SKEIN_TOKEN: server.token });
    expect(r.code, r.stderr).toBe(EXIT.ok);
    const id = /session (\S+)/.exec(r.stderr)![1]!;
    // Never asked: the mode was set before the task.
    expect(jsonEvents(r.stdout).some((e) => e.kind === 'approval_request')).toBe(false);
    expect(fs.readFileSync(path.join(server.workDir, 'auto.txt'), 'utf8')).toBe('auto\n');
    expect((await api<SessionSnapshot>(server.url, `/api/sessions/${id}`)).body.mode).toBe('never');
    expect(server.sessions.get(id)!.session.log.all().find((e) => e.kind === 'mode')).toMatchObject({ from: 'on-write', to: 'never' });
  });
});
