// One writer per data folder: a second server on a folder a server holds is
// refused (naming the holder), `skein run` / `skein sessions` without
// --server drive the running server instead of embedding a second (whose
// appends collided with the first's seqs), and a server killed with SIGKILL
// leaves nothing that stops the next start. Real processes throughout.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionSnapshot, SkeinEvent } from '../../shared/protocol.js';
import { EXIT } from '../../server/cli/exit-codes.js';
import { loadConfig } from '../../server/config.js';
import { DataDirLockedError, LOCK_FILE, readHolder } from '../../server/lock/data-dir-lock.js';
import { startServer } from '../../server/server.js';
import { startChildServer, type ChildServer } from '../helpers/child-server.js';
import { jsonEvents, runCli, startCli } from '../helpers/cli.js';
import { api, tempDir } from '../helpers/server.js';
import { until } from '../helpers/until.js';

const SLOW = { timeout: 300_000 };
const children: ChildServer[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) await c.kill('SIGKILL');
});

const dirs = () => ({ SKEIN_DATA_DIR: tempDir('lock-data'), SKEIN_WORKDIR: tempDir('lock-work'), SKEIN_MODEL: 'predictable' });

async function start(env: Record<string, string>): Promise<ChildServer> {
  const child = await startChildServer(env);
  children.push(child);
  return child;
}

function logSeqs(dataDir: string, id: string): number[] {
  return fs
    .readFileSync(path.join(dataDir, 'sessions', `${id}.jsonl`), 'utf8')
    .split('\n')
    .slice(1)
    .filter(Boolean)
    .map((line) => (JSON.parse(line) as SkeinEvent).seq);
}

