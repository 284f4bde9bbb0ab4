// Append-to-broadcast latency of a busy session on the PostgreSQL store (a
// temporary local cluster, fsync on), paced like the JSONL rows of scale.ts:
// bursts of events in one tick, one burst every PACE_MS; also throughput.
import { performance } from 'node:perf_hooks';
import { Session } from '../../server/agent/session.js';
import { PgStore } from '../../server/store/postgres/pg-store.js';
import { startTempPostgres } from '../helpers/postgres.js';
import { tempDir } from '../helpers/server.js';
import { percentile } from './types.js';

export interface PgAppendRun {
  eventsPerSecond: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
}

export async function pgAppendRuns(runs: number, bursts: number, burst: number, paceMs: number): Promise<{ paced: PgAppendRun[]; fast: PgAppendRun[] }> {
  const postgres = await startTempPostgres();
  const result = { paced: [] as PgAppendRun[], fast: [] as PgAppendRun[] };
  try {
    for (let r = 0; r < runs; r++) {
      for (const pace of [paceMs, 0]) {
        const store = await PgStore.connect(await postgres.database(), tempDir('pg-bench'));
        const log = store.create({ skein: 1, session: 's', createdAt: new Date().toISOString(), model: 'predictable' });
        await log.flushed();
        const session = new Session('s', log, 'predictable');
        const appendedAt = new Map<number, number>();
        const latencies: number[] = [];
        let delivered = 0;
        const done = new Promise<void>((resolve) =>
          session.subscribe(0, (e) => {
            latencies.push(performance.now() - appendedAt.get(e.seq)!);
            if (++delivered === bursts * burst) resolve();
          }),
        );
        const started = performance.now();
        for (let b = 0; b < bursts; b++) {
          for (let i = 0; i < burst; i++) {
            appendedAt.set(log.lastSeq + 1, performance.now());
            session.append({ kind: 'tool_result', callId: `c${b}-${i}`, name: 'bash', output: 'x'.repeat(200), isError: false, durationMs: 3 });
          }
          await new Promise((res) => (pace ? setTimeout(res, pace) : setImmediate(res)));
        }
        await done;
        const run = { eventsPerSecond: (bursts * burst) / ((performance.now() - started) / 1000), latencyP50Ms: percentile(latencies, 50), latencyP99Ms: percentile(latencies, 99) };
        (pace ? result.paced : result.fast).push(run);
        log.close();
        await store.close();
      }
    }
  } finally {
    postgres.stop();
  }
  return result;
}
