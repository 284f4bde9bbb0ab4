// The disk fills up while a session is running: a clear error reaches the
// clients, the server stays up, the log file stays valid, and the session
// works again once there is space.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { SkeinEvent } from '../../shared/protocol.js';
import { api, startTestServer, type TestServer } from '../helpers/server.js';
import { TestClient } from '../helpers/ws-client.js';

const servers: TestServer[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const s of servers.splice(0)) await s.close();
});

/** From now on every write to a session log fails with ENOSPC, after writing half of what it was given. */
function fillTheDisk(dataDir: string) {
  const realWrite = fs.writeSync.bind(fs);
  const logFds = new Set(fs.readdirSync('/proc/self/fd').map((fd) => Number(fd)).filter((fd) => {
    try {
      return fs.readlinkSync(`/proc/self/fd/${fd}`).startsWith(path.join(dataDir, 'sessions'));
    } catch {
      return false;
    }
  }));
  return vi.spyOn(fs, 'writeSync').mockImplementation(((fd: number, buffer: Buffer, offset?: number, length?: number) => {
    if (!logFds.has(fd)) return realWrite(fd, buffer, offset, length);
    const start = offset ?? 0;
    const len = length ?? buffer.length - start;
    if (len > 1) realWrite(fd, buffer, start, Math.floor(len / 2)); // a partial line reaches the disk
    throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
  }) as typeof fs.writeSync);
}

describe('disk full', () => {
  it('reports it, stays up, keeps the log valid, and recovers', async () => {
    const server = await startTestServer();
    servers.push(server);
    const { body } = await api<{ id: string }>(server.url, '/api/sessions', { body: {} });
    const client = await TestClient.connect(server.url, body.id);
    client.send({ type: 'user_message', text: 'echo: before' });
    await client.untilIdle(1);

    // A turn is running a tool when the disk fills up.
    client.send({ type: 'user_message', text: 'bash: sleep 0.3; echo during' });
    await client.until(() => client.events.some((e) => e.kind === 'state' && e.to === 'RunningTools' && e.seq > 5), 'tool running');
    const full = fillTheDisk(server.dataDir);
    await client.until(() => client.frames.some((f) => f.type === 'error' && f.message.includes('ENOSPC')), 'an error frame about the disk');
    // New input is refused with a clear error, not a crash.
    client.send({ type: 'user_message', text: 'echo: while full' });
    await client.until(() => client.frames.some((f) => f.type === 'error' && f.message.startsWith('not recorded')), 'refusal frame');
    const post = await api<{ error: string }>(server.url, `/api/sessions/${body.id}/messages`, { body: { text: 'echo: by POST' } });
    expect(post.status).toBe(507);
    expect(post.body.error).toContain('ENOSPC');
    expect((await api(server.url, '/healthz')).status).toBe(200);

    full.mockRestore();
    // The file holds only whole events, gap-free, despite the partial writes.
    const file = path.join(server.dataDir, 'sessions', `${body.id}.jsonl`);
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    expect(lines.pop()).toBe('');
    const events = lines.slice(1).map((l) => JSON.parse(l) as SkeinEvent);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));

    // Space again: the session takes the next message.
    const seen = client.events.length;
    client.send({ type: 'user_message', text: 'echo: after' });
    await client.until(() => client.events.slice(seen).some((e) => e.kind === 'agent' && e.text === 'after'), 'answer after recovery');
    client.close();

    // And a restart loads the log.
    await server.close();
    servers.pop();
    const again = await startTestServer({}, { dataDir: server.dataDir, workDir: server.workDir });
    servers.push(again);
    expect(again.warnings.filter((w) => w.includes(body.id))).toEqual([]);
    const snapshot = await api<{ state: string }>(again.url, `/api/sessions/${body.id}`);
    expect(snapshot.body.state).toBe('WaitingForUserInput');
  });
});
