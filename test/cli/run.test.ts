// `skein run` end to end: a real CLI process with its embedded server (or a
// running one, --server), the predictable model and the OpenAI fake.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EXIT } from '../../server/cli/exit-codes.js';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai-fake.js';
import { jsonEvents, runCli, startCli } from '../helpers/cli.js';
import { startTestServer, tempDir, type TestServer } from '../helpers/server.js';

const servers: TestServer[] = [];
const fakes: OpenAIFake[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
  for (const f of fakes.splice(0)) await f.close();
});

/** Each test runs several CLI processes one after the other: minutes on a loaded machine. */
const SLOW = { timeout: 300_000 };

const dirs = () => ({ SKEIN_DATA_DIR: tempDir('cli-data'), SKEIN_WORKDIR: tempDir('cli-work') });

describe('skein run (embedded server, predictable model)', () => {
  it('streams text, one line per tool call and the gauge at the turn end; exits 0', SLOW, async () => {
    const env = dirs();
    fs.writeFileSync(path.join(env.SKEIN_WORKDIR, 'marker.txt'), 'found me\n');
    const r = await runCli(['run', 'bash: cat marker.txt'], env);
    expect(r.code, r.stderr).toBe(EXIT.ok);
    const lines = r.stdout.split('\n');
    expect(lines).toContain('• bash cat marker.txt');
    expect(r.stdout).toContain('found me');
    expect(lines.filter((l) => l.startsWith('── context '))).toHaveLength(1);
    expect(r.stderr).toMatch(/skein: session \d{8}-\d{6}-[0-9a-f]{6}/);
    // The session is on disk in the data dir, like the server's.
    expect(fs.readdirSync(path.join(env.SKEIN_DATA_DIR, 'sessions')).filter((f) => f.endsWith('.jsonl'))).toHaveLength(1);
  });

  it('--json prints every event as one JSON line; a compaction shows up; --session continues the session', SLOW, async () => {
    const env = { ...dirs(), SKEIN_CONTEXT_WINDOW: '8000', SKEIN_COMPACT_THRESHOLD_RATIO: '0.3' };
    const first = await runCli(['run', '--json', 'big: 2000'], env);
    expect(first.code, first.stderr).toBe(EXIT.ok);
    const events = jsonEvents(first.stdout);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events[0]).toMatchObject({ kind: 'user', text: 'big: 2000' });
    expect(events.some((e) => e.kind === 'compaction' && e.phase === 'finished')).toBe(true);
    expect(events.at(-1)).toMatchObject({ kind: 'state', to: 'WaitingForUserInput' });
    const id = /session (\S+)/.exec(first.stderr)![1]!;

    // The task from stdin, in the same session: its events follow the first run's.
    const second = await runCli(['run', '--json', '--session', id], { ...env, SKEIN_COMPACT_THRESHOLD_RATIO: '0.9' }, { input: 'echo: again\n' });
    expect(second.code, second.stderr).toBe(EXIT.ok);
    const more = jsonEvents(second.stdout);
    expect(more[0]).toMatchObject({ kind: 'user', text: 'echo: again', seq: events.at(-1)!.seq + 1 });
    expect(more.find((e) => e.kind === 'agent')).toMatchObject({ text: 'again' });
  });

  it('text mode shows the compaction and the turn end', SLOW, async () => {
    const env = { ...dirs(), SKEIN_CONTEXT_WINDOW: '8000', SKEIN_COMPACT_THRESHOLD_RATIO: '0.3' };
    // The big result is read by its own turn's answer; the next turn's request folds it.
    const first = await runCli(['run', 'big: 2000'], env);
    expect(first.code, first.stderr).toBe(EXIT.ok);
    const id = /session (\S+)/.exec(first.stderr)![1]!;
    const r = await runCli(['run', '--session', id, 'echo: after it'], env);
    expect(r.code, r.stderr).toBe(EXIT.ok);
    expect(r.stdout).toMatch(/^⟳ compacted \((preflight|threshold), [^)]*summarize\): [\d,]+ → [\d,]+ tokens/m);
    expect(r.stdout).toMatch(/^── context ~?[\d,]+ \/ 8,000 tokens/m);
  });

  it('exit codes: a failed turn 1, bad usage 2, an unknown session 5, a turn limit 6', SLOW, async () => {
    const env = dirs();
    const failed = await runCli(['run', 'error: 500'], env);
    expect(failed.code).toBe(EXIT.turnFailed);
    expect(failed.stdout).toContain('── turn failed');
    expect((await runCli(['run'], env)).code).toBe(EXIT.usage);
    const badSetting = await runCli(['run', 'echo: x'], { ...env, SKEIN_CONTEXT_WINDOW: '5' });
    expect(badSetting.code).toBe(EXIT.usage);
    expect(badSetting.stderr).toContain('SKEIN_CONTEXT_WINDOW');
    expect((await runCli(['run', '--bogus', 'x', 'echo: x'], env)).code).toBe(EXIT.usage);
    const unknown = await runCli(['run', '--session', 'nope', 'echo: x'], env);
    expect(unknown.code).toBe(EXIT.notFound);
    const limited = await runCli(['run', 'bash: true'], { ...env, SKEIN_MAX_STEPS_PER_TURN: '1' });
    expect(limited.code, limited.stdout).toBe(EXIT.turnLimit);
  });

  it('Ctrl-C cancels the turn and exits 4', SLOW, async () => {
    const run = startCli(['run', '--json', 'delay: 60000'], dirs());
    await expect.poll(() => run.stdout(), { timeout: 30_000 }).toContain('"to":"SendingToLLM"');
    run.child.kill('SIGINT');
    const r = await run.result;
    expect(r.code).toBe(EXIT.cancelled);
    expect(jsonEvents(r.stdout).some((e) => e.kind === 'state' && e.to === 'Cancelled')).toBe(true);
  });
});

