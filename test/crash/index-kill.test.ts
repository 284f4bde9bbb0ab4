// The sessions index survives SIGKILL at any point (mid-scan, mid-turn, right
// after a rename, mid-compaction): after each restart the list it serves is
// the list a start with no index at all rebuilds from the logs.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SessionSnapshot } from '../../shared/protocol.js';
import { startChildServer, type ChildServer } from '../helpers/child-server.js';
import { api, tempDir } from '../helpers/server.js';
import { writeSessionLogs } from '../helpers/session-logs.js';
import { until } from '../helpers/until.js';

/** A small deterministic PRNG, so a failure can be replayed. */
function random(seed: number): () => number {
  return () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
}

interface Listed {
  sessions: SessionSnapshot[];
  scanning?: { done: number; total: number };
}

const shape = (s: SessionSnapshot) => ({ id: s.id, title: s.title, lastSeq: s.lastSeq, lastActivity: s.lastActivity, archived: s.archived ?? false, state: s.state });

async function fullList(server: ChildServer): Promise<ReturnType<typeof shape>[]> {
  const body = (await until(async () => {
    const { body } = await api<Listed>(server.url, '/api/sessions?archived=1');
    return body.scanning ? undefined : body;
  }, 'the scan to finish', 120_000))!;
  return body.sessions.map(shape).sort((a, b) => a.id.localeCompare(b.id));
}

describe('sessions index under SIGKILL', () => {
  it('serves after every kill the list the logs rebuild', async () => {
    const dataDir = tempDir('index-kill');
    const workDir = tempDir('index-kill-work');
    const ids = writeSessionLogs(dataDir, 200, 60);
    const env = { SKEIN_DATA_DIR: dataDir, SKEIN_WORKDIR: workDir, SKEIN_AUTH: 'off' };
    const next = random(Number(process.env.CRASH_SEED ?? 20261125));
    const sessionsDir = path.join(dataDir, 'sessions');

    // Killed during the first scan: what it indexed so far is kept, the rest is scanned at the next start.
    let server = await startChildServer(env);
    await until(async () => ((await api<Listed>(server.url, '/api/sessions')).body.scanning?.done ?? 200) > 0, 'the scan under way');
    await server.kill('SIGKILL');

    for (let round = 0; round < 4; round++) {
      server = await startChildServer(env);
      // Renames (flushed at once), archives and a turn, then a kill at a random moment.
      const id = ids[Math.floor(next() * ids.length)]!;
      await api(server.url, `/api/sessions/${id}`, { method: 'PATCH', body: { title: `renamed in round ${round}` } });
      if (round % 2) await api(server.url, `/api/sessions/${ids[round]}`, { method: 'PATCH', body: { archived: true } });
      const { body: made } = await api<{ id: string }>(server.url, '/api/sessions', { body: {} });
      await api(server.url, `/api/sessions/${made.id}/messages`, { body: { text: `echo: round ${round}` } });
      await new Promise((r) => setTimeout(r, next() * 1500));
      await server.kill('SIGKILL');

      server = await startChildServer(env);
      const fromIndex = await fullList(server);
      expect(fromIndex.find((s) => s.id === id)?.title).toBe(`renamed in round ${round}`);
      await server.kill('SIGTERM');
      // The same folder with no index: every entry rebuilt from the logs.
      const copy = tempDir('index-kill-copy');
      fs.cpSync(sessionsDir, path.join(copy, 'sessions'), { recursive: true, filter: (f) => !path.basename(f).startsWith('index.') });
      const rebuilt = await startChildServer({ ...env, SKEIN_DATA_DIR: copy });
      const fromLogs = await fullList(rebuilt);
      await rebuilt.kill('SIGTERM');
      fs.rmSync(copy, { recursive: true, force: true });
      // Interrupted turns were closed by the first start, so both lists describe the same logs.
      expect(fromIndex).toEqual(fromLogs);
    }
  }, 600_000);
});
