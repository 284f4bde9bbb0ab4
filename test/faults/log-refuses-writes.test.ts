// The session log refuses writes (disk full) at the worst moments: right
// before a request, and while a turn is being cancelled. The server keeps
// answering, the agent waits (longer each time) instead of spinning, says so
// once, nothing escapes the loop, and the session carries on when writes
// succeed again.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { NewEvent, ServerFrame, SkeinEvent } from '../../shared/protocol.js';
import type { SessionLog as EventLog } from '../../server/store/session-log.js';
import { until } from '../helpers/scripted-provider.js';
import { api, startTestServer, type TestServer } from '../helpers/server.js';
import { TestClient } from '../helpers/ws-client.js';

const servers: TestServer[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const s of servers.splice(0)) await s.close();
});

/** From the first event `from` accepts on, every append fails with ENOSPC (nothing is written) until restore(). */
function refuseWrites(log: EventLog, from: (event: NewEvent) => boolean) {
  const real = log.append.bind(log);
  const disk = { full: false, refused: [] as NewEvent[], restore: () => spy.mockRestore() };
  const spy = vi.spyOn(log, 'append').mockImplementation((event: NewEvent) => {
    if (!disk.full && from(event)) disk.full = true;
    if (!disk.full) return real(event);
    disk.refused.push(event);
    throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
  });
  return disk;
}

const logErrors = (frames: ServerFrame[]) => frames.filter((f) => f.type === 'error' && f.message.includes('ENOSPC'));

function logOnDisk(server: TestServer, id: string): SkeinEvent[] {
  const lines = fs.readFileSync(path.join(server.dataDir, 'sessions', `${id}.jsonl`), 'utf8').trim().split('\n');
  return lines.slice(1).map((l) => JSON.parse(l) as SkeinEvent);
}

async function session(server: TestServer) {
  const { body } = await api<{ id: string }>(server.url, '/api/sessions', { body: {} });
  return { id: body.id, live: server.sessions.get(body.id)!, client: await TestClient.connect(server.url, body.id) };
}

describe('the log refuses writes', () => {
  it('right before the request: the server stays responsive, the agent backs off and says so once, then answers', async () => {
    const server = await startTestServer();
    servers.push(server);
    const { id, live, client } = await session(server);
    const disk = refuseWrites(live.session.log, (e) => e.kind === 'state' && e.to === 'SendingToLLM');
    client.send({ type: 'user_message', text: 'echo: hello' });
    await until(() => disk.refused.length >= 1, 'the first refused write');
    // The loop waits instead of spinning: HTTP answers while it does.
    for (let i = 0; i < 3; i++) expect((await api(server.url, '/healthz')).status).toBe(200);
    await client.until(() => logErrors(client.frames).length > 0, 'an error frame about the disk');
    const told = logErrors(client.frames).length;
    expect(logErrors(client.frames).filter((f) => f.type === 'error' && /tries again in 1 s/.test(f.message))).toHaveLength(1);
    // It tries again (after a second), and is not told again for that.
    await until(() => disk.refused.length >= 2, 'a second try', 15_000);
    expect((await api(server.url, '/healthz')).status).toBe(200);
    expect(logErrors(client.frames)).toHaveLength(told);
    expect(disk.refused.every((e) => e.kind === 'state' && e.to === 'SendingToLLM')).toBe(true);

    disk.restore();
    await client.until(() => client.events.some((e) => e.kind === 'agent' && e.text === 'hello'), 'the answer once writes succeed', 15_000);
    await client.untilIdle(1);
    const events = logOnDisk(server, id);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events.flatMap((e) => (e.kind === 'state' ? [e.to] : []))).toEqual(['SendingToLLM', 'ProcessingLLMResponse', 'EndOfTurn', 'WaitingForUserInput']);
    client.close();
  }, 30_000);

  it('while a turn is cancelled: nothing escapes the loop, and the turn is closed as cancelled once writes succeed', async () => {
    const rejections: unknown[] = [];
    const onRejection = (reason: unknown) => rejections.push(reason);
    process.on('unhandledRejection', onRejection);
    try {
      const server = await startTestServer();
      servers.push(server);
      const { id, live, client } = await session(server);
      client.send({ type: 'user_message', text: 'delay: 60000' });
      await client.until(() => client.events.some((e) => e.kind === 'state' && e.to === 'SendingToLLM'), 'request out');
      const disk = refuseWrites(live.session.log, () => true);
      expect((await api(server.url, `/api/sessions/${id}/cancel`, { body: {} })).status).toBe(202);
      // The agent tries to record the cancel, is refused, and tries again a second later: still alive.
      await until(() => disk.refused.length >= 2, 'two tries to record the cancel', 15_000);
      expect((await api(server.url, '/healthz')).status).toBe(200);
      expect(rejections).toEqual([]);

      disk.restore();
      await client.until(() => client.events.some((e) => e.kind === 'state' && e.to === 'WaitingForUserInput'), 'the cancel recorded', 15_000);
      const states = client.events.flatMap((e) => (e.kind === 'state' ? [`${e.from}->${e.to}`] : []));
      expect(states).toEqual(['WaitingForUserInput->SendingToLLM', 'SendingToLLM->Cancelled', 'Cancelled->WaitingForUserInput']);
      client.send({ type: 'user_message', text: 'echo: after' });
      await client.until(() => client.events.some((e) => e.kind === 'agent' && e.text === 'after'), 'the next message answered');
      expect(rejections).toEqual([]);
      client.close();
    } finally {
      process.off('unhandledRejection', onRejection);
    }
  }, 30_000);
});