describe('skein run --server (a running server)', () => {
  it('drives it with the token from SKEIN_TOKEN; a wrong token or no server exits 3', SLOW, async () => {
    const server = await startTestServer();
    servers.push(server);
    const r = await runCli(['run', '--server', server.url, '--json', 'echo: over there'], { SKEIN_TOKEN: server.token });
    expect(r.code, r.stderr).toBe(EXIT.ok);
    const id = /session (\S+)/.exec(r.stderr)![1]!;
    expect(server.sessions.get(id)!.session.log.all().some((e) => e.kind === 'agent' && e.text === 'over there')).toBe(true);
    const refused = await runCli(['run', '--server', server.url, 'echo: x'], { SKEIN_TOKEN: 'wrong-token-wrong-token' });
    expect(refused.code).toBe(EXIT.server);
    expect(refused.stderr).toMatch(/refused access \(401\)/);
    const closed = await startTestServer();
    const deadUrl = closed.url;
    await closed.close();
    expect((await runCli(['run', '--server', deadUrl, 'echo: x'], { SKEIN_TOKEN: server.token })).code).toBe(EXIT.server);
  });

  it('sessions lists them; export prints the JSONL events and a Markdown transcript', SLOW, async () => {
    const server = await startTestServer();
    servers.push(server);
    const env = { SKEIN_TOKEN: server.token };
    const run = await runCli(['run', '--server', server.url, 'bash: echo exported-output'], env);
    const id = /session (\S+)/.exec(run.stderr)![1]!;
    const list = await runCli(['sessions', '--server', server.url, '--json'], env);
    expect(JSON.parse(list.stdout)).toEqual([expect.objectContaining({ id, title: 'bash: echo exported-output' })]);
    const text = await runCli(['sessions', '--server', server.url], env);
    expect(text.stdout).toMatch(new RegExp(`^${id}\\s+waiting for you\\s+predictable`));
    const jsonl = await runCli(['export', id, '--server', server.url], env);
    expect(jsonEvents(jsonl.stdout)).toEqual(server.sessions.get(id)!.session.log.all());
    const md = await runCli(['export', id, '--markdown', '--server', server.url], env);
    expect(md.code).toBe(EXIT.ok);
    expect(md.stdout).toMatch(/^# bash: echo exported-output/);
    expect(md.stdout).toContain('**Tool call** `bash`: `echo exported-output`');
    expect(md.stdout).toMatch(/```+\nexit code: 0\nexported-output/);
    expect((await runCli(['export', 'nope', '--server', server.url], env)).code).toBe(EXIT.notFound);
    // A tool's output that would take over the terminal of whoever exports it later: escaped in both formats, the JSONL still the same events.
    const hostile = await runCli(['run', '--server', server.url, `bash: printf '\\033[2J\\033]0;pwn\\007\\r\\342\\200\\256x\\n'`], env);
    const hostileId = /session (\S+)/.exec(hostile.stderr)![1]!;
    const hostileMd = (await runCli(['export', hostileId, '--markdown', '--server', server.url], env)).stdout;
    const hostileJsonl = (await runCli(['export', hostileId, '--server', server.url], env)).stdout;
    for (const out of [hostileMd, hostileJsonl]) expect(out).not.toMatch(/[\x1b\x07\r\u202e]/);
    expect(hostileMd).toContain('\\x1b[2J');
    expect(jsonEvents(hostileJsonl)).toEqual(server.sessions.get(hostileId)!.session.log.all());
  });
});

describe('skein run through a provider (the OpenAI fake via OPENAI_BASE_URL)', () => {
  it('runs tool calls and a compaction with the real SDK; --json lines parse; exit 0', SLOW, async () => {
    const f = await startOpenAIFake();
    fakes.push(f);
    const env = { ...dirs(), SKEIN_MODEL: 'gpt-4.1', OPENAI_API_KEY: f.key, OPENAI_BASE_URL: f.url, SKEIN_CONTEXT_WINDOW: '8000', SKEIN_COMPACT_THRESHOLD_RATIO: '0.3' };
    const r = await runCli(['run', '--json', 'big: 2000'], env);
    expect(r.code, r.stderr).toBe(EXIT.ok);
    const events = jsonEvents(r.stdout);
    expect(events.filter((e) => e.kind === 'agent').every((e) => e.kind === 'agent' && e.model === 'gpt-4.1')).toBe(true);
    expect(events.some((e) => e.kind === 'tool_call')).toBe(true);
    expect(events.some((e) => e.kind === 'compaction' && e.phase === 'finished')).toBe(true);
    expect(f.requests.length).toBeGreaterThan(1);
    expect(f.violations).toEqual([]);
    // A provider's 500, not retried here, ends the turn: exit 1, the error in the timeline.
    f.failures.next(500);
    const failed = await runCli(['run', 'echo: x'], { ...env, SKEIN_RETRY_MAX: '0' });
    expect(failed.code, failed.stderr).toBe(EXIT.turnFailed);
    expect(failed.stdout).toMatch(/^! .*500/m);
  });
});
