// The server process is killed with SIGKILL at random points during 20 active
// turns (some mid-tool, some mid-compaction). After each restart every event a
// client had received is in the log, seq is gap-free, and the session goes on.
import { describe, expect, it } from 'vitest';
import type { SessionSnapshot, SkeinEvent } from '../../shared/protocol.js';
import { startChildServer } from '../helpers/child-server.js';
import { api, tempDir } from '../helpers/server.js';
import { TestClient } from '../helpers/ws-client.js';

const TURNS = [
  'bash: sleep 1; echo mid-tool',
  'big: 700',
  '/compact delay: 1000',
  'echo: a short answer',
  'bash: for i in 1 2 3 4; do echo line $i; sleep 0.2; done',
  'delay: 800',
  '/compact delay: 1000',
];

/** A small deterministic PRNG, so a failure can be replayed. */
function random(seed: number): () => number {
  return () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
}

describe('crash recovery', () => {
  it('loses no received event across 20 SIGKILLs at random points', async () => {
    const dataDir = tempDir('crash');
    const workDir = tempDir('crash-work');
    const env = { SKEIN_DATA_DIR: dataDir, SKEIN_WORKDIR: workDir, SKEIN_CONTEXT_WINDOW: '4500' };
    const next = random(Number(process.env.CRASH_SEED ?? 20261121));
    let server = await startChildServer(env);
    const { body } = await api<{ id: string }>(server.url, '/api/sessions', { body: {} });
    const received = new Map<number, string>();
    const kinds = new Map<string, number>();
    let killedMidCompaction = 0;
    let killedMidTool = 0;

    for (let turn = 0; turn < 20; turn++) {
      const client = await TestClient.connect(server.url, body.id);
      await client.until(() => client.frames[0], 'hello');
      const text = TURNS[turn % TURNS.length]!;
      client.send({ type: 'user_message', text });
      await new Promise((r) => setTimeout(r, 30 + next() * 700));
      for (const e of client.events) received.set(e.seq, JSON.stringify(e));
      const lastState = client.events.findLast((e) => e.kind === 'state');
      if (lastState?.kind === 'state' && lastState.to === 'Compacting') killedMidCompaction++;
      if (lastState?.kind === 'state' && lastState.to === 'RunningTools') killedMidTool++;
      kinds.set(lastState?.kind === 'state' ? lastState.to : 'none', (kinds.get(lastState?.kind === 'state' ? lastState.to : 'none') ?? 0) + 1);
      await server.kill('SIGKILL');
      client.close();

      server = await startChildServer(env);
      const { body: log } = await api<{ events: SkeinEvent[] }>(server.url, `/api/sessions/${body.id}/events`);
      // Every event any client received is there, unchanged.
      const byseq = new Map(log.events.map((e) => [e.seq, JSON.stringify(e)]));
      for (const [seq, json] of received) expect(byseq.get(seq), `event ${seq} after restart ${turn + 1}`).toBe(json);
      // Gap-free from 1.
      expect(log.events.map((e) => e.seq)).toEqual(log.events.map((_, i) => i + 1));
      // The session waits for the user (an interrupted turn was closed).
      const { body: snapshot } = await api<SessionSnapshot>(server.url, `/api/sessions/${body.id}`);
      expect(snapshot.state).toBe('WaitingForUserInput');
      for (const e of log.events) received.set(e.seq, JSON.stringify(e));
    }

    // And it carries on.
    const client = await TestClient.connect(server.url, body.id);
    client.send({ type: 'user_message', text: 'echo: alive after 20 crashes' });
    await client.until(() => client.events.some((e) => e.kind === 'agent' && e.text === 'alive after 20 crashes'), 'an answer after the crashes', 20_000);
    client.close();
    await server.kill('SIGTERM');
    console.log(JSON.stringify({ kills: 20, eventsLost: 0, killedMidTool, killedMidCompaction, lastStateAtKill: Object.fromEntries(kinds), events: received.size }));
    expect(killedMidTool).toBeGreaterThan(0);
    expect(killedMidCompaction).toBeGreaterThan(0);
    // 21 server starts: a few CPU-seconds each, much longer on a loaded machine. Every wait inside is on a condition.
  }, 600_000);
});
