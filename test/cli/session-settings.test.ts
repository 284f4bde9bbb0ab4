// No silent override: `skein run` beside a running server (found through the
// data folder's lock, as `npm start` leaves it) puts the approval mode, model
// and effort it was asked for (SKEIN_APPROVAL, SKEIN_MODEL,
// SKEIN_REASONING_EFFORT or their flags) on its session before the task is
// sent, read back from the API; a setting the server cannot honour per
// session (SKEIN_SANDBOX the server was started without) is refused with its
// own exit code, and nothing is sent.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionSnapshot, SkeinEvent } from '../../shared/protocol.js';
import { EXIT } from '../../server/cli/exit-codes.js';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai-fake.js';
import { sessionIdOf } from '../helpers/cli-session.js';
import { jsonEvents, runCli } from '../helpers/cli.js';
import { api, startTestServer, tempDir, type TestServer } from '../helpers/server.js';

const SLOW = { timeout: 300_000 };
const servers: TestServer[] = [];
const fakes: OpenAIFake[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
  for (const f of fakes.splice(0)) await f.close();
});

/** A server holding its data folder, auto-approving (`never`), as `npm start` leaves it. */
async function runningServer(env: Record<string, string> = {}): Promise<TestServer> {
  const s = await startTestServer({ SKEIN_APPROVAL: 'never', ...env }, { dataDir: tempDir('settings-data') });
  servers.push(s);
  return s;
}

const snapshot = async (s: TestServer, id: string) => (await api<SessionSnapshot>(s.url, `/api/sessions/${id}`)).body;

describe('skein run beside a running server: the settings it was asked for', () => {
  it('SKEIN_APPROVAL=always: the session is in always, so without a terminal the bash call is not run (exit 8); also with --session', SLOW, async () => {
    const s = await runningServer();
    const env = { SKEIN_DATA_DIR: s.dataDir, SKEIN_WORKDIR: s.workDir, SKEIN_APPROVAL: 'always' };
    const r = await runCli(['run', '--json', 'bash: echo ran > ran.txt'], env);
    expect(r.code, r.stderr).toBe(EXIT.approvalNeeded);
    expect(r.stderr).toContain('skein: driving a skein server');
    expect(r.stderr).toContain('approval mode always (SKEIN_APPROVAL=always)');
    expect(fs.existsSync(path.join(s.workDir, 'ran.txt'))).toBe(false);
    const id = sessionIdOf(r.stderr);
    expect((await snapshot(s, id)).mode).toBe('always');
    expect(jsonEvents(r.stdout).some((e) => e.kind === 'approval_request')).toBe(true);

    // An existing session of the server's mode (never) is switched before the task, too.
    const other = (await api<{ id: string }>(s.url, '/api/sessions', { body: {} })).body.id;
    expect((await snapshot(s, other)).mode).toBe('never');
    const again = await runCli(['run', '--session', other, 'bash: echo ran > again.txt'], { ...env, SKEIN_APPROVAL: 'on-write' });
    expect(again.code, again.stderr).toBe(EXIT.approvalNeeded);
    expect(fs.existsSync(path.join(s.workDir, 'again.txt'))).toBe(false);
    expect((await snapshot(s, other)).mode).toBe('on-write');
  });

  it('SKEIN_MODEL and SKEIN_REASONING_EFFORT: the new session (and a --session one) runs on them, read back before the task', SLOW, async () => {
    const f = await startOpenAIFake();
    fakes.push(f);
    // The server's default model is predictable; it can use gpt-4.1 through the fake.
    const s = await runningServer({ SKEIN_MODEL: 'predictable', OPENAI_API_KEY: f.key!, OPENAI_BASE_URL: f.url });
    const env = { SKEIN_DATA_DIR: s.dataDir, SKEIN_WORKDIR: s.workDir, SKEIN_MODEL: 'gpt-4.1', SKEIN_REASONING_EFFORT: 'low' };
    const r = await runCli(['run', '--json', 'hello'], env);
    expect(r.code, r.stderr).toBe(EXIT.ok);
    const id = sessionIdOf(r.stderr);
    expect(await snapshot(s, id)).toMatchObject({ model: 'gpt-4.1', effort: 'low' });
    expect(jsonEvents(r.stdout).filter((e) => e.kind === 'agent').every((e) => e.kind === 'agent' && e.model === 'gpt-4.1')).toBe(true);
    expect(f.requests.length).toBeGreaterThan(0);

    const other = (await api<{ id: string }>(s.url, '/api/sessions', { body: {} })).body.id;
    expect((await snapshot(s, other)).model).toBe('predictable');
    const again = await runCli(['run', '--session', other, 'hello again'], env);
    expect(again.code, again.stderr).toBe(EXIT.ok);
    expect(await snapshot(s, other)).toMatchObject({ model: 'gpt-4.1', effort: 'low' });
  });

  it('a setting the server cannot honour is refused with its own exit status, naming the variable and the server\'s value; nothing is sent', SLOW, async () => {
    const s = await runningServer();
    const env = { SKEIN_DATA_DIR: s.dataDir, SKEIN_WORKDIR: s.workDir };
    const sandbox = await runCli(['run', 'bash: echo ran > ran.txt'], { ...env, SKEIN_SANDBOX: 'workspace' });
    expect(sandbox.code, sandbox.stderr).toBe(EXIT.settingRefused);
    expect(sandbox.stderr).toContain('SKEIN_SANDBOX=workspace');
    expect(sandbox.stderr).toContain('the running server has SKEIN_SANDBOX=off');
    const flag = await runCli(['run', '--sandbox', 'workspace', 'bash: echo ran > ran.txt'], env);
    expect(flag.code, flag.stderr).toBe(EXIT.settingRefused);
    expect(flag.stderr).toContain('--sandbox workspace');
    // A model the server has no key for: refused too, by name.
    const model = await runCli(['run', 'bash: echo ran > ran.txt'], { ...env, SKEIN_MODEL: 'gpt-4.1' });
    expect(model.code, model.stderr).toBe(EXIT.settingRefused);
    expect(model.stderr).toContain('SKEIN_MODEL=gpt-4.1');
    expect(fs.existsSync(path.join(s.workDir, 'ran.txt'))).toBe(false);
    // No task reached the server: no session holds a message.
    for (const listed of (await api<{ sessions: SessionSnapshot[] }>(s.url, '/api/sessions')).body.sessions) {
      expect((await api<{ events: SkeinEvent[] }>(s.url, `/api/sessions/${listed.id}/events`)).body.events.some((e) => e.kind === 'user')).toBe(false);
    }
    // The same value as the server's is no conflict.
    const same = await runCli(['run', 'echo: fine'], { ...env, SKEIN_SANDBOX: 'off', SKEIN_APPROVAL: 'never' });
    expect(same.code, same.stderr).toBe(EXIT.ok);
  });
});
