// Lazy sessions: a start reads the sessions index, not the logs; a log is
// loaded when its session is opened and unloaded when it has been idle.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { SessionSnapshot, SkeinEvent } from '../../shared/protocol.js';
import { startChildServer } from '../helpers/child-server.js';
import { api, startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { writeSessionLog, writeSessionLogs } from '../helpers/session-logs.js';
import { TestClient } from '../helpers/ws-client.js';
import { until } from '../helpers/until.js';
import { SessionIndex } from '../../server/store/session-index.js';
import WebSocket from 'ws';
import { authHeaders } from '../helpers/auth.js';

const COUNT = 1000;

/** Counts reads and opens of session logs (*.jsonl) through node:fs, which the server uses. */
function spyLogReads(): { files: () => string[]; restore: () => void } {
  const files: string[] = [];
  const note = (p: unknown) => {
    if (typeof p === 'string' && p.endsWith('.jsonl')) files.push(path.basename(p));
  };
  const read = vi.spyOn(fs, 'readFileSync');
  read.mockImplementation(((p: fs.PathOrFileDescriptor, ...rest: unknown[]) => {
    note(p);
    return Reflect.apply(originalRead, fs, [p, ...rest]) as never;
  }) as typeof fs.readFileSync);
  const open = vi.spyOn(fs, 'openSync');
  open.mockImplementation(((p: fs.PathLike, ...rest: unknown[]) => {
    note(p);
    return Reflect.apply(originalOpen, fs, [p, ...rest]) as number;
  }) as typeof fs.openSync);
  return {
    files: () => files,
    restore: () => {
      read.mockRestore();
      open.mockRestore();
    },
  };
}
const originalRead = fs.readFileSync;
const originalOpen = fs.openSync;

const logEvents = (file: string) =>
  originalRead(file, 'utf8').trim().split('\n').slice(1).map((l) => JSON.parse(l) as SkeinEvent);

const servers: TestServer[] = [];
async function start(dataDir: string, env: Record<string, string> = {}): Promise<TestServer> {
  const server = await startTestServer(env, { dataDir });
  servers.push(server);
  return server;
}
afterEach(async () => {
  vi.restoreAllMocks();
  for (const server of servers.splice(0)) await server.close();
});

describe('lazy sessions', () => {
  it('starts with 1,000 sessions without reading a log; opening one loads only it', async () => {
    const dataDir = tempDir('lazy');
    const ids = writeSessionLogs(dataDir, COUNT, 12);
    // First start: no index yet, so it is built from every log (and saved).
    const first = await start(dataDir);
    await first.sessions.scanned;
    // Scanned, streamed, not started: no session was loaded to build its entry.
    expect(first.sessions.logsLoaded).toBe(0);
    expect(ids.filter((id) => first.sessions.isLoaded(id))).toEqual([]);
    await first.close();
    servers.length = 0;
    expect(fs.existsSync(path.join(dataDir, 'sessions', 'index.json')) || fs.existsSync(path.join(dataDir, 'sessions', 'index.journal'))).toBe(true);

    const spy = spyLogReads();
    const server = await start(dataDir);
    expect(server.sessions.scanning).toBeUndefined();
    expect(spy.files()).toEqual([]);
    expect(server.sessions.logsLoaded).toBe(0);

    const list = await api<{ sessions: SessionSnapshot[] }>(server.url, '/api/sessions');
    expect(list.body.sessions).toHaveLength(COUNT);
    const listed = list.body.sessions.find((s) => s.id === ids[3])!;
    expect(listed).toMatchObject({ title: `question 0 of ${ids[3]}`, lastSeq: 12, state: 'WaitingForUserInput', model: 'predictable' });
    // Search by user text works from the index too.
    const found = await api<{ sessions: SessionSnapshot[] }>(server.url, '/api/sessions?q=ZANZIBAR%201');
    expect(found.body.sessions.map((s) => s.id)).toEqual([ids[7]]);
    expect(spy.files()).toEqual([]);

    // Opening one session reads its log, and no other.
    const events = await api<{ events: SkeinEvent[] }>(server.url, `/api/sessions/${ids[3]}/events`);
    expect(events.body.events).toEqual(logEvents(path.join(dataDir, 'sessions', `${ids[3]}.jsonl`)));
    expect(new Set(spy.files())).toEqual(new Set([`${ids[3]}.jsonl`]));
    expect(server.sessions.logsLoaded).toBe(1);
    expect(server.sessions.isLoaded(ids[3]!)).toBe(true);
    // The snapshot of the loaded session is the one the index had.
    const opened = await api<SessionSnapshot>(server.url, `/api/sessions/${ids[3]}`);
    expect({ ...opened.body, gauge: undefined }).toEqual({ ...listed, gauge: undefined });
    spy.restore();
  }, 240_000);

  it('serves the list while a first start scans the logs, says how far it got, and opens a session not scanned yet', async () => {
    const dataDir = tempDir('lazy-scan');
    const ids = writeSessionLogs(dataDir, 3000, 60);
    const server = await start(dataDir);
    const frames: { type: string; done?: number; total?: number; scanning?: { done: number; total: number } }[] = [];
    const socket = new WebSocket(`${server.url.replace('http', 'ws')}/ws/sessions`, { headers: authHeaders(server.url) });
    socket.on('message', (data) => frames.push(JSON.parse(String(data)) as (typeof frames)[number]));
    const first = await api<{ sessions: SessionSnapshot[]; scanning?: { done: number; total: number } }>(server.url, '/api/sessions');
    // 3,000 logs take seconds to scan: the list answers at once with what is indexed so far.
    expect(first.body.scanning?.total).toBe(3000);
    expect(first.body.sessions.length).toBeLessThan(3000);
    expect(first.body.sessions.length).toBeLessThanOrEqual(first.body.scanning!.done);
    // The last log is scanned last: it opens before the scan gets there.
    const last = ids.at(-1)!;
    const opened = await api<SessionSnapshot>(server.url, `/api/sessions/${last}`);
    expect(opened.status).toBe(200);
    expect(opened.body).toMatchObject({ id: last, lastSeq: 60 });
    await server.sessions.scanned;
    const done = await api<{ sessions: SessionSnapshot[]; scanning?: unknown }>(server.url, '/api/sessions');
    expect(done.body.scanning).toBeUndefined();
    expect(done.body.sessions).toHaveLength(3000);
    // The socket heard the progress, ending with all of them.
    await until(() => frames.some((f) => f.type === 'scanning' && f.done === 3000 && f.total === 3000), 'the last progress frame');
    const progress = frames.filter((f) => f.type === 'scanning').map((f) => f.done!);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    socket.close();
    // Only the session opened by hand was loaded; the others were scanned.
    expect(server.sessions.logsLoaded).toBe(1);
  }, 240_000);

  it('closes at start an interrupted turn of a session nobody opens, reading only that log', async () => {
    const dataDir = tempDir('lazy-crash');
    const workDir = tempDir('lazy-crash-work');
    const ids = writeSessionLogs(dataDir, COUNT, 6);
    // A real server indexes them, runs a turn that waits on the model, and is killed mid-turn.
    const child = await startChildServer({ SKEIN_DATA_DIR: dataDir, SKEIN_WORKDIR: workDir });
    const { body } = await api<{ id: string }>(child.url, '/api/sessions', { body: {} });
    const client = await TestClient.connect(child.url, body.id);
    client.send({ type: 'user_message', text: 'delay: 600000' });
    await client.until(() => client.events.some((e) => e.kind === 'state' && e.to === 'SendingToLLM'), 'turn under way', 60_000);
    client.close();
    const indexFile = path.join(dataDir, 'sessions', 'index.json');
    const logFile = path.join(dataDir, 'sessions', `${body.id}.jsonl`);
    // The index on disk knows it is mid-turn, for the log as it is now, and holds every other session
    // (the first scan's entries are saved when it ends: a kill before that would leave them to scan again).
    await until(() => {
      try {
        const saved = new SessionIndex(path.dirname(indexFile)).readSaved();
        const entry = saved.get(body.id);
        return entry?.needsStart === true && entry.size === fs.statSync(logFile).size && ids.every((id) => saved.has(id));
      } catch {
        return false;
      }
    }, 'the index to record the running turn');
    await child.kill('SIGKILL');
    const before = logEvents(logFile);
    expect(before.at(-1)).toMatchObject({ kind: 'state', to: 'SendingToLLM' });

    const spy = spyLogReads();
    const server = await start(dataDir, { SKEIN_WORKDIR: workDir });
    expect(new Set(spy.files())).toEqual(new Set([`${body.id}.jsonl`]));
    expect(server.sessions.logsLoaded).toBe(1);
    spy.restore();
    await until(() => logEvents(logFile).at(-1)?.kind === 'state' && (logEvents(logFile).at(-1) as { to: string }).to === 'WaitingForUserInput', 'the interrupted turn closed');
    const after = logEvents(logFile);
    expect(after.slice(0, before.length)).toEqual(before);
    expect(after.some((e) => e.kind === 'error' && e.code === 'interrupted')).toBe(true);
    expect(ids.some((id) => server.sessions.isLoaded(id))).toBe(false);
  }, 240_000);

  it('rebuilds a missing index and a stale entry from the logs', async () => {
    const dataDir = tempDir('lazy-stale');
    const ids = writeSessionLogs(dataDir, 20, 12);
    const indexing = await start(dataDir);
    // (A close during the scan stops it: the next start scans what it had not reached.)
    await indexing.sessions.scanned;
    await indexing.close();
    servers.length = 0;
    const indexFile = path.join(dataDir, 'sessions', 'index.json');

    // A log that grew behind the index's back (a crash before the index was saved): only it is read again.
    writeSessionLog(dataDir, { id: ids[5]!, events: 30, topic: 'grown' });
    let spy = spyLogReads();
    let server = await start(dataDir);
    await server.sessions.scanned;
    expect(new Set(spy.files())).toEqual(new Set([`${ids[5]}.jsonl`]));
    spy.restore();
    let list = (await api<{ sessions: SessionSnapshot[] }>(server.url, '/api/sessions')).body.sessions;
    expect(list.find((s) => s.id === ids[5])).toMatchObject({ lastSeq: 30, title: `grown 0 of ${ids[5]}` });
    await server.close();
    servers.length = 0;

    // No index at all (or a damaged one): every log is read once, the list is whole.
    const journal = path.join(dataDir, 'sessions', 'index.journal');
    const damages = [
      () => fs.rmSync(indexFile, { force: true }),
      () => fs.rmSync(journal, { force: true }),
      () => {
        fs.writeFileSync(indexFile, '{"version":2,"sess');
        fs.writeFileSync(journal, '{"n":1,"id":"x"\n{"n":2,');
      },
    ];
    for (const damage of damages) {
      damage();
      spy = spyLogReads();
      server = await start(dataDir);
      // The scan may already be over on a quick machine; while it runs, it counts every log the index lacks.
      const progress = server.sessions.scanning;
      if (progress) expect(progress.total).toBe(damage === damages[0] ? 0 : 20);
      await server.sessions.scanned;
      // Each read once by the scan, none loaded (started).
      expect(new Set(spy.files()).size).toBe(damage === damages[0] ? 0 : 20);
      expect(server.sessions.logsLoaded).toBe(0);
      spy.restore();
      list = (await api<{ sessions: SessionSnapshot[] }>(server.url, '/api/sessions')).body.sessions;
      expect(list.map((s) => s.id).sort()).toEqual([...ids].sort());
      expect(list.find((s) => s.id === ids[5])).toMatchObject({ lastSeq: 30 });
      await server.close();
      servers.length = 0;
    }
  }, 240_000);

  it('unloads an idle session and reopens it with the same events; a watched session stays loaded', async () => {
    const server = await start(tempDir('lazy-idle'), { SKEIN_SESSION_IDLE_UNLOAD_MS: '300' });
    const say = async (id: string, text: string) => {
      expect((await api(server.url, `/api/sessions/${id}/messages`, { body: { text } })).status).toBe(202);
    };
    const idle = (await api<{ id: string }>(server.url, '/api/sessions', { body: {} })).body.id;
    const watched = (await api<{ id: string }>(server.url, '/api/sessions', { body: {} })).body.id;
    const client = await TestClient.connect(server.url, watched);
    await say(idle, 'echo: kept across unloading');
    await say(watched, 'echo: watched');
    const ended = (id: string) => async () => {
      const events = (await api<{ events: SkeinEvent[] }>(server.url, `/api/sessions/${id}/events`)).body.events;
      return events.some((e) => e.kind === 'state' && e.to === 'WaitingForUserInput') ? events : undefined;
    };
    const before = (await until(ended(idle), 'the turn to end'))!;
    await until(ended(watched), 'the watched turn to end');

    await until(() => !server.sessions.isLoaded(idle), 'the idle session to be unloaded');
    expect(server.sessions.isLoaded(watched)).toBe(true);
    const listed = (await api<{ sessions: SessionSnapshot[] }>(server.url, '/api/sessions')).body.sessions;
    expect(listed.find((s) => s.id === idle)).toMatchObject({ lastSeq: before.at(-1)!.seq, title: 'echo: kept across unloading' });
    expect(server.sessions.isLoaded(idle)).toBe(false);

    const loads = server.sessions.logsLoaded;
    const after = (await api<{ events: SkeinEvent[] }>(server.url, `/api/sessions/${idle}/events`)).body.events;
    expect(after).toEqual(before);
    expect(server.sessions.logsLoaded).toBe(loads + 1);
    // Posting to an unloaded session loads it and runs the turn.
    await until(() => !server.sessions.isLoaded(idle), 'unloaded again');
    await say(idle, 'echo: second');
    await until(async () => (await ended(idle)())?.some((e) => e.kind === 'agent' && e.text === 'second'), 'the second answer');
    client.close();
  }, 120_000);
});
