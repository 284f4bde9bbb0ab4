// Search from the index (issue 26) against a real server: results say which
// user message matched (its seq), follow messages as they are typed, survive a
// restart without reading a log, and catch up with a log that grew while the
// index file was not written (a crash).
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ListedSession, SkeinEvent } from '../../shared/protocol.js';
import { api, startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { eventsOf, waitForEvents } from '../helpers/ui.js';
import { writeSessionLogs } from '../helpers/session-logs.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(dataDir: string, workDir?: string): Promise<TestServer> {
  server = await startTestServer({}, { dataDir, ...(workDir && { workDir }) });
  return server;
}

async function find(s: TestServer, q: string): Promise<ListedSession[]> {
  const res = await api<{ sessions: ListedSession[] }>(s.url, `/api/sessions?q=${encodeURIComponent(q)}`);
  expect(res.status).toBe(200);
  return res.body.sessions;
}

const userSeq = (events: SkeinEvent[], text: string) => events.find((e) => e.kind === 'user' && e.text === text)!.seq;

async function say(s: TestServer, id: string, text: string): Promise<SkeinEvent[]> {
  const idle = (es: SkeinEvent[]) => es.filter((e) => e.kind === 'state' && e.to === 'WaitingForUserInput').length;
  const before = idle(await eventsOf(s.url, id));
  expect((await api(s.url, `/api/sessions/${id}/messages`, { body: { text } })).status).toBe(202);
  return waitForEvents(s.url, id, (es) => idle(es) > before, 60_000);
}

describe('search index', () => {
  it('says which message matched, follows messages as they are typed, and survives a restart without reading a log', async () => {
    const dataDir = tempDir('search');
    // The same working folder after the restart (on PostgreSQL a session is run only where its folder is reachable).
    const workDir = tempDir('search-work');
    let s = await start(dataDir, workDir);
    const id = (await api<{ id: string }>(s.url, '/api/sessions', { body: {} })).body.id;
    const other = (await api<{ id: string }>(s.url, '/api/sessions', { body: {} })).body.id;
    await say(s, other, 'echo: nothing to see here');
    let events = await say(s, id, 'echo: the Zanzibar harbour at dawn');
    await say(s, id, 'echo: something else entirely');
    const first = userSeq(events, 'echo: the Zanzibar harbour at dawn');

    // Every word, any case, the last one possibly unfinished; only the session that holds them.
    expect((await find(s, 'zanzibar HARB')).map((r) => [r.id, r.match])).toEqual([[id, { seq: first }]]);
    expect(await find(s, 'zanzibar nothing')).toEqual([]);
    expect(await find(s, 'absentword')).toEqual([]);

    // A later message with the word: the result points at it, at once (no restart, no index write).
    events = await say(s, id, 'echo: back to zanzibar again');
    const later = userSeq(events, 'echo: back to zanzibar again');
    expect(later).toBeGreaterThan(first);
    expect((await find(s, 'zanzibar')).map((r) => r.match)).toEqual([{ seq: later }]);
    expect((await find(s, 'harbour')).map((r) => r.match)).toEqual([{ seq: first }]);

    // A title match says no seq.
    await api(s.url, `/api/sessions/${other}`, { method: 'PATCH', body: { title: 'Harbour master notes' } });
    expect((await find(s, 'harbour master')).map((r) => [r.id, r.match])).toEqual([[other, {}]]);

    await s.close();
    server = undefined;
    expect(fs.existsSync(path.join(dataDir, 'sessions', 'search.json'))).toBe(true);
    s = await start(dataDir, workDir);
    await s.sessions.scanned;
    expect((await find(s, 'zanzibar')).map((r) => [r.id, r.match])).toEqual([[id, { seq: later }]]);
    expect((await find(s, 'dawn')).map((r) => r.match)).toEqual([{ seq: first }]);
    // Snippets asked for: the words around each match, read from the logs up to it.
    const snippets = await api<{ sessions: ListedSession[] }>(s.url, `/api/sessions?q=${encodeURIComponent('harb zanz')}&snippets=1`);
    expect(snippets.body.sessions.map((r) => [r.id, r.match])).toEqual([[id, { seq: first, snippet: 'echo: the Zanzibar harbour at dawn' }]]);
    // From the index and the logs' lines: no session was loaded to answer.
    expect(s.sessions.logsLoaded).toBe(0);

    // A deleted session leaves the results.
    const deleted = await api(s.url, `/api/sessions/${id}`, { method: 'DELETE' });
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
    expect(await find(s, 'zanzibar')).toEqual([]);
  }, 120_000);

  it('finds what a log gained after the index file was written (a crash), reading only that tail', async () => {
    const dataDir = tempDir('search-tail');
    const ids = writeSessionLogs(dataDir, 20, 12);
    let s = await start(dataDir);
    await s.sessions.scanned;
    // The first scan fed the index: session 7's topic is found.
    expect((await find(s, 'zanzibar')).map((r) => r.id)).toEqual([ids[7]]);
    await s.close();
    server = undefined;

    // Lines appended by a process that died before it wrote either index.
    const file = path.join(dataDir, 'sessions', `${ids[3]}.jsonl`);
    const lastSeq = fs.readFileSync(file, 'utf8').trim().split('\n').length - 1;
    const ts = new Date().toISOString();
    fs.appendFileSync(file, [{ seq: lastSeq + 1, ts, kind: 'user', text: 'a quokka appeared' }, { seq: lastSeq + 2, ts, kind: 'state', from: 'WaitingForUserInput', to: 'SendingToLLM', reason: 'test' }, { seq: lastSeq + 3, ts, kind: 'state', from: 'SendingToLLM', to: 'WaitingForUserInput', reason: 'test' }].map((e) => JSON.stringify(e) + '\n').join(''));

    s = await start(dataDir);
    await s.sessions.scanned;
    expect((await find(s, 'quokka')).map((r) => [r.id, r.match])).toEqual([[ids[3], { seq: lastSeq + 1 }]]);
    expect((await find(s, 'zanzibar')).map((r) => r.id)).toEqual([ids[7]]);
    expect(s.sessions.logsLoaded).toBe(0);
  }, 120_000);

  it('rebuilds from the logs when search.json is damaged', async () => {
    const dataDir = tempDir('search-damaged');
    const ids = writeSessionLogs(dataDir, 10, 12);
    let s = await start(dataDir);
    await s.sessions.scanned;
    await s.close();
    server = undefined;
    fs.writeFileSync(path.join(dataDir, 'sessions', 'search.json'), '{"version":1,"ids":["x"');
    s = await start(dataDir);
    await s.sessions.scanned;
    expect((await find(s, 'zanzibar 1')).map((r) => r.id)).toEqual([ids[7]]);
  }, 120_000);
});
