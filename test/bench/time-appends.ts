// Appends `bursts` bursts of `burst` events to a session, one burst per tick
// (paceMs 0: as fast as the log takes them) or one every paceMs, and times
// each event from its append to its delivery to a subscriber (only durable
// events are delivered, so this is append -> durable -> broadcast).
import { performance } from 'node:perf_hooks';
import type { Session } from '../../server/agent/session.js';
import { percentile } from './types.js';

export interface AppendRun {
  eventsPerSecond: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
}

export async function timeAppends(session: Session, bursts: number, burst: number, paceMs: number): Promise<AppendRun> {
  const appendedAt = new Map<number, number>();
  const latencies: number[] = [];
  let delivered = 0;
  const done = new Promise<void>((resolve) =>
    session.subscribe(session.log.lastSeq, (e) => {
      latencies.push(performance.now() - appendedAt.get(e.seq)!);
      if (++delivered === bursts * burst) resolve();
    }),
  );
  const started = performance.now();
  for (let b = 0; b < bursts; b++) {
    for (let i = 0; i < burst; i++) {
      appendedAt.set(session.log.lastSeq + 1, performance.now());
      session.append({ kind: 'tool_result', callId: `c${b}-${i}`, name: 'bash', output: 'x'.repeat(200), isError: false, durationMs: 3 });
    }
    await new Promise((r) => (paceMs ? setTimeout(r, paceMs) : setImmediate(r)));
  }
  await done;
  return { eventsPerSecond: (bursts * burst) / ((performance.now() - started) / 1000), latencyP50Ms: percentile(latencies, 50), latencyP99Ms: percentile(latencies, 99) };
}