describe('one writer per data folder', () => {
  it('skein run --session S beside a running server drives that server: one log, no seq written twice', SLOW, async () => {
    const env = dirs();
    const server = await start(env);
    const id = (await api<{ id: string }>(server.url, '/api/sessions', { body: {} })).body.id;
    expect((await api(server.url, `/api/sessions/${id}/messages`, { body: { text: 'echo: from the server' } })).status).toBe(202);
    await until(async () => (await api<SessionSnapshot>(server.url, `/api/sessions/${id}`)).body.state === 'WaitingForUserInput' && logSeqs(env.SKEIN_DATA_DIR, id).length > 3, 'the first turn');
    const before = logSeqs(env.SKEIN_DATA_DIR, id);

    // No --server, no token given: the lock names the server, the token comes from <data dir>/token.
    const run = await runCli(['run', '--json', '--session', id, 'echo: from the cli'], { SKEIN_DATA_DIR: env.SKEIN_DATA_DIR, SKEIN_WORKDIR: env.SKEIN_WORKDIR });
    expect(run.code, run.stderr).toBe(EXIT.ok);
    expect(run.stderr).toContain(`skein: driving a skein server (pid ${server.process.pid} on `);
    expect(run.stderr).toContain(server.url);
    const streamed = jsonEvents(run.stdout);
    expect(streamed[0]).toMatchObject({ kind: 'user', text: 'echo: from the cli', seq: before.at(-1)! + 1 });

    // The turn ran on the running server (its own view has it) and the file holds each seq once, in order.
    const seen = (await api<{ events: SkeinEvent[] }>(server.url, `/api/sessions/${id}/events`)).body.events;
    expect(seen.some((e) => e.kind === 'agent' && e.text === 'from the cli')).toBe(true);
    const seqs = logSeqs(env.SKEIN_DATA_DIR, id);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    expect(seqs.length).toBe(seen.length);
    // Still the one server: the lock was never given up to an embedded one.
    expect(readHolder(env.SKEIN_DATA_DIR)).toMatchObject({ pid: server.process.pid, url: server.url });

    // skein sessions, likewise: the running server's list.
    const list = await runCli(['sessions', '--json'], { SKEIN_DATA_DIR: env.SKEIN_DATA_DIR, SKEIN_WORKDIR: env.SKEIN_WORKDIR });
    expect(list.code, list.stderr).toBe(EXIT.ok);
    expect((JSON.parse(list.stdout) as SessionSnapshot[]).map((s) => s.id)).toEqual([id]);
    // A setting for an embedded server is refused rather than silently ignored; one the server shares with every
    // session (the sandbox) too, with its own status, when it is not the server's (test/cli/session-settings.test.ts).
    const flag = await runCli(['run', '--bash-timeout-ms', '5000', 'echo: x'], { SKEIN_DATA_DIR: env.SKEIN_DATA_DIR, SKEIN_WORKDIR: env.SKEIN_WORKDIR });
    expect(flag.code).toBe(EXIT.usage);
    expect(flag.stderr).toContain(`--bash-timeout-ms: with a skein server running on the data folder ${env.SKEIN_DATA_DIR}, the running server's settings apply`);
    const sandbox = await runCli(['run', '--sandbox', 'workspace', 'echo: x'], { SKEIN_DATA_DIR: env.SKEIN_DATA_DIR, SKEIN_WORKDIR: env.SKEIN_WORKDIR });
    expect(sandbox.code).toBe(EXIT.settingRefused);
  });

  it('a second server on the folder is refused, naming the first; after the first is killed (SIGKILL) the next start takes the folder', SLOW, async () => {
    const env = dirs();
    const first = await start(env);
    const second = await runCli([], env);
    expect(second.code, second.stderr).toBe(EXIT.dataDirInUse);
    const started = readHolder(env.SKEIN_DATA_DIR)!.started;
    expect(second.stderr).toContain(`the data folder ${env.SKEIN_DATA_DIR} is in use by a skein server (pid ${first.process.pid} on `);
    expect(second.stderr).toContain(`${first.url}, since ${started})`);

    // Killed: its lock file stays behind (stale), and names a process that is gone.
    await first.kill('SIGKILL');
    children.splice(children.indexOf(first), 1);
    expect(readHolder(env.SKEIN_DATA_DIR)?.pid).toBe(first.process.pid);
    const next = await start(env);
    expect(readHolder(env.SKEIN_DATA_DIR)).toMatchObject({ pid: next.process.pid, url: next.url });
    expect((await api(next.url, '/api/sessions')).status).toBe(200);
    // A graceful stop removes the file.
    await next.kill('SIGTERM');
    children.splice(children.indexOf(next), 1);
    expect(fs.existsSync(path.join(env.SKEIN_DATA_DIR, LOCK_FILE))).toBe(false);
  });

  it('a skein run with its own server is not driven by another command, which says why (exit 7)', SLOW, async () => {
    const env = dirs();
    const long = startCli(['run', '--json', 'delay: 60000'], env);
    await expect.poll(() => long.stdout(), { timeout: 60_000 }).toContain('"to":"SendingToLLM"');
    const other = await runCli(['run', 'echo: x'], env);
    expect(other.code, other.stderr).toBe(EXIT.dataDirInUse);
    expect(other.stderr).toContain(`is in use by a \`skein\` command with its own server (pid ${long.child.pid} on `);
    long.child.kill('SIGINT');
    expect((await long.result).code).toBe(EXIT.cancelled);
    // Ended: the folder is free again, and the next command embeds its own server.
    const after = await runCli(['run', 'echo: now'], env);
    expect(after.code, after.stderr).toBe(EXIT.ok);
  });

  it('in one process too: a second server on the folder is refused until the first is closed', async () => {
    const dataDir = tempDir('lock-inproc');
    const config = loadConfig([], { SKEIN_PORT: '0', SKEIN_DATA_DIR: dataDir, SKEIN_WORKDIR: tempDir('lock-inproc-work') });
    const first = await startServer(config);
    try {
      await expect(startServer(config)).rejects.toThrow(DataDirLockedError);
      await expect(startServer(config)).rejects.toThrow(`(pid ${process.pid} on `);
    } finally {
      await first.close();
    }
    const again = await startServer(config);
    await again.close();
  });
});
