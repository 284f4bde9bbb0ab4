// Two skein instances on one PostgreSQL database (a temporary local cluster):
// delivery latency to 100 WebSocket clients split across both instances beside
// 100 clients on the instance that runs the session, in the same run; and the
// failover time after kill -9 of the owner mid-turn (median of 5), with the
// default lease timeout.
import WebSocket from 'ws';
import type { SessionSnapshot, SkeinEvent } from '../../shared/protocol.js';
import { authHeaders } from '../helpers/auth.js';
import { startChildServer } from '../helpers/child-server.js';
import { startTempPostgres, type TempPostgres } from '../helpers/postgres.js';
import { api, startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { fmt, median, percentile, type BenchSection } from './types.js';
import { until } from '../helpers/until.js';

const CLIENTS = 100;
const TURNS = 25;
const FAILOVERS = 5;

/** A client that records how long each event took from its append (its `ts`) to arrival here. */
function watch(base: string, id: string, since: number, latencies: number[]): Promise<WebSocket> {
  const ws = new WebSocket(`${base.replace('http', 'ws')}/ws?session=${id}&since=${since}`, { headers: authHeaders(base) });
  ws.on('message', (data) => {
    const frame = JSON.parse(data.toString()) as { type: string; event?: SkeinEvent };
    if (frame.type === 'event' && frame.event) latencies.push(Date.now() - Date.parse(frame.event.ts));
  });
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

/** `TURNS` short turns on the session, each posted after the last one ended; p50/p99 over every client's every event. */
async function deliveryRun(owner: TestServer, spread: TestServer[], id: string): Promise<{ p50: number; p99: number; events: number }> {
  const latencies: number[] = [];
  const since = (await api<SessionSnapshot>(owner.url, `/api/sessions/${id}`)).body.lastSeq;
  const sockets = await Promise.all(Array.from({ length: CLIENTS }, (_, i) => watch(spread[i % spread.length]!.url, id, since, latencies)));
  try {
    for (let t = 0; t < TURNS; t++) {
      const before = (await api<SessionSnapshot>(owner.url, `/api/sessions/${id}`)).body.lastSeq;
      await api(owner.url, `/api/sessions/${id}/messages`, { body: { text: `bash: echo turn ${t}` } });
      await until(async () => {
        const s = (await api<SessionSnapshot>(owner.url, `/api/sessions/${id}`)).body;
        return s.state === 'WaitingForUserInput' && s.lastSeq > before + 2;
      }, 'the turn to end');
    }
    // Every client gets every event of the turns (on the other instance through NOTIFY and a read of the table).
    const last = (await api<SessionSnapshot>(owner.url, `/api/sessions/${id}`)).body.lastSeq;
    await until(() => latencies.length >= CLIENTS * (last - since), 'every client to have every event');
    if (latencies.length !== CLIENTS * (last - since)) throw new Error(`${latencies.length} deliveries, expected ${CLIENTS * (last - since)}: an event was delivered twice`);
    return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), events: latencies.length };
  } finally {
    for (const ws of sockets) ws.terminate();
  }
}

async function failoverRun(postgres: TempPostgres): Promise<number> {
  const url = await postgres.database();
  const work = tempDir('bench-work');
  const owner = await startChildServer({ SKEIN_DATABASE_URL: url, SKEIN_DATA_DIR: tempDir('bench-data'), SKEIN_WORKDIR: work });
  const other = await startTestServer({ SKEIN_DATABASE_URL: url }, { workDir: work });
  try {
    const { body } = await api<{ id: string }>(owner.url, '/api/sessions', { body: {} });
    await until(async () => (await api(other.url, `/api/sessions/${body.id}`)).status === 200, 'the other instance to know the session');
    await api(owner.url, `/api/sessions/${body.id}/messages`, { body: { text: 'delay: 600000' } });
    await until(async () => (await api<SessionSnapshot>(other.url, `/api/sessions/${body.id}`)).body.state === 'SendingToLLM', 'the long turn');
    const killed = Date.now();
    await owner.kill('SIGKILL');
    // Taken over: the other instance runs the session and has closed the interrupted turn.
    await until(async () => {
      const s = (await api<SessionSnapshot>(other.url, `/api/sessions/${body.id}`)).body;
      return s.runsElsewhere === undefined && s.state === 'WaitingForUserInput';
    }, 'the takeover');
    return Date.now() - killed;
  } finally {
    await other.close();
    await owner.kill().catch(() => undefined);
  }
}

export const section: BenchSection = {
  name: 'cluster',
  async run() {
    const postgres = await startTempPostgres();
    try {
      const url = await postgres.database();
      const work = tempDir('bench-work');
      const a = await startTestServer({ SKEIN_DATABASE_URL: url }, { workDir: work });
      const b = await startTestServer({ SKEIN_DATABASE_URL: url }, { workDir: work });
      let single: { p50: number; p99: number; events: number };
      let split: { p50: number; p99: number; events: number };
      try {
        const { body } = await api<{ id: string }>(a.url, '/api/sessions', { body: {} });
        await until(async () => (await api(b.url, `/api/sessions/${body.id}`)).status === 200, 'B to know the session');
        // Alternated in one run: all on the owner, then half on each instance.
        single = await deliveryRun(a, [a], body.id);
        split = await deliveryRun(a, [a, b], body.id);
      } finally {
        await a.close();
        await b.close();
      }
      const failovers: number[] = [];
      for (let i = 0; i < FAILOVERS; i++) failovers.push(await failoverRun(postgres));
      const ratio = split.p99 / Math.max(1, single.p99);
      return {
        rows: [
          {
            bench: 'cluster',
            measure: `two instances on PostgreSQL, ${CLIENTS} clients: delivery p50 / p99, half on each instance vs all on the owner (${split.events} / ${single.events} deliveries)`,
            value: `${fmt(split.p50, 0)} / ${fmt(split.p99, 0)} ms vs ${fmt(single.p50, 0)} / ${fmt(single.p99, 0)} ms (p99 ${fmt(ratio, 2)}x)`,
            goal: 'p99 within 2x',
            met: ratio <= 2,
          },
          {
            bench: 'cluster',
            measure: `failover after kill -9 of the owner mid-turn (SKEIN_LEASE_TIMEOUT_MS 5,000): until the other instance runs the session with the turn closed, median of ${FAILOVERS}`,
            value: `${fmt(median(failovers) / 1000, 1)} s (${failovers.map((ms) => fmt(ms / 1000, 1)).join(', ')})`,
            goal: 'within seconds',
            met: median(failovers) < 15_000,
          },
        ],
        details: { single, split, failovers },
      };
    } finally {
      postgres.stop();
    }
  },
};
