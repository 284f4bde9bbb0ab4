// Append-to-broadcast latency of a busy session on the PostgreSQL store (a
// temporary local cluster, fsync on), paced like the JSONL rows of scale.ts:
// bursts of events in one tick, one burst every PACE_MS; also throughput.
import { Session } from '../../server/agent/session.js';
import { PgStore } from '../../server/store/postgres/pg-store.js';
import { startTempPostgres } from '../helpers/postgres.js';
import { tempDir } from '../helpers/temp-dir.js';
import { timeAppends, type AppendRun } from './time-appends.js';

export type PgAppendRun = AppendRun;

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
        const run = await timeAppends(session, bursts, burst, pace);
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
